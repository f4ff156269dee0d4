//! `POST /v1/search`: every option of `strata search`, as JSON.

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::Json;
use strata_engine::SearchOptions;
use strata_search::SearchResponse;

use crate::error::{blocking, ApiError, ErrorBody};
use crate::state::AppState;

/// Search: the best sections, chunks and sentences for a query, fused from the keyword,
/// exact and dense legs, with citations, attached definitions and a context block within a
/// token budget.
#[utoipa::path(
    post,
    path = "/v1/search",
    tag = "search",
    request_body = SearchOptions,
    responses(
        (status = 200, description = "The hits, definitions, references and the assembled context", body = SearchResponse),
        (status = 400, description = "A bad option (the message names it)", body = ErrorBody),
        (status = 401, description = "No valid API key", body = ErrorBody),
        (status = 404, description = "`doc` names no document", body = ErrorBody),
        (status = 415, description = "The body is not sent as application/json", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn search(
    State(state): State<AppState>,
    body: Result<Json<SearchOptions>, JsonRejection>,
) -> Result<Json<SearchResponse>, ApiError> {
    let Json(options) = body?;
    state.check_query(&options.query)?;
    let mode = options.mode(state.engine.config())?;
    let engine = state.engine.clone();
    // The permit goes with the search onto its thread: a request that times out or whose
    // client leaves does not free a slot while its search still runs.
    let slot =
        state.searches.clone().acquire_owned().await.map_err(|_| ApiError::internal("no search slot"))?;
    let response = blocking(move || {
        let _slot = slot;
        Ok(engine.search(&options)?)
    })
    .await?;
    state.metrics.search(mode.name());
    Ok(Json(response))
}
