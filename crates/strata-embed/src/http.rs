//! An [`Embedder`] over the OpenAI-compatible `POST {base_url}/embeddings` API.
//!
//! One wire format covers OpenAI, Azure OpenAI, Ollama, vLLM and Hugging Face TEI, so strata
//! speaks only that: the request is `{"model", "input": [..], "encoding_format": "float"}`
//! (plus `dimensions` when configured) and the answer is `{"data": [{"embedding", "index"}]}`.
//!
//! Why it looks the way it does:
//! - **Blocking.** The embedder is called from the ingest worker threads, so a blocking client
//!   (`ureq`) with one global timeout per request is simpler than an async runtime and costs
//!   nothing.
//! - **The dimension is probed once.** [`HttpEmbedder::connect`] sends a one-input request, so a
//!   bad URL, key or model fails before an ingest starts, and [`EmbedderInfo::dim`] is known
//!   from the start (an index records it). Any later answer of another dimension is an error.
//! - **Retries are for the network and overload only**: connection errors, timeouts and HTTP
//!   408, 409, 429, 500, 502, 503, 504 and 529 ([`post_json`], shared with the other HTTP
//!   clients, in `strata-http`), with exponential backoff and jitter, honouring
//!   `Retry-After`. Any other status is a mistake that retrying cannot fix and fails at once
//!   with the server's message.
//! - **Rows are checked and normalized here**: ordered by `index`, counted, of one dimension,
//!   and L2-normalized, because not every server normalizes.
//! - **The API key never leaves the header.** It is read from an environment variable, held
//!   in a type whose `Debug` prints `***`, sent as a sensitive header, and cut out of any
//!   server message that echoes it.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use strata_core::{Error, Result};
use strata_http::secret::ApiKey;
use strata_http::{backoff, post_json, Credential, Failure};
use strata_model::{l2_normalize, Embedder, EmbedderInfo, Embeddings, Pooling};

/// Largest response body read (a batch of 2048 vectors of 3072 floats fits).
const MAX_RESPONSE_BYTES: u64 = 512 * 1024 * 1024;
/// Text of the one-input request that [`HttpEmbedder::connect`] sends.
const PROBE_TEXT: &str = "dimension probe";

/// How the API key is sent: `bearer` or `api-key` (defined with the configuration).
pub use strata_core::config::AuthHeader;

/// Settings of an [`HttpEmbedder`], read from a TOML or JSON table; unknown keys are refused.
///
/// Only `model` has no usable default. Examples:
/// - OpenAI: `model = "text-embedding-3-small"`, key in `OPENAI_API_KEY`;
/// - Azure OpenAI: the deployment URL with its API version and the `api-key` header,
///   `base_url = "https://NAME.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-02-01"`,
///   `auth_header = "api-key"`;
/// - Ollama: `base_url = "http://localhost:11434/v1"`, `model = "nomic-embed-text"`, no key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpEmbedderConfig {
    /// The API root, e.g. `https://api.openai.com/v1` (the default); `/embeddings` is appended
    /// before any `?query`. A URL that already ends in `/embeddings` is used as is.
    pub base_url: String,
    /// The model (for Azure, the deployment's model), e.g. `text-embedding-3-small`.
    pub model: String,
    /// Name of the environment variable holding the API key (default `OPENAI_API_KEY`). When
    /// it is unset or empty no key is sent, which is right for local servers such as Ollama.
    pub api_key_env: String,
    /// How the key is sent: `bearer` (default) or `api-key` (Azure).
    pub auth_header: AuthHeader,
    /// Asks the server for vectors of this many dimensions (`text-embedding-3-*` can shorten
    /// them); the probe checks that the server obeys.
    pub dimensions: Option<usize>,
    /// Inputs per request (default 64; OpenAI accepts up to 2048).
    pub batch_size: usize,
    /// Limit on one request, from connecting to the last byte of the answer (default 30).
    pub timeout_secs: u64,
    /// Retries of a request after a network error, a timeout or an overloaded server
    /// (default 5); 0 tries once.
    pub max_retries: u32,
    /// Text put before each query (e.g. `"query: "` for e5 models served by TEI).
    pub query_prefix: String,
    /// Text put before each passage.
    pub passage_prefix: String,
    /// Most tokens the model reads, reported in [`EmbedderInfo::max_seq_len`] so that chunks
    /// fit (default 8191, OpenAI's limit). strata does not truncate: the server does or refuses.
    pub max_seq_len: usize,
}

