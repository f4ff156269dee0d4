//! API keys: `Authorization: Bearer KEY`, compared in constant time.
//!
//! Keys are kept as blake3 hashes and a candidate is hashed before the comparison, so the
//! time taken depends neither on where the first differing byte is nor on the key's length;
//! every configured key is compared, without stopping at a match.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::app::AppState;
use crate::error::ApiError;

/// The accepted keys.
pub struct Keys(Vec<[u8; 32]>);

impl Keys {
    pub fn new(keys: &[String]) -> Keys {
        Keys(keys.iter().map(|k| *blake3::hash(k.trim().as_bytes()).as_bytes()).collect())
    }

    /// True when no key is configured: every request is let in.
    pub fn is_open(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `candidate` is one of the keys.
    pub fn accepts(&self, candidate: &str) -> bool {
        let hash = blake3::hash(candidate.as_bytes());
        let mut found = subtle::Choice::from(0u8);
        for key in &self.0 {
            found |= key.ct_eq(hash.as_bytes());
        }
        found.into()
    }
}

/// Middleware: lets a request through with a valid key (or when none is configured).
pub async fn require_key(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.keys.is_open() {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    match given {
        Some(key) if state.keys.accepts(key) => next.run(request).await,
        Some(_) => unauthorized("the API key is not valid; send one of [serve] api_keys or STRATA_API_KEYS"),
        None => unauthorized("this server needs an API key: send Authorization: Bearer KEY"),
    }
}

/// Middleware of a server on loopback: only loopback `Host` names pass. A web page whose name
/// was rebound to 127.0.0.1 still sends its own name, so it cannot reach the API (without
/// keys, nothing else would stop it).
pub async fn require_loopback_host(request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if is_loopback_host(host) {
        return next.run(request).await;
    }
    ApiError::forbidden(format!(
        "Host {host:?} is not a loopback name; this server listens on loopback and answers localhost, \
         127.0.0.1 and [::1] only"
    ))
    .into_response()
}

/// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name == "::1"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_configured_keys_pass() {
        let keys = Keys::new(&["k-0123456789abcdef".into(), "k-fedcba9876543210".into()]);
        assert!(keys.accepts("k-0123456789abcdef"));
        assert!(keys.accepts("k-fedcba9876543210"));
        for bad in ["", "k-0123456789abcde", "k-0123456789abcdefX", "K-0123456789ABCDEF"] {
            assert!(!keys.accepts(bad), "{bad:?}");
        }
        assert!(Keys::new(&[]).is_open());
    }

    #[test]
    fn loopback_host_names() {
        for ok in ["localhost", "localhost:7700", "127.0.0.1:7700", "127.0.0.2", "[::1]:7700", "LOCALHOST"] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in
            ["", "evil.example", "evil.example:7700", "127.0.0.1.evil.example", "10.0.0.1:7700", "[::2]"]
        {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
