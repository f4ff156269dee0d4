//! One JSON POST with retries: the part every provider client shares.
//!
//! - **What is retried**: connection errors, timeouts, HTTP 408, 409, 429, 500, 502, 503, 504
//!   and 529 (Anthropic's "overloaded"), and a 2xx answer that does not parse (a proxy's
//!   error page, a cut body). Anything else (400, 401, 403, 404) is a mistake a retry
//!   cannot fix, and fails at once with the server's message.
//! - **How long to wait**: what `Retry-After` says when the server says it (up to 60 s),
//!   else `backoff`, doubling: 1 s, 2 s, 4 s by default.
//! - **Rate limits**: a 429 also tells the shared [`Limiter`] to halve the concurrency. The
//!   slot is held only while a request is in flight, never during a wait.
//! - **Secrets**: the key goes in a sensitive header and is cut out of every error.

use std::time::Duration;

use strata_core::Error;
use strata_http::{post_json, Credential};

use crate::limiter::Limiter;
use crate::secret::{redact, ApiKey};

/// Largest answer read.
const MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// How the key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyHeader {
    /// `Authorization: Bearer KEY` (OpenAI, vLLM, Cohere, Jina, Voyage).
    Bearer,
    /// `api-key: KEY` (Azure OpenAI).
    ApiKey,
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
}

/// Retries of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Wait before the first retry; each further retry doubles it.
    pub backoff: Duration,
}

impl Policy {
    /// The wait before retry `n` (1-based) when the server gave no `Retry-After`.
    pub fn wait(&self, n: u32) -> Duration {
        self.backoff.saturating_mul(1 << n.saturating_sub(1).min(16))
    }
}

pub use strata_http::Failure;

/// Why [`Transport::send`] gave up.
#[derive(Debug)]
pub struct Failed {
    /// The error, naming the service.
    pub error: Error,
    /// Retrying later cannot help either (400, 401, 403, 404: a bad key, model or request),
    /// as against retries spent on an overloaded or unreachable service.
    pub permanent: bool,
}

impl From<Failed> for Error {
    fn from(f: Failed) -> Error {
        f.error
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

/// A JSON endpoint of one service.
pub struct Transport {
    agent: ureq::Agent,
    url: String,
    /// `model at url-without-query`, for errors and logs.
    service: String,
    key: Option<ApiKey>,
    key_header: KeyHeader,
    headers: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("url", &self.url)
            .field("key", &self.key)
            .field("key_header", &self.key_header)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// A transport posting to `url` with a per-request `timeout`.
    pub fn new(
        url: String,
        model: &str,
        key: Option<ApiKey>,
        key_header: KeyHeader,
        headers: Vec<(&'static str, String)>,
        timeout: Duration,
    ) -> Transport {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("strata/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let service = format!("{model} at {}", url.split('?').next().unwrap_or_default());
        Transport { agent, url, service, key, key_header, headers }
    }

    /// `model at url`, for messages.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// An [`Error::Remote`] for this service, with any echo of the key cut out.
    pub fn remote(&self, reason: &str) -> Error {
        Error::Remote { service: self.service.clone(), reason: redact(self.key.as_ref(), reason) }
    }

    /// Posts `body` until an answer parses with `parse`, retrying as the module says.
    /// Returns the parsed answer and the attempts it took.
    pub fn send<T>(
        &self,
        limiter: &Limiter,
        policy: Policy,
        body: &[u8],
        parse: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> std::result::Result<(T, u32), Failed> {
        let attempts = policy.max_retries + 1;
        for attempt in 1..=attempts {
            let outcome = {
                let _slot = limiter.acquire();
                self.attempt(body).and_then(|text| {
                    parse(&text).map_err(|why| Failure::Transient {
                        reason: format!("malformed answer: {why}"),
                        retry_after: None,
                        rate_limited: false,
                    })
                })
            };
            let (reason, retry_after) = match outcome {
                Ok(value) => {
                    limiter.succeeded();
                    return Ok((value, attempt));
                }
                Err(Failure::Permanent(reason)) => {
                    return Err(Failed { error: self.remote(&reason), permanent: true })
                }
                Err(Failure::Transient { reason, retry_after, rate_limited }) => {
                    if rate_limited {
                        limiter.rate_limited();
                    }
                    (reason, retry_after)
                }
            };
            if attempt == attempts {
                let tries = if attempts == 1 { "1 attempt".into() } else { format!("{attempts} attempts") };
                let error = self.remote(&format!("{reason} (gave up after {tries})"));
                return Err(Failed { error, permanent: false });
            }
            let delay = retry_after.unwrap_or_else(|| policy.wait(attempt));
            tracing::warn!(
                service = %self.service,
                attempt,
                of = attempts,
                delay_ms = delay.as_millis() as u64,
                reason = %redact(self.key.as_ref(), &reason),
                "request failed; retrying"
            );
            std::thread::sleep(delay);
        }
        unreachable!("the last attempt returns")
    }

    /// One POST: the body of a 2xx answer, or why there was none.
    fn attempt(&self, body: &[u8]) -> std::result::Result<String, Failure> {
        let key = self.key.as_ref().map(|key| {
            let secret = key.expose();
            match self.key_header {
                KeyHeader::Bearer => Credential { header: "authorization", secret, bearer: true },
                KeyHeader::ApiKey => Credential { header: "api-key", secret, bearer: false },
                KeyHeader::XApiKey => Credential { header: "x-api-key", secret, bearer: false },
            }
        });
        post_json(&self.agent, &self.url, &self.headers, key, body, MAX_RESPONSE_BYTES)
    }
}

/// `base` with `/path` appended before any `?query`, unless it already ends in `/path`.
pub fn endpoint(base: &str, path: &str) -> String {
    let base = base.trim();
    let (head, query) = base.split_once('?').map_or((base, None), |(p, q)| (p, Some(q)));
    let head = head.trim_end_matches('/');
    let mut url = if head.ends_with(path) { head.to_string() } else { format!("{head}{path}") };
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_keep_queries_and_do_not_double_paths() {
        assert_eq!(
            endpoint("https://api.anthropic.com/v1/", "/messages"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(endpoint("http://h/v1/messages", "/messages"), "http://h/v1/messages");
        assert_eq!(
            endpoint(
                "https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01",
                "/chat/completions"
            ),
            "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01"
        );
    }

    #[test]
    fn waits_double_from_the_backoff() {
        let p = Policy { max_retries: 3, backoff: Duration::from_secs(1) };
        assert_eq!([p.wait(1), p.wait(2), p.wait(3)], [1, 2, 4].map(Duration::from_secs));
    }
}
