//! The HTTP transport that strata's hosted models share: the OpenAI-compatible embedder
//! (`strata-embed`), the chat models and the `/rerank` APIs (`strata-providers`).
//!
//! [`post_json`] sends one JSON POST and sorts what went wrong into [`Failure::Transient`]
//! (connection errors, timeouts, HTTP 408, 409, 429, 500, 502, 503, 504 and 529) and
//! [`Failure::Permanent`] (anything retrying cannot fix), with the server's own message and
//! its `Retry-After`. Each client keeps its own retry loop ([`backoff`] is the embedder's).
//! An API key ([`secret::ApiKey`]) is read from the environment, sent as a sensitive header
//! and cut out of any message that echoes it.
#![warn(missing_docs)]

pub mod secret;

use std::time::{Duration, SystemTime};

use ureq::http::HeaderValue;

/// Longest wait between two attempts that backoff alone produces.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// First backoff delay; each retry doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Longest `Retry-After` honoured; a server asking for more gets this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Most characters of a server's error message kept in an error.
const MAX_MESSAGE_CHARS: usize = 500;

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

/// One JSON POST of `body` to `url`, shared by every HTTP client of strata (the HTTP
/// embedder and the `strata-providers` transport): the body of a 2xx answer, or why there
/// was none.
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
pub fn backoff(attempt: u32) -> Duration {
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
    use super::secret::ApiKey;
    use super::*;

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
    fn api_key_debug_is_masked() {
        assert_eq!(format!("{:?}", Some(ApiKey("sk-secret".into()))), "Some(***)");
    }
}
