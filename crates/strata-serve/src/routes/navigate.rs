//! Navigation: a document's outline, a section, pages, definitions and references: the
//! moves an agent makes besides searching (`strata tree`, `show`, `read`, `define`, `refs`).

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;
use strata_search::navigate::{CitedDefinition, Outline, Pages, Refs, Section};

use crate::error::{blocking, ApiError, ErrorBody};
use crate::state::AppState;

/// `?depth=`
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TreeParams {
    /// Levels below the document to return (1: the top sections); deeper nodes are counted
    /// in `hidden`.
    pub depth: Option<usize>,
}

/// A document's outline: node ids, section numbers, levels and pages.
#[utoipa::path(
    get,
    path = "/v1/documents/{id}/tree",
    tag = "navigate",
    params(("id" = String, Path, description = "Document id or part of its path"), TreeParams),
    responses((status = 200, description = "The outline", body = Outline), (status = 401, description = "No valid API key", body = ErrorBody), (status = 404, description = "No such document, section or job", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn tree(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<TreeParams>, QueryRejection>,
) -> Result<Json<Outline>, ApiError> {
    let Query(params) = params?;
    let engine = state.engine.clone();
    let outline = blocking(move || Ok(engine.outline(&id, params.depth)?)).await?;
    Ok(Json(outline))
}

/// A section's text (with its subsections) and citation. `node` is a node id (`0042`) or a
/// section number (`4.2`, `102(b)`).
#[utoipa::path(
    get,
    path = "/v1/documents/{id}/sections/{node}",
    tag = "navigate",
    params(
        ("id" = String, Path, description = "Document id or part of its path"),
        ("node" = String, Path, description = "Node id (0042) or section number (4.2)"),
    ),
    responses((status = 200, description = "The section", body = Section), (status = 401, description = "No valid API key", body = ErrorBody), (status = 404, description = "No such document, section or job", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn section(
    State(state): State<AppState>,
    Path((id, node)): Path<(String, String)>,
) -> Result<Json<Section>, ApiError> {
    let engine = state.engine.clone();
    let section = blocking(move || Ok(engine.section(&id, Some(&node))?)).await?;
    Ok(Json(section))
}

/// `?from=&to=`
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// First physical page, from 1.
    pub from: u32,
    /// Last page (default: `from`).
    pub to: Option<u32>,
}

/// Pages of a document as read (running headers and footers left out).
#[utoipa::path(
    get,
    path = "/v1/documents/{id}/pages",
    tag = "navigate",
    params(("id" = String, Path, description = "Document id or part of its path"), PageParams),
    responses(
        (status = 200, description = "The pages", body = Pages),
        (status = 400, description = "A bad parameter (the message names it)", body = ErrorBody),
        (status = 401, description = "No valid API key", body = ErrorBody),
        (status = 404, description = "No such document, section or job", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn pages(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<PageParams>, QueryRejection>,
) -> Result<Json<Pages>, ApiError> {
    let Query(params) = params?;
    let (first, last) = (params.from, params.to.unwrap_or(params.from));
    let engine = state.engine.clone();
    let pages = blocking(move || Ok(engine.pages(&id, first, last)?)).await?;
    Ok(Json(pages))
}

/// `?term=&doc=`
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DefineParams {
    /// The defined term.
    pub term: String,
    /// Only this document (id or part of its path).
    pub doc: Option<String>,
}

/// Where a term is defined, in every document (or one), with the definition's text and
/// citation.
#[utoipa::path(
    get,
    path = "/v1/definitions",
    tag = "navigate",
    params(DefineParams),
    responses((status = 200, description = "The definitions (none: an empty list)", body = Vec<CitedDefinition>), (status = 400, description = "A bad parameter (the message names it)", body = ErrorBody), (status = 401, description = "No valid API key", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn definitions(
    State(state): State<AppState>,
    params: Result<Query<DefineParams>, QueryRejection>,
) -> Result<Json<Vec<CitedDefinition>>, ApiError> {
    let Query(params) = params?;
    state.check_query(&params.term)?;
    let engine = state.engine.clone();
    Ok(Json(blocking(move || Ok(engine.define(&params.term, params.doc.as_deref())?)).await?))
}

/// `?doc=&node=`
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RefParams {
    /// Document id or part of its path.
    pub doc: String,
    /// Node id or section number (default: the whole document).
    pub node: Option<String>,
}

/// The cross-references out of a section (resolved to their targets when they could be)
/// and into it.
#[utoipa::path(
    get,
    path = "/v1/references",
    tag = "navigate",
    params(RefParams),
    responses((status = 200, description = "The references", body = Refs), (status = 401, description = "No valid API key", body = ErrorBody), (status = 404, description = "No such document, section or job", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn references(
    State(state): State<AppState>,
    params: Result<Query<RefParams>, QueryRejection>,
) -> Result<Json<Refs>, ApiError> {
    let Query(params) = params?;
    let engine = state.engine.clone();
    let refs = blocking(move || Ok(engine.references(&params.doc, params.node.as_deref())?)).await?;
    Ok(Json(refs))
}