impl Default for HttpEmbedderConfig {
    fn default() -> HttpEmbedderConfig {
        HttpEmbedderConfig {
            base_url: "https://api.openai.com/v1".into(),
            model: String::new(),
            api_key_env: "OPENAI_API_KEY".into(),
            auth_header: AuthHeader::Bearer,
            dimensions: None,
            batch_size: 64,
            timeout_secs: 30,
            max_retries: 5,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            max_seq_len: 8191,
        }
    }
}

impl From<&strata_core::config::DenseHttpConfig> for HttpEmbedderConfig {
    /// The `[dense.http]` section of `strata.toml` (validated there).
    fn from(c: &strata_core::config::DenseHttpConfig) -> HttpEmbedderConfig {
        HttpEmbedderConfig {
            base_url: c.base_url.clone(),
            model: c.model.clone(),
            api_key_env: c.api_key_env.clone(),
            auth_header: c.auth_header,
            dimensions: c.dimensions,
            batch_size: c.batch_size,
            timeout_secs: c.timeout_secs,
            max_retries: c.max_retries,
            query_prefix: c.query_prefix.clone(),
            passage_prefix: c.passage_prefix.clone(),
            max_seq_len: c.max_seq_len,
        }
    }
}

impl HttpEmbedderConfig {
    /// Checks each value, naming the bad one.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &str, why: String| Err(Error::user(format!("dense.http.{field} {why}")));
        let url = self.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() < "http://x".len() {
            return bad("base_url", format!("must be an http:// or https:// URL, got {:?}", self.base_url));
        }
        if self.model.trim().is_empty() {
            return bad("model", "must name the embedding model, e.g. \"text-embedding-3-small\"".into());
        }
        if self.dimensions == Some(0) {
            return bad("dimensions", "must be at least 1 when set, got 0".into());
        }
        if !(1..=2048).contains(&self.batch_size) {
            return bad("batch_size", format!("must be between 1 and 2048, got {}", self.batch_size));
        }
        if self.timeout_secs == 0 {
            return bad("timeout_secs", "must be at least 1, got 0".into());
        }
        if self.max_seq_len == 0 {
            return bad("max_seq_len", "must be at least 1, got 0".into());
        }
        Ok(())
    }

    /// The URL requests go to: `base_url` with `/embeddings` appended to its path.
    pub fn endpoint(&self) -> String {
        let url = self.base_url.trim();
        let (path, query) = url.split_once('?').map_or((url, None), |(p, q)| (p, Some(q)));
        let path = path.trim_end_matches('/');
        let mut endpoint =
            if path.ends_with("/embeddings") { path.to_string() } else { format!("{path}/embeddings") };
        if let Some(query) = query {
            endpoint.push('?');
            endpoint.push_str(query);
        }
        endpoint
    }
}

/// An [`Embedder`] calling an OpenAI-compatible embeddings endpoint.
///
/// Its info has `model_id` `http:{model}`, the probed dimension, the configured `max_seq_len`
/// and prefixes, no tokenizer, and [`Pooling::Mean`], which means nothing here: the server
/// pools as its model does. It is `Send + Sync` and shares one connection pool across threads.
pub struct HttpEmbedder {
    agent: ureq::Agent,
    endpoint: String,
    /// `model at endpoint-without-query`, for errors and logs.
    service: String,
    key: Option<ApiKey>,
    config: HttpEmbedderConfig,
    info: EmbedderInfo,
    /// [`probe_digest`] of the probe's vector at connect.
    probe: String,
}

impl fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("endpoint", &self.endpoint)
            .field("key", &self.key)
            .field("config", &self.config)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct EmbeddingRequest<'a> {
    model: &'a str,
    input: &'a [String],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<usize>,
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingRow>,
}

#[derive(Deserialize)]
struct EmbeddingRow {
    embedding: Vec<f32>,
    index: Option<usize>,
}

