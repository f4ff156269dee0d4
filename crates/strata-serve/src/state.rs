//! What every handler can reach: the engine, the keys and roots, the job table, the metrics
//! and the limits of `[serve]`, built once per server and cloned into each request.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use strata_engine::Engine;

use crate::auth::Keys;
use crate::error::ApiError;
use crate::jobs::Jobs;
use crate::metrics::Metrics;
use crate::paths::Roots;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The index and its models.
    pub engine: Arc<Engine>,
    pub(crate) keys: Arc<Keys>,
    pub(crate) roots: Arc<Roots>,
    pub(crate) jobs: Arc<Jobs>,
    pub(crate) metrics: Arc<Metrics>,
    /// Searches computed at once (`[serve] max_concurrent_searches`), shared with `/mcp`.
    pub(crate) searches: Arc<tokio::sync::Semaphore>,
    pub(crate) uploads: PathBuf,
    pub(crate) max_query_chars: usize,
    /// Listening on loopback: only loopback `Host` names are answered.
    pub(crate) loopback: bool,
    pub(crate) started: Instant,
}

impl AppState {
    /// The state for `engine`, with the limits, keys and roots of its `[serve]` config.
    pub fn new(engine: Arc<Engine>) -> strata_core::Result<AppState> {
        let serve = &engine.config().serve;
        Ok(AppState {
            keys: Arc::new(Keys::new(&serve.keys()?)),
            roots: Arc::new(Roots::new(&serve.roots)?),
            jobs: Arc::new(Jobs::open(
                engine.index().join("jobs.json"),
                serve.max_ingest_jobs,
                serve.keep_jobs,
            )),
            metrics: Arc::new(Metrics::default()),
            searches: Arc::new(tokio::sync::Semaphore::new(serve.search_slots())),
            uploads: engine.index().join("uploads"),
            max_query_chars: serve.max_query_chars,
            loopback: true,
            started: Instant::now(),
            engine,
        })
    }

    /// Refuses a query (or term) longer than `[serve] max_query_chars`.
    pub(crate) fn check_query(&self, query: &str) -> Result<(), ApiError> {
        check_query(self.max_query_chars, query)
    }
}

/// Refuses a query (or term) longer than `max` characters.
pub(crate) fn check_query(max: usize, query: &str) -> Result<(), ApiError> {
    let chars = query.chars().count();
    if chars > max {
        return Err(ApiError::bad_request(format!(
            "the query is {chars} characters, more than this server's {max} ([serve] max_query_chars)"
        )));
    }
    Ok(())
}
