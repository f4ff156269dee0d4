//! A server for the tests: an engine opened (created) on a folder with a configuration,
//! served on an ephemeral loopback port.

use std::path::Path;
use std::sync::Arc;

use strata_core::Config;
use strata_engine::{Engine, OpenOptions};
use strata_serve::{AppState, Listen};
use tokio_util::sync::CancellationToken;

/// A server running in this process.
pub struct Running {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Cancelled, it shuts the server down.
    pub shutdown: CancellationToken,
    /// The server task.
    pub handle: tokio::task::JoinHandle<strata_core::Result<()>>,
}

/// Serves an engine on `index` (created if needed) with `config`, MCP at `/mcp` when `mcp`.
pub async fn serve(config: Config, index: &Path, mcp: bool) -> Running {
    let dir = index.to_path_buf();
    let engine = tokio::task::spawn_blocking(move || {
        Engine::open(config, &dir, &OpenOptions { create: true, ..OpenOptions::default() })
    })
    .await
    .unwrap()
    .unwrap();
    let state = AppState::new(Arc::new(engine)).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let listen = Listen { addr, public: false, mcp };
    let shutdown = CancellationToken::new();
    let token = shutdown.clone();
    let handle = tokio::spawn(async move { strata_serve::serve(state, listener, &listen, token).await });
    Running { base: format!("http://{addr}"), shutdown, handle }
}
