//! The handlers of `/v1`, one file per resource. Each parses and checks what it was sent,
//! runs the engine on the blocking pool and renders the library's own shapes as JSON.

pub mod documents;
pub mod navigate;
pub mod ops;
pub mod search;
pub mod source;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::StatusCode;

use crate::error::ApiError;

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError::new(r.status(), rejection_code(r.status()), format!("the request body: {}", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::new(r.status(), rejection_code(r.status()), format!("the query string: {}", r.body_text()))
    }
}

/// The code of an extractor's rejection: its own for a status that has one (a body that is
/// not sent as JSON is 415 `unsupported_media_type`; a JSON body with an unknown or
/// mistyped field is 422 `unprocessable_entity`), else `bad_request`.
pub(crate) fn rejection_code(status: StatusCode) -> &'static str {
    match status {
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNPROCESSABLE_ENTITY => "unprocessable_entity",
        _ => "bad_request",
    }
}