impl HttpEmbedder {
    /// Validates `config`, reads the API key from its environment variable, and sends a
    /// one-input probe to learn the dimension, so that a bad URL, key or model fails here.
    ///
    /// # Errors
    /// [`Error::User`] for a bad setting or an API key that cannot be sent in a header;
    /// [`Error::Remote`] when the probe fails or the server ignores `dimensions`.
    pub fn connect(config: HttpEmbedderConfig) -> Result<HttpEmbedder> {
        config.validate()?;
        let key = ApiKey::from_env(&config.api_key_env)?;
        if key.is_none() {
            tracing::debug!(var = %config.api_key_env, "no API key set; sending requests without one");
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(config.timeout_secs)))
            .user_agent(concat!("strata/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let endpoint = config.endpoint();
        let service = format!("{} at {}", config.model, endpoint.split('?').next().unwrap_or_default());
        let info = EmbedderInfo {
            model_id: format!("http:{}", config.model),
            dim: 0,
            max_seq_len: config.max_seq_len,
            pooling: Pooling::Mean,
            tokenizer: None,
            query_prefix: config.query_prefix.clone(),
            passage_prefix: config.passage_prefix.clone(),
        };
        let mut embedder = HttpEmbedder { agent, endpoint, service, key, config, info, probe: String::new() };
        let probe = embedder.request(&[PROBE_TEXT.to_string()], None)?;
        let dim = probe.len();
        embedder.probe = probe_digest(&probe);
        if let Some(want) = embedder.config.dimensions.filter(|&want| want != dim) {
            return Err(embedder.remote(format!(
                "asked for {want} dimensions but got {dim}: the model or server ignores `dimensions`; \
                 unset it or choose a model that supports it"
            )));
        }
        embedder.info.dim = dim;
        tracing::info!(service = %embedder.service, dim, "connected to embedding service");
        Ok(embedder)
    }

    /// Prefixes `texts`, sends them in batches and joins the rows in input order.
    fn embed(&self, prefix: &str, texts: &[&str]) -> Result<Embeddings> {
        let dim = self.info.dim;
        let mut data = Vec::with_capacity(texts.len() * dim);
        for batch in texts.chunks(self.config.batch_size) {
            let inputs: Vec<String> = batch.iter().map(|text| format!("{prefix}{text}")).collect();
            data.extend(self.request(&inputs, Some(dim))?);
        }
        Ok(Embeddings::new(dim, data))
    }

    /// Sends one batch, retrying transient failures, and returns its normalized rows, flat.
    /// `dim` is the dimension every row must have; `None` takes the first row's.
    fn request(&self, inputs: &[String], dim: Option<usize>) -> Result<Vec<f32>> {
        let body = EmbeddingRequest {
            model: &self.config.model,
            input: inputs,
            encoding_format: "float",
            dimensions: self.config.dimensions,
        };
        let body = serde_json::to_vec(&body)
            .map_err(|err| Error::Internal(format!("cannot encode an embedding request: {err}")))?;
        let attempts = self.config.max_retries + 1;
        for attempt in 1..=attempts {
            let failure = match self.attempt(&body) {
                Ok(text) => return self.rows(&text, inputs.len(), dim),
                Err(failure) => failure,
            };
            match failure {
                Failure::Permanent(reason) => return Err(self.remote(reason)),
                Failure::Transient { reason, .. } if attempt == attempts => {
                    let tries =
                        if attempts == 1 { "1 attempt".into() } else { format!("{attempts} attempts") };
                    return Err(self.remote(format!("{reason} (gave up after {tries})")));
                }
                Failure::Transient { reason, retry_after, .. } => {
                    let delay = retry_after.unwrap_or_else(|| backoff(attempt));
                    tracing::warn!(
                        service = %self.service,
                        attempt,
                        of = attempts,
                        delay_ms = delay.as_millis() as u64,
                        reason = %self.redact(&reason),
                        "embedding request failed; retrying"
                    );
                    std::thread::sleep(delay);
                }
            }
        }
        unreachable!("the last attempt returns")
    }

    /// One POST: the body text of a 2xx answer, or why there was none.
    fn attempt(&self, body: &[u8]) -> Result<String, Failure> {
        // The key was checked to be visible ASCII, which a header value always accepts.
        let key = self.key.as_ref().map(|key| {
            let secret = key.expose();
            match self.config.auth_header {
                AuthHeader::Bearer => Credential { header: "authorization", secret, bearer: true },
                AuthHeader::ApiKey => Credential { header: "api-key", secret, bearer: false },
            }
        });
        post_json(&self.agent, &self.endpoint, &[], key, body, MAX_RESPONSE_BYTES)
    }

    /// Parses a 2xx body into `count` normalized rows of dimension `dim`, in input order.
    fn rows(&self, text: &str, count: usize, dim: Option<usize>) -> Result<Vec<f32>> {
        let response: EmbeddingResponse = serde_json::from_str(text).map_err(|err| {
            self.remote(format!(
                "the answer is not an embeddings list ({{\"data\": [{{\"embedding\": [..]}}]}}): {err}"
            ))
        })?;
        let mut rows = response.data;
        if rows.len() != count {
            return Err(self.remote(format!("sent {count} inputs but got {} embeddings", rows.len())));
        }
        if rows.iter().all(|row| row.index.is_some()) {
            rows.sort_by_key(|row| row.index);
            if rows.iter().enumerate().any(|(i, row)| row.index != Some(i)) {
                return Err(self.remote(format!("the embeddings' indexes are not 0..{count}, each once")));
            }
        } else if rows.iter().any(|row| row.index.is_some()) {
            return Err(self.remote("some embeddings have an index and some do not".into()));
        }
        let dim = dim.or_else(|| rows.first().map(|row| row.embedding.len())).unwrap_or_default();
        if dim == 0 {
            return Err(self.remote("the server returned empty embeddings".into()));
        }
        let mut flat = Vec::with_capacity(count * dim);
        for (i, mut row) in rows.into_iter().enumerate() {
            if row.embedding.len() != dim {
                return Err(self.remote(format!(
                    "embedding {i} has {} dimensions, expected {dim} (as the first answer had); \
                     did the model behind the endpoint change?",
                    row.embedding.len()
                )));
            }
            l2_normalize(&mut row.embedding);
            flat.extend(row.embedding);
        }
        Ok(flat)
    }

    /// An [`Error::Remote`] for this service, with any echo of the key cut out.
    fn remote(&self, reason: String) -> Error {
        Error::Remote { service: self.service.clone(), reason: self.redact(&reason) }
    }

    /// `text` with every occurrence of the API key replaced by `***`.
    fn redact(&self, text: &str) -> String {
        strata_http::secret::redact(self.key.as_ref(), text)
    }
}

impl Embedder for HttpEmbedder {
    fn info(&self) -> &EmbedderInfo {
        &self.info
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(&self.config.passage_prefix, texts)
    }

