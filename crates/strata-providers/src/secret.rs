//! API keys: read from the environment, never printed (the embedder's, shared).

pub use strata_http::secret::{redact, ApiKey};
