//! Binding, running and stopping: the loopback rule, the runtime, graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use strata_core::{Error, Result};
use tokio_util::sync::CancellationToken;

use crate::app::router;
use crate::mcp;
use crate::state::AppState;

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address.
    pub addr: SocketAddr,
    /// Listen off loopback without API keys (`--public`, `[serve] public`).
    pub public: bool,
    /// Mount the MCP server at `/mcp`.
    pub mcp: bool,
}

impl Listen {
    /// Refuses a non-loopback address when no API key is configured, unless opted out.
    pub fn check(&self, keys: usize) -> Result<()> {
        if keys == 0 && !self.addr.ip().is_loopback() && !self.public {
            return Err(Error::user(format!(
                "refusing to listen on {} without API keys: anyone who can reach it could read and change \
                 the index. Set [serve] api_keys or STRATA_API_KEYS, listen on 127.0.0.1, or pass --public \
                 to accept the risk",
                self.addr
            )));
        }
        Ok(())
    }
}

/// The runtime of `strata serve` and `strata mcp`: one async worker per core, and blocking
/// threads (where searches and ingests run) with room for deep outlines, which serialize
/// recursively.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(64 << 20)
        .max_blocking_threads(128)
        .thread_name("strata-serve")
        .build()
}

/// Serves the HTTP API (and `/mcp` when `listen.mcp`) on `listener` until `shutdown` is
/// cancelled, then stops taking connections and jobs, and gives the requests in flight and
/// the running ingest job (which finishes the file it is on and commits) `[serve]
/// shutdown_grace_secs` to end; it returns then, whatever is left.
pub async fn serve(
    mut state: AppState,
    listener: tokio::net::TcpListener,
    listen: &Listen,
    shutdown: CancellationToken,
) -> Result<()> {
    let keys = state.engine.config().serve.api_keys.len();
    let header_timeout = Duration::from_secs(state.engine.config().serve.header_timeout_secs);
    let grace = Duration::from_secs(state.engine.config().serve.shutdown_grace_secs);
    listen.check(keys)?;
    let local = listener.local_addr().map_err(|e| Error::io("reading the bound address", e))?;
    state.loopback = local.ip().is_loopback();
    let mcp: Option<Router<AppState>> = listen.mcp.then(|| {
        mcp::http_routes(
            state.engine.clone(),
            state.searches.clone(),
            shutdown.child_token(),
            local.ip().is_loopback(),
        )
    });
    let jobs = state.jobs.clone();
    let (engine, uploads) = (state.engine.clone(), state.uploads.clone());
    let resumed = jobs.clone();
    tokio::task::spawn_blocking(move || resumed.resume(&engine, &uploads))
        .await
        .map_err(|e| Error::Internal(format!("taking up the jobs of the last run: {e}")))?;
    watch_commits(state.engine.clone(), shutdown.clone());
    let app = router(state, mcp);
    tracing::info!(addr = %local, keys, "serving");
    let open = serve_connections(listener, app, header_timeout, shutdown).await;
    // Jobs are told at once: the running one ends its file while the requests finish.
    jobs.stop();
    let deadline = Instant::now() + grace;
    if tokio::time::timeout(grace, open.shutdown()).await.is_err() {
        tracing::warn!(
            "connections still open after [serve] shutdown_grace_secs = {}; closing them",
            grace.as_secs()
        );
    }
    while jobs.active() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if jobs.active() > 0 {
        tracing::warn!(
            "an ingest job still runs after [serve] shutdown_grace_secs = {}; exiting without it \
             (the index keeps its last commit)",
            grace.as_secs()
        );
    }
    Ok(())
}

/// Accepts connections until `shutdown`, and returns the connections still open, told to
/// close once their request in flight is answered. Each is served by hyper's HTTP/1 with a
/// timer, so a client must send a request's line and headers within `header_timeout` or be
/// disconnected: `axum::serve` sets no timer, and a client sending one header line every few
/// seconds held its connection forever, before any API key was checked.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
) -> GracefulShutdown {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    loop {
        let stream = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
        };
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection closed: {e}");
            }
        });
    }
    drop(listener);
    graceful
}

/// Waits out an error of `accept`: a connection reset before it was accepted is the
/// client's business; anything else (out of file descriptors) is logged, and the loop
/// pauses a second before trying again, as `axum::serve` does.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(e.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    tracing::error!("accepting a connection: {e}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// How often the server looks for commits made by another process.
const REFRESH_EVERY: Duration = Duration::from_secs(2);

/// Publishes commits of another writer (a `strata ingest` beside the server) to readers.
fn watch_commits(engine: Arc<strata_engine::Engine>, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(REFRESH_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            let engine = engine.clone();
            match tokio::task::spawn_blocking(move || engine.refresh()).await {
                Ok(Ok(true)) => tracing::info!("published a commit made by another process"),
                Ok(Ok(false)) => {}
                Ok(Err(e)) => tracing::warn!("looking for new commits: {e}"),
                Err(e) => tracing::warn!("looking for new commits: {e}"),
            }
        }
    });
}

/// Cancels `token` on Ctrl-C or SIGTERM.
pub fn cancel_on_signal(token: CancellationToken) {
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(e) => {
                    tracing::warn!("cannot listen for SIGTERM: {e}");
                    let _ = ctrl_c.await;
                    token.cancel();
                    return;
                }
            };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down: finishing the requests in flight");
        token.cancel();
    });
}

/// `strata serve`: binds `listen.addr`, says where on stderr (`listening on http://…`, which
/// scripts read when the port is 0), and serves until Ctrl-C or SIGTERM; it then returns
/// within `[serve] shutdown_grace_secs` and a half second.
pub fn run_http(state: AppState, listen: Listen) -> Result<()> {
    let runtime = runtime().map_err(|e| Error::io("starting the async runtime", e))?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen.addr).await.map_err(|e| {
            Error::io(
                format!("listening on {} (is the port taken? pick another with --addr)", listen.addr),
                e,
            )
        })?;
        let local = listener.local_addr().map_err(|e| Error::io("reading the bound address", e))?;
        eprintln!("listening on http://{local}");
        let shutdown = CancellationToken::new();
        cancel_on_signal(shutdown.clone());
        // The page's files are compressed now, beside the first requests, rather than when
        // the first browser asks (servers started by tests compress them only if fetched).
        crate::ui::warm();
        serve(state, listener, &listen, shutdown).await
    });
    // A request or job still running on the blocking pool past the grace is left behind:
    // the process exits (the index keeps its last commit).
    runtime.shutdown_timeout(Duration::from_millis(500));
    served
}

/// `strata mcp`: MCP over stdin/stdout until the client closes it.
pub fn run_stdio(engine: Arc<strata_engine::Engine>) -> Result<()> {
    let runtime = runtime().map_err(|e| Error::io("starting the async runtime", e))?;
    runtime.block_on(mcp::serve_stdio(engine))
}
