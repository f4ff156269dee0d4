//! The web page: `GET /` and its files under `/ui/{version}/`.
//!
//! The page is public: it holds no data, only code, and every call it makes goes to `/v1`
//! with the API key the user types in (kept in the tab's session storage), so the key check
//! stays where it was. The page still passes the loopback `Host` check like every route, and
//! nothing here opens CORS. Its headers add a strict Content-Security-Policy (own origin only:
//! no inline script, no CDN, no framing).
//!
//! Each response is the brotli or gzip copy compressed at startup ([`assets`]) as the
//! client's `Accept-Encoding` allows, with `Vary: Accept-Encoding` and an ETag; `If-None-Match`
//! answers 304. Files under `/ui/{version}/` are `immutable` for a year, since their URL
//! changes with their bytes; the page itself is `no-cache` (revalidated each time).

pub mod assets;
mod encoding;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use assets::Asset;
pub use assets::Assets;
use encoding::Encoding;

use crate::error::ApiError;
use crate::state::AppState;

/// The page's Content-Security-Policy: scripts, styles, workers and requests of its own
/// origin only. `blob:` images and workers are pdf.js's; inline style attributes are not
/// allowed either (pdf.js sets its styles through the CSSOM, which the policy permits).
const CSP: &str = "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; \
                   img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; \
                   base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `/` and `/ui/{version}/{*file}`, outside the API key check.
pub fn routes() -> Router<AppState> {
    Router::new().route("/", get(page)).route("/ui/{version}/{*file}", get(file))
}

/// Compresses the assets now, on the blocking pool, so the first page load does not wait.
pub fn warm() {
    tokio::task::spawn_blocking(|| {
        let _ = Assets::get();
    });
}

async fn page(headers: HeaderMap) -> Response {
    let assets = loaded().await;
    let mut response = respond(&assets.index, &headers, "no-cache");
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

async fn file(Path((version, name)): Path<(String, String)>, headers: HeaderMap) -> Response {
    let assets = loaded().await;
    if version != assets.version {
        return ApiError::not_found(format!(
            "no web page files of version {version:?}; this server serves {} (reload the page)",
            assets.version
        ))
        .into_response();
    }
    match assets.file(&name) {
        Some(asset) => respond(asset, &headers, "public, max-age=31536000, immutable"),
        None => ApiError::not_found(format!("no web page file {name:?}")).into_response(),
    }
}

/// The assets, compressed on the blocking pool when they are not yet.
async fn loaded() -> &'static Assets {
    match Assets::ready() {
        Some(assets) => assets,
        None => tokio::task::spawn_blocking(Assets::get).await.expect("compressing the assets"),
    }
}

/// The asset in the best encoding the request accepts, or 304 when its ETag matches.
fn respond(asset: &'static Asset, request: &HeaderMap, cache: &'static str) -> Response {
    let matches = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == asset.etag || tag.trim() == "*"));
    let accept = request.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    let (encoding, body): (Encoding, &'static [u8]) = match Encoding::choose(accept) {
        Encoding::Br if asset.br.is_some() => (Encoding::Br, asset.br.as_deref().unwrap_or_default()),
        Encoding::Br | Encoding::Gzip if asset.gzip.is_some() && Encoding::accepts(accept, "gzip") => {
            (Encoding::Gzip, asset.gzip.as_deref().unwrap_or_default())
        }
        _ => (Encoding::Identity, &asset.identity),
    };
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::ETAG, HeaderValue::from_str(&asset.etag).expect("a hex ETag"));
    if let Some(name) = encoding.header() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    if matches {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (StatusCode::OK, headers, body).into_response()
}
