//! `strata serve` and `strata mcp`: the engine opened with every model, handed to
//! `strata-serve`.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use strata_core::Config;
use strata_engine::{Engine, OpenOptions};

use crate::args::ServeArgs;

/// Serves the HTTP API (and MCP at `/mcp`) until a signal stops it.
pub fn http(mut config: Config, index: &Path, model: Option<String>, args: ServeArgs) -> Result<()> {
    if let Some(addr) = args.addr {
        config.serve.addr = addr;
    }
    config.serve.public |= args.public;
    config.serve.roots.extend(args.roots);
    config.validate("the command line")?;
    let listen = strata_serve::Listen {
        addr: config.serve.addr.parse().context("--addr")?,
        public: config.serve.public,
        mcp: !args.no_mcp,
    };
    // Before loading any model: a refused address is refused at once.
    listen.check(config.serve.api_keys.len())?;
    // Every model loaded, the index created when absent.
    let open = OpenOptions { model, dense: true, create: true, navigate_only: false };
    let engine = Arc::new(Engine::open(config, index, &open)?);
    strata_serve::run_http(strata_serve::AppState::new(engine)?, listen)?;
    Ok(())
}

/// Serves MCP over stdin and stdout.
pub fn stdio(config: Config, index: &Path, model: Option<String>) -> Result<()> {
    // No ingest over MCP: a mistyped --index is an error, not a new empty index.
    let open = OpenOptions { model, dense: true, ..OpenOptions::default() };
    strata_serve::run_stdio(Arc::new(Engine::open(config, index, &open)?))?;
    Ok(())
}
