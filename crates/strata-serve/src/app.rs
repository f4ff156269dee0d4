//! The HTTP application: the routes and the layers around them (their state is
//! [`crate::state::AppState`]).
//!
//! From the outside in: a request id (`x-request-id`, set when absent and echoed back), the
//! `Authorization` header marked sensitive (never logged), a tracing span per request,
//! metrics, the body limit, on loopback the `Host` check (no DNS rebinding); then `/healthz`
//! and the web page (`/`, `/ui/*`: code only, see [`crate::ui`]) open, and behind the API key check everything else: `/v1/*`, `/metrics` and `/openapi.json` under the request timeout, and `/mcp`
//! (streamable HTTP, long-lived) without it.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderName, Request, StatusCode};
use axum::routing::get;
use axum::{middleware, Json, Router};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth;
use crate::error::ApiError;
use crate::metrics;
use crate::openapi::ApiDoc;
use crate::routes::{documents, navigate, ops, search, source};
use crate::state::AppState;
use crate::ui;

/// The whole OpenAPI document of the HTTP API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    parts().2
}

/// The routes behind the API key and the open ones (`/healthz`), with the OpenAPI document of
/// both.
pub(crate) fn parts() -> (Router<AppState>, Router<AppState>, utoipa::openapi::OpenApi) {
    let (open, open_doc) = OpenApiRouter::new().routes(routes!(ops::healthz)).split_for_parts();
    let (protected, mut doc) = protected_routes().split_for_parts();
    doc.merge(open_doc);
    (protected, open, doc)
}

fn protected_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(search::search))
        .routes(routes!(documents::list, documents::ingest))
        .routes(routes!(documents::remove))
        .routes(routes!(source::source))
        .routes(routes!(documents::jobs))
        .routes(routes!(documents::job))
        .routes(routes!(navigate::tree))
        .routes(routes!(navigate::section))
        .routes(routes!(navigate::pages))
        .routes(routes!(navigate::definitions))
        .routes(routes!(navigate::references))
        .routes(routes!(ops::metrics))
}

/// The whole application; `mcp` (a router serving `/mcp`) goes behind the API key check
/// when given.
pub fn router(state: AppState, mcp: Option<Router<AppState>>) -> Router {
    let (api, open, openapi) = parts();
    let openapi = Arc::new(openapi);
    let timeout = Duration::from_secs(state.engine.config().serve.request_timeout_secs);
    let body_limit = state.engine.config().serve.max_body_bytes;

    let mut protected = api
        .route("/openapi.json", get(move || async move { Json(openapi.as_ref().clone()) }))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout));
    if let Some(mcp) = mcp {
        protected = protected.merge(mcp);
    }
    let protected = protected.layer(middleware::from_fn_with_state(state.keys.clone(), auth::require_key));

    let request_id = HeaderName::from_static("x-request-id");
    let loopback = state.loopback;
    let app = open.merge(ui::routes()).merge(protected);
    let app = if loopback { app.layer(middleware::from_fn(auth::require_loopback_host)) } else { app };
    app
        .fallback(|| async { ApiError::not_found("no such route; GET /openapi.json lists them") })
        .layer(middleware::from_fn_with_state(state.metrics.clone(), metrics::track))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<axum::body::Body>| {
                    let id = request
                        .headers()
                        .get("x-request-id")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    // The path without its query string: queries and terms are the user's text.
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), id)
                })
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .layer(SetSensitiveRequestHeadersLayer::new([header::AUTHORIZATION]))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .with_state(state)
}
