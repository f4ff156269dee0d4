//! The transports: streamable HTTP at `/mcp` (one session per client, capped) and stdio.

use std::sync::Arc;

use strata_engine::Engine;

use super::lines::Lines;
use super::sessions::Sessions;
use super::Strata;

/// `/mcp`: the streamable HTTP transport, one session per client, the sessions capped and
/// closed when idle ([`Sessions`]) as `[serve]` of `engine` says.
pub fn http_routes<S: Clone + Send + Sync + 'static>(
    engine: Arc<Engine>,
    searches: Arc<tokio::sync::Semaphore>,
    cancel: tokio_util::sync::CancellationToken,
    loopback: bool,
) -> axum::Router<S> {
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    let sessions = Sessions::new(&engine.config().serve);
    sessions.reap_until(cancel.clone());
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(cancel);
    // On loopback, only loopback Host headers (a browser page cannot rebind a name to us);
    // off loopback the API key guards /mcp.
    if !loopback {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(Strata::new(engine.clone(), searches.clone())),
        sessions.manager(),
        config,
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(sessions, super::sessions::limit))
}

/// Serves MCP over stdin/stdout until the client closes it (`strata mcp`).
pub async fn serve_stdio(engine: Arc<Engine>) -> strata_core::Result<()> {
    serve_lines(engine, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves MCP as JSON-RPC lines on `read` and `write` until `read` ends; a line that is not
/// a message is answered with a JSON-RPC error ([`Lines`]).
pub(super) async fn serve_lines<R, W>(engine: Arc<Engine>, read: R, write: W) -> strata_core::Result<()>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use rmcp::ServiceExt;
    let searches = Arc::new(tokio::sync::Semaphore::new(engine.config().serve.search_slots()));
    let running = Strata::new(engine, searches)
        .serve(Lines::new(read, write))
        .await
        .map_err(|e| strata_core::Error::Internal(format!("starting MCP over stdio: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| strata_core::Error::Internal(format!("serving MCP over stdio: {e}")))?;
    Ok(())
}
