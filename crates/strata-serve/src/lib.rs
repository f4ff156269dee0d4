//! strata over the network, on the same [`strata_engine::Engine`] as the CLI.
//!
//! - **HTTP** (`strata serve`): JSON in and out, in the shapes of the CLI's `--json`, under
//!   `/v1`; `/healthz`, `/metrics` (Prometheus text) and `/openapi.json` (generated from the
//!   types by utoipa). See [`app::router`] for the routes and the layers around them.
//! - **MCP** (`strata mcp` over stdio, and `/mcp` streamable HTTP on `serve`): tools for an
//!   agent to search *and* navigate, and the documents as resources ([`mcp::Strata`]).
//! - **A web page** at `/` to search, read and manage documents over the same `/v1` API,
//!   its files embedded in the binary ([`ui`]).
//!
//! Everything that touches the index runs on tokio's blocking pool; handlers only parse,
//! check and render.

pub mod app;
mod auth;
mod error;
mod jobs;
mod journal;
pub mod mcp;
mod memory;
mod metrics;
mod openapi;
mod paths;
mod routes;
mod server;
mod state;
pub mod ui;
mod uploads;

pub use app::{openapi, router};
pub use error::ErrorBody;
pub use server::{cancel_on_signal, run_http, run_stdio, runtime, serve, Listen};
pub use state::AppState;
