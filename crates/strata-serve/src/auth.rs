//! API keys: `Authorization: Bearer KEY`, compared in constant time.
//!
//! Keys are kept as blake3 hashes and a candidate is hashed before the comparison, so the
//! time taken depends neither on where the first differing byte is nor on the key's length;
//! every configured key is compared, without stopping at a match.
//!
//! A key is scoped `read` or `write` ([`KeyScope`]). A read key may search and navigate:
//! every `GET`, `POST /v1/search`, and `/mcp`, whose tools only read (a test in `mcp` lists
//! them, so that a new tool is classified before it ships). Anything else, ingest, upload and
//! removal today and any route added later, needs a write key and answers 403 to a read one.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use strata_core::config::{ApiKey, KeyScope};
use subtle::{Choice, ConstantTimeEq};

use crate::error::ApiError;

/// The accepted keys: hashes, each with its scope.
pub struct Keys(Vec<([u8; 32], KeyScope)>);

impl Keys {
    pub fn new(keys: &[ApiKey]) -> Keys {
        Keys(keys.iter().map(|k| (*blake3::hash(k.key.as_bytes()).as_bytes(), k.scope)).collect())
    }

    /// True when no key is configured: every request is let in.
    pub fn is_open(&self) -> bool {
        self.0.is_empty()
    }

    /// The scope of `candidate` (`None` when it is not one of the keys) and the caller it
    /// names, from one hash of it. Every key is compared, and the scopes are gathered without
    /// a branch on any comparison.
    fn check(&self, candidate: &str) -> (Option<KeyScope>, Caller) {
        let hash = blake3::hash(candidate.as_bytes());
        let caller = Caller(u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes")));
        (self.scope_of_hash(&hash), caller)
    }

    fn scope_of_hash(&self, hash: &blake3::Hash) -> Option<KeyScope> {
        let (mut read, mut write) = (Choice::from(0u8), Choice::from(0u8));
        for (key, scope) in &self.0 {
            let equal = key.ct_eq(hash.as_bytes());
            let is_write = Choice::from(u8::from(*scope == KeyScope::Write));
            write |= equal & is_write;
            read |= equal & !is_write;
        }
        if bool::from(write) {
            Some(KeyScope::Write)
        } else if bool::from(read) {
            Some(KeyScope::Read)
        } else {
            None
        }
    }
}

/// Whether a read key may send `method` to `path`: reads, searches and MCP (whose tools
/// only read). Whatever is not listed needs a write key.
fn read_key_may(method: &Method, path: &str) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
        || (method == Method::POST && path == "/v1/search")
        || path == "/mcp"
        || path.starts_with("/mcp/")
}

/// The 403 of a read key sent to a write route.
fn read_only(method: &Method, path: &str) -> Response {
    let what = match *method {
        Method::POST if path == "/v1/documents" => "ingest or upload documents".to_string(),
        Method::DELETE if path.starts_with("/v1/documents/") => "remove documents".to_string(),
        _ => format!("{method} {path}"),
    };
    ApiError::forbidden(format!(
        "this API key is read-only: it may search and navigate (GET routes, POST /v1/search, /mcp) \
         but not {what}; send a key without a scope or with write: in [serve] api_keys or STRATA_API_KEYS"
    ))
    .into_response()
}

/// Who sent a request, for limits kept per client: a hash of its API key, or
/// `Caller::default()` on a server without keys. Set by [`require_key`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Caller(u64);

/// Middleware: lets a request through with a valid key (or when none is configured), its
/// [`Caller`] in the request's extensions.
pub async fn require_key(State(keys): State<Arc<Keys>>, mut request: Request, next: Next) -> Response {
    if keys.is_open() {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    let Some(given) = given else {
        return unauthorized("this server needs an API key: send Authorization: Bearer KEY");
    };
    let (scope, caller) = keys.check(given);
    request.extensions_mut().insert(caller);
    match scope {
        Some(KeyScope::Write) => next.run(request).await,
        Some(KeyScope::Read) if read_key_may(request.method(), request.uri().path()) => {
            next.run(request).await
        }
        Some(KeyScope::Read) => read_only(request.method(), request.uri().path()),
        None => unauthorized("the API key is not valid; send one of [serve] api_keys or STRATA_API_KEYS"),
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

    fn keys(entries: &[&str]) -> Keys {
        let keys: Vec<ApiKey> = entries.iter().map(|e| ApiKey::parse(e, "test").unwrap()).collect();
        Keys::new(&keys)
    }

    #[test]
    fn only_configured_keys_pass() {
        let keys = keys(&["k-0123456789abcdef", "read:k-fedcba9876543210"]);
        assert_eq!(keys.check("k-0123456789abcdef").0, Some(KeyScope::Write));
        assert_eq!(keys.check("k-fedcba9876543210").0, Some(KeyScope::Read));
        for bad in
            ["", "k-0123456789abcde", "k-0123456789abcdefX", "K-0123456789ABCDEF", "read:k-fedcba9876543210"]
        {
            assert_eq!(keys.check(bad).0, None, "{bad:?}");
        }
        assert!(Keys::new(&[]).is_open());
    }

    #[test]
    fn read_keys_may_only_read_search_and_use_mcp() {
        for (method, path) in [
            (Method::GET, "/v1/documents"),
            (Method::GET, "/v1/documents/abc/tree"),
            (Method::HEAD, "/v1/jobs"),
            (Method::POST, "/v1/search"),
            (Method::POST, "/mcp"),
            (Method::DELETE, "/mcp"),
        ] {
            assert!(read_key_may(&method, path), "{method} {path}");
        }
        for (method, path) in [
            (Method::POST, "/v1/documents"),
            (Method::DELETE, "/v1/documents/abc"),
            (Method::PUT, "/v1/search"),
            (Method::POST, "/v1/search/"),
            (Method::POST, "/v1/anything-new"),
            (Method::POST, "/mcpx"),
        ] {
            assert!(!read_key_may(&method, path), "{method} {path}");
        }
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
