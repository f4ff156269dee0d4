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
//!   clients), with exponential backoff and jitter, honouring
//!   `Retry-After`. Any other status is a mistake that retrying cannot fix and fails at once
//!   with the server's message.
//! - **Rows are checked and normalized here**: ordered by `index`, counted, of one dimension,
//!   and L2-normalized, because not every server normalizes.
//! - **The API key never leaves the header.** It is read from an environment variable, held
//!   in a type whose `Debug` prints `***`, sent as a sensitive header, and cut out of any
//!   server message that echoes it.

use std::fmt;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use strata_core::{Error, Result};
use ureq::http::HeaderValue;

use crate::secret::ApiKey;
use crate::{l2_normalize, Embedder, EmbedderInfo, Embeddings, Pooling};

/// Longest wait between two attempts that backoff alone produces.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// First backoff delay; each retry doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Longest `Retry-After` honoured; a server asking for more gets this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Largest response body read (a batch of 2048 vectors of 3072 floats fits).
const MAX_RESPONSE_BYTES: u64 = 512 * 1024 * 1024;
/// Most characters of a server's error message kept in an error.
const MAX_MESSAGE_CHARS: usize = 500;
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

/// Why one attempt of [`post_json`] failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Worth another attempt, after `retry_after` when the server said so.
    Transient {
        /// What happened.
        reason: String,
        /// What `Retry-After` asked for.
        retry_after: Option<Duration>,
        /// The answer was 429 (a shared concurrency limit may want to know).
        rate_limited: bool,
    },
    /// Retrying cannot help.
    Permanent(String),
}

/// The header that carries an API key in [`post_json`].
#[derive(Debug, Clone, Copy)]
pub struct Credential<'a> {
    /// Header name (`authorization`, `api-key`, `x-api-key`).
    pub header: &'static str,
    /// The key itself, cut out of any message that echoes it.
    pub secret: &'a str,
    /// Whether the value is `Bearer KEY` rather than the bare key.
    pub bearer: bool,
}

/// One JSON POST of `body` to `url`, shared by every HTTP client of strata (this embedder
/// and the `strata-providers` transport): the body of a 2xx answer, or why there was none.
///
/// The key goes in a sensitive header and is cut out of the server's message *before* the
/// message is shortened (a key cut in two would not be found). Connection errors, timeouts
/// and HTTP 408, 409, 429, 500, 502, 503, 504 and 529 (Anthropic's "overloaded") are
/// transient; any other status is permanent, with the server's own message.
pub fn post_json(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&'static str, String)],
    key: Option<Credential<'_>>,
    body: &[u8],
    max_bytes: u64,
) -> Result<String, Failure> {
    let mut request = agent.post(url).content_type("application/json");
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    if let Some(key) = key {
        let value = if key.bearer { format!("Bearer {}", key.secret) } else { key.secret.to_string() };
        let mut value = HeaderValue::from_str(&value)
            .map_err(|_| Failure::Permanent("the API key cannot be sent in a header".into()))?;
        value.set_sensitive(true);
        request = request.header(key.header, value);
    }
    let mut response = request.send(body).map_err(classify)?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| parse_retry_after(value, SystemTime::now()));
    let text = response.body_mut().with_config().limit(max_bytes).read_to_string();
    if (200..300).contains(&status) {
        return text.map_err(classify);
    }
    let redact = |t: &str| match key {
        Some(key) => t.replace(key.secret, "***"),
        None => t.to_string(),
    };
    let message = text.map(|text| server_message(&redact(&text))).unwrap_or_default();
    let reason = match (status_text(status), message.is_empty()) {
        (Some(name), true) => format!("HTTP {status} {name}"),
        (Some(name), false) => format!("HTTP {status} {name}: {message}"),
        (None, true) => format!("HTTP {status}"),
        (None, false) => format!("HTTP {status}: {message}"),
    };
    if matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529) {
        Err(Failure::Transient { reason, retry_after, rate_limited: status == 429 })
    } else {
        Err(Failure::Permanent(reason))
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
        crate::secret::redact(self.key.as_ref(), text)
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

/// Sorts a transport error into worth-retrying or not.
///
/// An unknown host is permanent: a misspelled URL is far likelier than a passing DNS failure,
/// and it should fail at once. TLS and protocol errors are permanent too (e.g. `http://` to
/// an HTTPS port).
fn classify(err: ureq::Error) -> Failure {
    match err {
        ureq::Error::Timeout(which) => Failure::Transient {
            reason: format!("timed out ({which})"),
            retry_after: None,
            rate_limited: false,
        },
        ureq::Error::Io(err) => Failure::Transient {
            reason: format!("network error: {err}"),
            retry_after: None,
            rate_limited: false,
        },
        ureq::Error::ConnectionFailed | ureq::Error::BodyStalled => Failure::Transient {
            reason: format!("network error: {err}"),
            retry_after: None,
            rate_limited: false,
        },
        ureq::Error::HostNotFound => Failure::Permanent("host not found; check base_url".into()),
        err => Failure::Permanent(err.to_string()),
    }
}

/// Delay before retry `attempt` (1-based): 0.5 s doubling, capped, then 50 to 100 % of it.
fn backoff(attempt: u32) -> Duration {
    let full = FIRST_BACKOFF.saturating_mul(1 << attempt.saturating_sub(1).min(16)).min(MAX_BACKOFF);
    full.mul_f64(0.5 + 0.5 * jitter())
}

/// A number in `[0, 1)` that differs between calls; randomness from the std hasher's keys.
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher
        .write_u128(SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_nanos());
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// A `Retry-After` value (seconds, or an HTTP date) as a delay from `now`, capped at 60 s.
/// Shared with the HTTP clients of `strata-providers`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let delay = match value.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => httpdate::parse_http_date(value).ok()?.duration_since(now).unwrap_or_default(),
    };
    Some(delay.min(MAX_RETRY_AFTER))
}

