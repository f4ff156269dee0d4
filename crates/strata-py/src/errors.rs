//! strata's errors as Python exceptions: the class says whose fault it was (the kind of
//! [`Error::root`]), the message is strata's own with every layer of context.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use strata_core::Error;

/// The name, in `strata.errors`, of the class for an error of this kind.
fn class_name(e: &Error) -> &'static str {
    match e.root() {
        Error::User(_) => "UserError",
        Error::NotFound(_) => "NotFound",
        Error::Read { .. } | Error::Conflict(_) => "ReadError",
        Error::Io { .. } => "StrataIOError",
        Error::Index { .. } => "IndexUnusable",
        Error::Remote { .. } => "RemoteError",
        Error::Internal(_) => "InternalError",
        _ => "StrataError",
    }
}

/// The Python exception for `e`: an instance of its `strata.errors` class carrying
/// strata's message.
pub(crate) fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    let class = py
        .import("strata.errors")
        .and_then(|m| m.getattr(class_name(&e)))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
    match class {
        Ok(class) => PyErr::from_type(class, message),
        // Only when the package's Python half is missing (the module loaded alone).
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// A user error for a bad argument, before the engine sees it.
pub(crate) fn user(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py(py, Error::user(message))
}
