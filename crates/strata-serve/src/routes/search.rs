//! `POST /v1/search`: every option of `strata search`, as JSON.

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::Json;
use strata_engine::SearchOptions;
use strata_search::SearchResponse;

use crate::app::AppState;
use crate::error::{blocking, ApiError, ErrorBody};

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
    let _slot = state.searches.acquire().await.map_err(|_| ApiError::internal("the server is stopping"))?;
    let response = blocking(move || Ok(engine.search(&options)?)).await?;
    state.metrics.search(mode_name(mode));
    Ok(Json(response))
}

fn mode_name(mode: strata_search::Mode) -> &'static str {
    match mode {
        strata_search::Mode::Keyword => "keyword",
        strata_search::Mode::Exact => "exact",
        strata_search::Mode::Dense => "dense",
        strata_search::Mode::Hybrid => "hybrid",
        strata_search::Mode::Hierarchical => "hierarchical",
    }
}
