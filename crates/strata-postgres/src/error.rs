//! The one mapping of a PostgreSQL driver error to strata's [`Error`]: what happened, and
//! what to do. Every module that talks to the server imports it from here.

use std::path::Path;

use strata_core::Error;

/// Maps a driver error to what happened and what to do.
pub(crate) fn pg<'a>(label: &'a Path, what: &'static str) -> impl Fn(postgres::Error) -> Error + 'a {
    move |e| {
        // Class 08 is a connection exception, 57P a server shutting down or crashing.
        let code = e.as_db_error().map(|db| db.code().code().to_string());
        let io = std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>());
        let lost = e.is_closed()
            || io
            || code.as_deref().is_some_and(|c| c.starts_with("08") || c.starts_with("57P"))
            || (code.is_none() && e.to_string().contains("connection"));
        let reason = if lost {
            format!(
                "{what}: lost the connection to the server ({e}); nothing uncommitted was kept. Start the server and run the same command again"
            )
        } else if let Some(db) = e.as_db_error() {
            format!("{what}: {} ({})", db.message(), db.code().code())
        } else {
            format!("{what}: {e}")
        };
        Error::Index { path: label.to_path_buf(), reason }
    }
}
