//! The handlers of `/v1`, one file per resource. Each parses and checks what it was sent,
//! runs the engine on the blocking pool and renders the library's own shapes as JSON.

pub mod documents;
pub mod navigate;
pub mod ops;
pub mod search;

use axum::extract::rejection::{JsonRejection, QueryRejection};

use crate::error::ApiError;

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError::new(r.status(), "bad_request", format!("the request body: {}", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::new(r.status(), "bad_request", format!("the query string: {}", r.body_text()))
    }
}
