//! `GET /v1/documents/{id}/source`: a document's source file as it was indexed, for a viewer
//! that shows the original beside the text strata read (the web page renders PDF pages from it).
//!
//! The engine serves the file only while its blake3 still matches the index, so nothing is
//! given out that was not indexed; it opens the file once, without blocking, and refuses a
//! symlink, FIFO, device or folder in its place (409). The file is streamed, not read into
//! memory, no further than the size recorded at ingest, and hashed again as it goes: a file
//! rewritten in place while it is sent ends the response with an error instead of its last
//! bytes. A client that goes away drops the stream, and with it the file. The bytes come from the user's own files, so the response
//! cannot act as a page of this origin: a `sandbox` Content-Security-Policy, `nosniff`, and
//! every format but PDF sent as an attachment of type `application/octet-stream` (an HTML
//! source shown inline would run its scripts with this origin's API key at hand).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use strata_core::Format;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio_util::io::ReaderStream;

use crate::error::{blocking, ApiError, ErrorBody};
use crate::state::AppState;

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
        (status = 409, description = "The file was replaced by a symlink, a FIFO, a device or a folder", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn source(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let engine = state.engine.clone();
    let source = blocking(move || Ok(engine.source(&id)?)).await?;
    // No more than the size recorded at ingest is read, whatever the file does meanwhile.
    let checked = Checked {
        inner: tokio::fs::File::from_std(source.file).take(source.len),
        hasher: blake3::Hasher::new(),
        expected: source.expected.clone(),
    };
    let mut response = (StatusCode::OK, Body::from_stream(ReaderStream::new(checked))).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(source.len));
    let pdf = source.format == Format::Pdf;
    let content_type = if pdf { "application/pdf" } else { "application/octet-stream" };
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", source.expected)) {
        headers.insert(header::ETAG, etag);
    }
    if !pdf {
        headers.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment"));
    }
    Ok(response)
}

/// A reader that hashes what it reads and, at the end, fails unless that is `expected`.
struct Checked<R> {
    inner: R,
    hasher: blake3::Hasher,
    expected: String,
}

impl<R: AsyncRead + Unpin> AsyncRead for Checked<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        let read = &buf.filled()[before..];
        if !read.is_empty() {
            self.hasher.update(read);
        } else if buf.remaining() > 0 && self.hasher.finalize().to_hex().as_str() != self.expected {
            return Poll::Ready(Err(io::Error::other("the source file changed while it was sent")));
        }
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(bytes: &'static [u8], of: &[u8]) -> Checked<&'static [u8]> {
        Checked {
            inner: bytes,
            hasher: blake3::Hasher::new(),
            expected: blake3::hash(of).to_hex().to_string(),
        }
    }

    #[tokio::test]
    async fn a_source_that_still_hashes_as_indexed_reads_whole() {
        let mut out = Vec::new();
        checked(b"%PDF-1.7 the pages", b"%PDF-1.7 the pages").read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"%PDF-1.7 the pages");
    }

    /// A file rewritten in place after the engine checked it: the stream ends in an error,
    /// not in bytes that were never indexed.
    #[tokio::test]
    async fn a_source_rewritten_while_it_is_sent_ends_in_an_error() {
        let mut out = Vec::new();
        let err =
            checked(b"%PDF-1.7 other pages", b"%PDF-1.7 the pages").read_to_end(&mut out).await.unwrap_err();
        assert!(err.to_string().contains("changed while it was sent"), "{err}");
    }
}
