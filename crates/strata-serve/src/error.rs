//! Errors as HTTP answers: a status and `{"error": {"code", "message"}}`, the message
//! naming the value and the fix, as everywhere in strata.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// The body of every error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// A stable code: `bad_request`, `unauthorized`, `not_found`, `forbidden`,
    /// `too_many_jobs`, `busy`, `conflict`, `payload_too_large`, `unsupported_media_type`,
    /// `unprocessable_entity`, `unreadable`,
    /// `upstream`, `internal`.
    pub code: &'static str,
    /// What was wrong and how to fix it.
    pub message: String,
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into() }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
}

impl From<strata_core::Error> for ApiError {
    fn from(e: strata_core::Error) -> ApiError {
        use strata_core::Error as E;
        // Whose fault it was is the root's kind; the message keeps every layer of context.
        let (status, code) = match e.root() {
            E::User(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            E::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            E::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            E::Read { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "unreadable"),
            E::Remote { .. } => (StatusCode::BAD_GATEWAY, "upstream"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if status.is_server_error() {
            tracing::error!("{e}");
        }
        ApiError::new(status, code, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody { error: ErrorDetail { code: self.code, message: self.message } };
        (self.status, Json(body)).into_response()
    }
}

/// Runs index work on the blocking pool; a panic there is a 500, not a dead server.
pub async fn blocking<T, F>(f: F) -> Result<T, ApiError>
where
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(ApiError::internal(format!("the request's worker failed: {e}"))))
}