    /// The model, the endpoint that serves it (the same model name on another server may be
    /// another model), and the vector it returned for the probe at connect: a server that
    /// swaps the model behind one name (TEI ignores `model`, Ollama tags are pulled again,
    /// Azure deployments are upgraded in place) returns another vector, so another id.
    fn cache_id(&self) -> Result<Option<String>> {
        let info = &self.info;
        let endpoint = self.endpoint.split('?').next().unwrap_or_default();
        Ok(Some(format!(
            "{}@{endpoint}#{}#{}#{}#{}",
            info.model_id, info.dim, info.max_seq_len, info.passage_prefix, self.probe
        )))
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(&self.config.query_prefix, texts)
    }
}

/// A fingerprint of the probe's vector for the cache id: blake3 of each value rounded to 1e-4
/// (a server's last bits can differ from one call to the next; another model's vector differs
/// by far more than that).
fn probe_digest(vector: &[f32]) -> String {
    let mut hasher = blake3::Hasher::new();
    for v in vector {
        hasher.update(&((v * 1e4).round() as i32).to_le_bytes());
    }
    hasher.finalize().to_hex()[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(base_url: &str) -> HttpEmbedderConfig {
        HttpEmbedderConfig { base_url: base_url.into(), model: "m".into(), ..Default::default() }
    }

    #[test]
    fn endpoint_appends_embeddings_before_the_query() {
        assert_eq!(config("https://api.openai.com/v1").endpoint(), "https://api.openai.com/v1/embeddings");
        assert_eq!(config("http://localhost:11434/v1/").endpoint(), "http://localhost:11434/v1/embeddings");
        assert_eq!(config("http://h/v1/embeddings").endpoint(), "http://h/v1/embeddings");
        assert_eq!(
            config("https://x.openai.azure.com/openai/deployments/d?api-version=2024-02-01").endpoint(),
            "https://x.openai.azure.com/openai/deployments/d/embeddings?api-version=2024-02-01"
        );
        assert_eq!(
            config("https://x.openai.azure.com/openai/deployments/d/embeddings?api-version=1").endpoint(),
            "https://x.openai.azure.com/openai/deployments/d/embeddings?api-version=1"
        );
    }

    #[test]
    fn validate_names_the_bad_field() {
        let err = |c: HttpEmbedderConfig| c.validate().unwrap_err().to_string();
        assert!(err(HttpEmbedderConfig::default()).contains("dense.http.model"));
        assert!(err(config("localhost:8080")).contains("dense.http.base_url"));
        assert!(err(HttpEmbedderConfig { batch_size: 0, ..config("http://h") }).contains("batch_size"));
        assert!(err(HttpEmbedderConfig { dimensions: Some(0), ..config("http://h") }).contains("dimensions"));
        assert!(config("http://h").validate().is_ok());
    }
}
