//! `/healthz`, `/metrics` and `/openapi.json`.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use serde::Serialize;

use crate::error::{blocking, ApiError, ErrorBody};
use crate::state::AppState;

/// Liveness.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// The strata version.
    pub version: &'static str,
}

/// Liveness: answers without an API key.
#[utoipa::path(get, path = "/healthz", tag = "ops", responses((status = 200, description = "Alive", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok", version: env!("CARGO_PKG_VERSION") })
}

/// Prometheus metrics (text exposition format).
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "ops",
    responses((status = 200, description = "Prometheus text", content_type = "text/plain; version=0.0.4", body = String), (status = 401, description = "No valid API key", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn metrics(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let engine = state.engine.clone();
    let (documents, generation) = blocking(move || {
        let snapshot = engine.snapshot();
        Ok((snapshot.store().documents()?.len(), snapshot.generation()))
    })
    .await?;
    let text = state.metrics.render(&[
        ("strata_documents", "Documents in the index (last commit).", documents as f64),
        ("strata_index_snapshots_published", "Commits published to readers since start.", generation as f64),
        ("strata_ingest_jobs_active", "Ingest jobs queued or running.", state.jobs.active() as f64),
        ("strata_uptime_seconds", "Seconds since the server started.", state.started.elapsed().as_secs_f64()),
    ]);
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text))
}
