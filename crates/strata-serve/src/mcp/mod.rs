//! The MCP server: tools for an agent to search *and* navigate, and the documents as
//! resources. Served over stdio by `strata mcp` and as streamable HTTP at `/mcp` by
//! `strata serve`, on the same [`Engine`] as everything else.
//!
//! Tool answers are written for a language model: the text content is what it reads (the
//! assembled context with citations, an indented outline, a section with its heading path),
//! and the structured content carries the same answer for programs, in the same typed shapes
//! as the HTTP API (lists wrapped in an object). A bad argument or an unknown document is a
//! tool error the model can read and correct, not a protocol error.
//!
//! - `tools.rs`: the tools and their arguments, each a call of [`Engine`];
//! - `render.rs`: the text a model reads;
//! - `resources.rs`: the server's description and the documents as resources;
//! - `transport.rs`: stdio and streamable HTTP;
//! - `sessions.rs`: the HTTP sessions, capped in total and per API key, closed when idle;
//! - `lines.rs`: JSON-RPC lines on a byte stream (stdio), with JSON-RPC's error for a line
//!   that is not a message.

mod lines;
mod render;
mod resources;
mod sessions;
mod tools;
mod transport;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::ErrorData;
use serde::Serialize;
use strata_engine::Engine;

use crate::error::ApiError;

pub use tools::{DefineArgs, FollowArgs, OutlineArgs, PagesArgs, SearchArgs, SectionArgs};
pub use transport::{http_routes, serve_stdio};

/// Bytes of a section or of pages returned at once; longer ones are cut (on a character
/// boundary) with a note naming the subsections to read instead.
const MAX_READ_BYTES: usize = 60_000;

/// The strata MCP server.
#[derive(Clone)]
pub struct Strata {
    engine: Arc<Engine>,
    /// Searches computed at once, shared with the HTTP routes.
    searches: Arc<tokio::sync::Semaphore>,
    #[allow(dead_code)] // read by the code `#[tool_handler]` generates
    tool_router: ToolRouter<Strata>,
}

impl Strata {
    /// The server for `engine`; at most `searches` permits' worth of searches run at once.
    pub fn new(engine: Arc<Engine>, searches: Arc<tokio::sync::Semaphore>) -> Strata {
        Strata { engine, searches, tool_router: Strata::tool_router() }
    }
}

fn failed(e: impl Into<ApiError>) -> CallToolResult {
    let e = e.into();
    CallToolResult::error(vec![ContentBlock::text(e.message)])
}

/// A tool's answer: `text` for the model, `structured` (a typed shape of the HTTP API) for
/// programs.
fn answer<T: Serialize>(text: String, structured: &T) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(serde_json::to_value(structured).unwrap_or(serde_json::Value::Null));
    result
}

/// Runs index work off the async threads; its error becomes a tool error.
async fn run<F>(f: F) -> Result<CallToolResult, ErrorData>
where
    F: FnOnce() -> Result<CallToolResult, ApiError> + Send + 'static,
{
    match crate::error::blocking(f).await {
        Ok(result) => Ok(result),
        Err(e) => Ok(failed(e)),
    }
}

/// `[serve] max_query_chars`, as over HTTP.
fn check_query(engine: &Engine, query: &str) -> Result<(), ApiError> {
    crate::state::check_query(engine.config().serve.max_query_chars, query)
}
