//! `GET /v1/documents/{id}/source`: a document's source file as it was indexed, for a viewer
//! that shows the original beside the text strata read (the web page renders PDF pages from it).
//!
//! The engine serves the file only while its blake3 still matches the index, so nothing is
//! given out that was not indexed. The bytes come from the user's own files, so the response
//! cannot act as a page of this origin: a `sandbox` Content-Security-Policy, `nosniff`, and
//! every format but PDF sent as an attachment of type `application/octet-stream` (an HTML
//! source shown inline would run its scripts with this origin's API key at hand).

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use strata_core::Format;

use crate::app::AppState;
use crate::error::{blocking, ApiError, ErrorBody};

/// A document's source file, unchanged since it was indexed: PDFs as `application/pdf`,
/// everything else as an `application/octet-stream` attachment.
#[utoipa::path(
    get,
    path = "/v1/documents/{id}/source",
    tag = "documents",
    params(("id" = String, Path, description = "Document id or part of its path")),
    responses(
        (status = 200, description = "The file's bytes", content(
            (Vec<u8> = "application/pdf"),
            (Vec<u8> = "application/octet-stream"),
        )),
        (status = 401, description = "No valid API key", body = ErrorBody),
        (status = 404, description = "No such document, or its file is gone or changed since it was indexed", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn source(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let engine = state.engine.clone();
    let (summary, bytes) = blocking(move || Ok(engine.source(&id)?)).await?;
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    let pdf = summary.format == Format::Pdf;
    let content_type = if pdf { "application/pdf" } else { "application/octet-stream" };
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", summary.content_hash)) {
        headers.insert(header::ETAG, etag);
    }
    if !pdf {
        headers.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment"));
    }
    Ok(response)
}