/// The error message in a failed answer: OpenAI's `{"error": {"message"}}`, Ollama's and
/// TEI's `{"error": "..."}`, a bare `{"message"}`, or else the body itself; shortened.
/// Anthropic's `{"type": "error", "error": {"message"}}` has the OpenAI shape.
pub fn server_message(body: &str) -> String {
    let json: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = json.as_ref().and_then(|json| {
        let error = json.get("error");
        error
            .and_then(|e| e.get("message"))
            .or(error)
            .or_else(|| json.get("message"))
            .or_else(|| json.get("detail"))
            .and_then(|m| m.as_str())
    });
    let message = message.unwrap_or(body).split_whitespace().collect::<Vec<_>>().join(" ");
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message,
    }
}

/// The reason phrase of the statuses this module names.
pub fn status_text(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => return None,
    })
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
    fn retry_after_takes_seconds_or_a_date_and_is_capped() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(parse_retry_after(" 2 ", now), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("3600", now), Some(MAX_RETRY_AFTER));
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(parse_retry_after(&date, now), Some(Duration::from_secs(7)));
        let past = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(parse_retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        for attempt in 1..=40 {
            let full = FIRST_BACKOFF.saturating_mul(1 << (attempt - 1).min(16)).min(MAX_BACKOFF);
            let delay = backoff(attempt);
            assert!(delay >= full / 2 && delay <= full, "attempt {attempt}: {delay:?} vs {full:?}");
        }
        assert!(backoff(1) <= Duration::from_millis(500) && backoff(3) >= Duration::from_secs(1));
    }

    #[test]
    fn server_message_reads_the_common_shapes() {
        assert_eq!(server_message(r#"{"error":{"message":"bad key","type":"x"}}"#), "bad key");
        assert_eq!(server_message(r#"{"error":"model not found"}"#), "model not found");
        assert_eq!(server_message(r#"{"message":"nope"}"#), "nope");
        assert_eq!(server_message("plain\n text"), "plain text");
        assert_eq!(server_message(&"é".repeat(600)).chars().count(), MAX_MESSAGE_CHARS + 1);
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

    #[test]
    fn api_key_debug_is_masked() {
        assert_eq!(format!("{:?}", Some(ApiKey("sk-secret".into()))), "Some(***)");
    }
}
