//! MCP sessions on `/mcp`: capped in total and per API key, and closed when idle.
//!
//! rmcp keeps a session (a worker task, its channels and the handler) from `initialize` until
//! the client sends `DELETE /mcp`; one that idles out ends its worker but stays in the
//! session manager's map. So a client looping on `initialize` held 9,600 sessions and a
//! gigabyte. Here a middleware in front of rmcp counts the sessions each caller opened: an
//! `initialize` past `[serve] max_mcp_sessions` or `max_mcp_sessions_per_key` is answered
//! with a JSON-RPC error saying so (HTTP 429), before rmcp sees it, and the sessions open
//! keep working. Every request of a session marks it used; a reaper closes through the
//! manager (which drops it from the map) each session unused for `mcp_idle_secs`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use strata_core::config::ServeConfig;

use crate::auth::Caller;

/// Ticks after sessions were closed that hand freed memory back.
const TRIMS_AFTER_CLOSING: u32 = 4;

/// The header rmcp names a session by.
const SESSION_HEADER: &str = "mcp-session-id";

/// The sessions open, by whom, and when each was last used.
pub struct Sessions {
    manager: Arc<LocalSessionManager>,
    table: Mutex<Table>,
    max_total: usize,
    max_per_caller: usize,
    idle: Duration,
}

#[derive(Default)]
struct Table {
    open: HashMap<SessionId, Entry>,
    /// `initialize` requests admitted and not answered yet, per caller.
    pending: HashMap<Caller, usize>,
}

struct Entry {
    caller: Caller,
    used: Instant,
}

impl Sessions {
    /// The sessions of a new session manager, with the limits of `config`.
    pub fn new(config: &ServeConfig) -> Arc<Sessions> {
        let idle = Duration::from_secs(config.mcp_idle_secs);
        let mut manager = LocalSessionManager::default();
        // rmcp's own idle timer ends the worker; the reaper then drops the session.
        manager.session_config.keep_alive = Some(idle);
        Arc::new(Sessions {
            manager: Arc::new(manager),
            table: Mutex::default(),
            max_total: config.max_mcp_sessions,
            max_per_caller: config.max_mcp_sessions_per_key,
            idle,
        })
    }

    /// The session manager rmcp's service uses.
    pub fn manager(&self) -> Arc<LocalSessionManager> {
        self.manager.clone()
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Closes the sessions unused for the idle time, and forgets those the manager closed;
    /// how many it closed. A session the manager holds that this table does not (its
    /// `initialize` answer never came back through the middleware) is counted from now, for
    /// no caller.
    pub async fn reap(&self) -> usize {
        let live: HashSet<SessionId> = self.manager.sessions.read().await.keys().cloned().collect();
        let expired: Vec<SessionId> = {
            let mut table = self.table();
            table.open.retain(|id, _| live.contains(id));
            for id in &live {
                table
                    .open
                    .entry(id.clone())
                    .or_insert(Entry { caller: Caller::default(), used: Instant::now() });
            }
            let idle: Vec<SessionId> = table
                .open
                .iter()
                .filter(|(_, e)| e.used.elapsed() >= self.idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &idle {
                table.open.remove(id);
            }
            idle
        };
        for id in &expired {
            if let Err(e) = self.manager.close_session(id).await {
                tracing::debug!("closing the idle MCP session {id}: {e}");
            }
        }
        expired.len()
    }

    /// Reaps every few seconds until `cancel`. The few ticks after one that closed sessions
    /// (their workers end meanwhile, on a busy server later) hand the memory they freed back
    /// to the system.
    pub fn reap_until(self: &Arc<Self>, cancel: tokio_util::sync::CancellationToken) {
        let sessions = self.clone();
        let every = (self.idle / 4).clamp(Duration::from_millis(250), Duration::from_secs(30));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            let mut trims_left = 0;
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tick.tick() => {}
                }
                if trims_left > 0 {
                    crate::memory::release();
                    trims_left -= 1;
                }
                if sessions.reap().await > 0 {
                    trims_left = TRIMS_AFTER_CLOSING;
                }
            }
        });
    }

    /// Takes a place for a new session of `caller`, or says which limit is full.
    async fn admit(self: &Arc<Self>, caller: Caller) -> Result<Place, String> {
        self.reap().await;
        let mut table = self.table();
        let pending: usize = table.pending.values().sum();
        let total = table.open.len() + pending;
        if total >= self.max_total {
            return Err(format!(
                "this server has {total} MCP sessions open, the most it keeps ([serve] max_mcp_sessions = {}); \
                 close sessions you no longer use (DELETE /mcp with their Mcp-Session-Id), or retry once idle \
                 ones close after [serve] mcp_idle_secs = {}",
                self.max_total,
                self.idle.as_secs()
            ));
        }
        let mine = table.open.values().filter(|e| e.caller == caller).count()
            + table.pending.get(&caller).copied().unwrap_or(0);
        if mine >= self.max_per_caller {
            return Err(format!(
                "this API key has {mine} MCP sessions open, the most one key may keep \
                 ([serve] max_mcp_sessions_per_key = {}); reuse a session, close those you no longer use \
                 (DELETE /mcp with their Mcp-Session-Id), or retry once idle ones close after \
                 [serve] mcp_idle_secs = {}",
                self.max_per_caller,
                self.idle.as_secs()
            ));
        }
        *table.pending.entry(caller).or_default() += 1;
        Ok(Place { sessions: self.clone(), caller })
    }

    /// Marks session `id` used now.
    fn touch(&self, id: &str) {
        if let Some(entry) = self.table().open.get_mut(id) {
            entry.used = Instant::now();
        }
    }
}

/// A place taken for one `initialize`: the session it opens is the caller's; given back
/// when dropped, whether a session was opened or not.
struct Place {
    sessions: Arc<Sessions>,
    caller: Caller,
}

impl Place {
    fn opened(&self, id: &str) {
        let entry = Entry { caller: self.caller, used: Instant::now() };
        self.sessions.table().open.insert(SessionId::from(id), entry);
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut table = self.sessions.table();
        if let Some(n) = table.pending.get_mut(&self.caller) {
            *n -= 1;
            if *n == 0 {
                table.pending.remove(&self.caller);
            }
        }
    }
}

/// Middleware in front of rmcp's service: a request of a session marks it used; a `POST`
/// without a session (an `initialize`) needs a place.
pub async fn limit(State(sessions): State<Arc<Sessions>>, request: Request, next: Next) -> Response {
    if let Some(id) = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        sessions.touch(id);
        return next.run(request).await;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let caller = request.extensions().get::<Caller>().copied().unwrap_or_default();
    let place = match sessions.admit(caller).await {
        Ok(place) => place,
        Err(message) => return refused(request, message).await,
    };
    let response = next.run(request).await;
    if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        place.opened(id);
    }
    response
}

/// Bytes of a refused `initialize` read to find its JSON-RPC id.
const MAX_REFUSED_BODY: usize = 64 * 1024;

/// The JSON-RPC error answering a refused `initialize` (its id echoed when it can be read).
async fn refused(request: Request, message: String) -> Response {
    let body = axum::body::to_bytes(request.into_body(), MAX_REFUSED_BODY).await.unwrap_or_default();
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(serde_json::Value::Null);
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": -32000, "message": message },
    });
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Body::from(error.to_string())).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
