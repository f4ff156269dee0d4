//! `/v1/documents` and `/v1/jobs`: list, ingest (paths under the roots, or an upload),
//! remove, and the status of ingest jobs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::{Deserialize, Serialize};
use strata_core::Format;
use strata_engine::ingest::Roots;
use strata_index::DocSummary;

use crate::error::{blocking, ApiError, ErrorBody};
use crate::journal::Job;
use crate::state::AppState;

/// A path ingest.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PathIngest {
    /// Files or folders under the server's ingest roots (`[serve] roots`); relative paths
    /// are taken from the first root.
    pub paths: Vec<String>,
    /// Re-index files even when their content is unchanged.
    #[serde(default)]
    pub force: bool,
}

/// The query string of an upload.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UploadParams {
    /// The file's name, whose extension says its format (`contract.pdf`); uploading the
    /// same name again replaces the document.
    pub filename: Option<String>,
    /// Re-index even when the content is unchanged.
    #[serde(default)]
    pub force: bool,
}

/// An accepted ingest.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Accepted {
    /// The job; poll `GET /v1/jobs/{id}`.
    pub job: Job,
}

/// A removal.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Removed {
    /// The id of the removed document.
    pub removed: String,
}

/// The indexed documents, sorted by source path.
#[utoipa::path(
    get,
    path = "/v1/documents",
    tag = "documents",
    responses((status = 200, description = "The documents", body = Vec<DocSummary>), (status = 401, description = "No valid API key", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<DocSummary>>, ApiError> {
    let engine = state.engine.clone();
    Ok(Json(blocking(move || Ok(engine.documents()?)).await?))
}

/// Ingests documents, asynchronously. Send JSON (`{"paths": [...]}`) to ingest files or
/// folders under the server's roots, or the file's bytes with `?filename=NAME` and a content
/// type such as `application/octet-stream` or `application/pdf` to upload one (the types a
/// browser may send across sites without asking, `text/plain` and forms, are refused). The
/// answer is a job to poll.
#[utoipa::path(
    post,
    path = "/v1/documents",
    tag = "documents",
    params(UploadParams),
    request_body(content(
        (PathIngest = "application/json"),
        (Vec<u8> = "application/octet-stream"),
    )),
    responses(
        (status = 202, description = "Queued; `Location` is the job", body = Accepted),
        (status = 400, description = "A bad parameter (the message names it)", body = ErrorBody),
        (status = 401, description = "No valid API key", body = ErrorBody),
        (status = 403, description = "A path outside the roots, path ingest off, or a read-only API key", body = ErrorBody),
        (status = 413, description = "The body is larger than [serve] max_body_bytes", body = ErrorBody),
        (status = 415, description = "An upload without a content type, or with one a web page could send", body = ErrorBody),
        (status = 429, description = "Too many ingest jobs queued or running", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn ingest(
    State(state): State<AppState>,
    headers: HeaderMap,
    params: Result<Query<UploadParams>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Query(params) = params?;
    let body = body.map_err(|r| {
        ApiError::new(
            r.status(),
            super::rejection_code(r.status()),
            format!("the request body: {} ([serve] max_body_bytes)", r.body_text()),
        )
    })?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase());
    let (inputs, force, within, upload) = if content_type.as_deref() == Some("application/json") {
        let (inputs, force) = admit_paths(&state, &body).await?;
        (inputs, force, state.roots.confine(), None)
    } else {
        let (upload, within) = store_upload(&state, &params, content_type.as_deref(), body).await?;
        (vec![upload.display().to_string()], params.force, within, Some(upload))
    };
    let job = state.jobs.submit(state.engine.clone(), inputs, force, within, upload)?;
    let location = format!("/v1/jobs/{}", job.id);
    Ok((StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(Accepted { job })))
}

/// The files a path ingest (`{"paths": [...], "force"}`) names, each admitted by the roots.
async fn admit_paths(state: &AppState, body: &[u8]) -> Result<(Vec<String>, bool), ApiError> {
    let request: PathIngest =
        serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("the request body: {e}")))?;
    if request.paths.is_empty() {
        return Err(ApiError::bad_request("paths is empty; give the files or folders to ingest"));
    }
    let roots = state.roots.clone();
    let paths = request.paths;
    let files = blocking(move || {
        let mut files = Vec::new();
        for path in &paths {
            files.extend(roots.admit(path)?);
        }
        Ok(files)
    })
    .await?;
    Ok((files.into_iter().map(|f| f.display().to_string()).collect(), request.force))
}

/// Writes an upload into the uploads folder and returns its path, with the uploads folder as
/// the one root its job may read from.
async fn store_upload(
    state: &AppState,
    params: &UploadParams,
    content_type: Option<&str>,
    body: Bytes,
) -> Result<(PathBuf, Arc<Roots>), ApiError> {
    let name = params.filename.as_deref().ok_or_else(|| {
        ApiError::bad_request(
            "an upload needs ?filename=NAME (its extension gives the format); to ingest paths, send \
             Content-Type: application/json with {\"paths\": [...]}",
        )
    })?;
    // A page on any web site can POST these three to a loopback server without a
    // preflight; real uploads name their type.
    if let None | Some("text/plain" | "application/x-www-form-urlencoded" | "multipart/form-data") =
        content_type
    {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "an upload needs a content type naming the file (application/octet-stream, application/pdf, \
             text/markdown, …); text/plain and form types are refused",
        ));
    }
    let name = upload_name(name)?;
    // No file is replaced for a job that would be refused.
    state.jobs.check_room()?;
    let dir = state.uploads.clone();
    blocking(move || {
        std::fs::create_dir_all(&dir)
            .map_err(|e| ApiError::internal(format!("creating {}: {e}", dir.display())))?;
        let path = dir.join(&name);
        // Written to a temporary file of its own and renamed, so a reader never sees half a
        // file, even when two uploads of one name race.
        let write = |tmp: &mut tempfile::NamedTempFile| std::io::Write::write_all(tmp, &body);
        tempfile::NamedTempFile::new_in(&dir)
            .and_then(|mut tmp| write(&mut tmp).map(|()| tmp))
            .and_then(|tmp| tmp.persist(&path).map_err(|e| e.error))
            .map_err(|e| ApiError::internal(format!("writing {}: {e}", path.display())))?;
        let within = crate::uploads::confine(&path).map_err(ApiError::internal)?;
        Ok((path, within))
    })
    .await
}

/// The name an upload is stored under: one plain file name with a readable extension.
fn upload_name(name: &str) -> Result<String, ApiError> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 200
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | ' ' | '(' | ')'));
    if !plain {
        return Err(ApiError::bad_request(format!(
            "filename {name:?} must be a plain file name (letters, digits, . - _ space, not starting with a dot)"
        )));
    }
    let readable =
        Path::new(name).extension().and_then(|e| e.to_str()).and_then(Format::from_extension).is_some();
    if !readable {
        return Err(ApiError::bad_request(format!(
            "filename {name:?}: its extension must be one strata reads (.md, .html, .txt, .pdf, .docx)"
        )));
    }
    Ok(name.to_string())
}

/// Removes a document (its id, or a part of its path that names one) and everything
/// derived from it.
#[utoipa::path(
    delete,
    path = "/v1/documents/{id}",
    tag = "documents",
    params(("id" = String, Path, description = "Document id or part of its path")),
    responses((status = 200, description = "Removed", body = Removed), (status = 401, description = "No valid API key", body = ErrorBody), (status = 403, description = "A read-only API key", body = ErrorBody), (status = 404, description = "No such document, section or job", body = ErrorBody), (status = 409, description = "An ingest job holds the index writer; nothing was removed", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn remove(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Removed>, ApiError> {
    let engine = state.engine.clone();
    // Half the request timeout for the writer, so that a busy writer is an answer of its
    // own rather than a 408 while the removal still goes on.
    let wait = Duration::from_secs(engine.config().serve.request_timeout_secs) / 2;
    match blocking(move || Ok(engine.try_remove(&id, wait)?)).await? {
        Some(removed) => Ok(Json(Removed { removed: removed.to_string() })),
        None => Err(ApiError::new(
            StatusCode::CONFLICT,
            "busy",
            "an ingest job holds the index writer (GET /v1/jobs lists it); nothing was removed: send the DELETE again when the job is done",
        )),
    }
}

/// Ingest jobs kept, newest first.
#[utoipa::path(
    get,
    path = "/v1/jobs",
    tag = "documents",
    responses((status = 200, description = "The jobs, newest first", body = Vec<Job>), (status = 401, description = "No valid API key", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn jobs(State(state): State<AppState>) -> Json<Vec<Job>> {
    Json(state.jobs.list())
}

/// One ingest job: queued, running, done (with the ingest summary) or failed.
#[utoipa::path(
    get,
    path = "/v1/jobs/{id}",
    tag = "documents",
    params(("id" = String, Path, description = "Job id")),
    responses((status = 200, description = "The job", body = Job), (status = 401, description = "No valid API key", body = ErrorBody), (status = 404, description = "No such document, section or job", body = ErrorBody)),
    security(("bearer" = []))
)]
pub async fn job(State(state): State<AppState>, UrlPath(id): UrlPath<String>) -> Result<Json<Job>, ApiError> {
    state
        .jobs
        .get(&id)
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no job {id:?}; GET /v1/jobs lists the jobs kept")))
}
