//! Error kinds, classified by whose fault it is (milli's `Internal`/`Io`/`User` split).

use std::path::PathBuf;

/// Errors of the strata libraries.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The user gave a bad value: the message names it and the fix.
    #[error("{0}")]
    User(String),
    /// What was asked for (a document, a section, a job) is not there: the message names it
    /// and how to list what is.
    #[error("{0}")]
    NotFound(String),
    /// What is on disk now conflicts with what was asked: a document's source file was
    /// replaced by a symlink, a FIFO or a device. The message says what is there instead.
    #[error("{0}")]
    Conflict(String),
    /// A file could not be read as a document.
    #[error("{path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why, and what to do about it.
        reason: String,
    },
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What strata was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The index on disk cannot be used as asked.
    #[error("index {path}: {reason}")]
    Index {
        /// The index folder.
        path: PathBuf,
        /// Why, and what to do about it.
        reason: String,
    },
    /// A remote service (an embedding, chat or rerank API) refused or failed a request: the
    /// reason has the HTTP status and the server's own message when there was one, never a
    /// credential.
    #[error("service {service}: {reason}")]
    Remote {
        /// The model and endpoint, e.g. `text-embedding-3-small at https://api.openai.com/v1/embeddings`.
        service: String,
        /// What went wrong, and after how many attempts.
        reason: String,
    },
    /// A bug or an unexpected state in strata itself.
    #[error("internal error: {0}")]
    Internal(String),
    /// What strata was doing when another error happened; the message keeps both
    /// (`loading embedding model all-MiniLM-L6-v2: …`), and [`Error::root`] finds whose fault
    /// it was.
    #[error("{context}: {inner}")]
    Context {
        /// What strata was doing.
        context: String,
        /// What went wrong. Not a `source`: the message already holds it, and a binary that
        /// prints the chain (`anyhow`'s `{:#}`) would print it twice.
        inner: Box<Error>,
    },
}

impl Error {
    /// A user error.
    pub fn user(msg: impl Into<String>) -> Error {
        Error::User(msg.into())
    }

    /// A not-found error.
    pub fn not_found(msg: impl Into<String>) -> Error {
        Error::NotFound(msg.into())
    }

    /// A conflict with what is on disk.
    pub fn conflict(msg: impl Into<String>) -> Error {
        Error::Conflict(msg.into())
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }

    /// A per-file read error.
    pub fn read(path: impl Into<PathBuf>, reason: impl Into<String>) -> Error {
        Error::Read { path: path.into(), reason: reason.into() }
    }

    /// The error with what strata was doing when it happened.
    pub fn context(self, context: impl Into<String>) -> Error {
        Error::Context { context: context.into(), inner: Box::new(self) }
    }

    /// The error under any [`Error::Context`] layers: its kind says whose fault it was.
    pub fn root(&self) -> &Error {
        let mut e = self;
        while let Error::Context { inner, .. } = e {
            e = inner;
        }
        e
    }
}

/// Context for the errors of a [`Result`], as `anyhow` gives in binaries.
pub trait ResultExt<T> {
    /// Adds what strata was doing to the error.
    fn context(self, context: impl Into<String>) -> Result<T>;
    /// Adds what strata was doing to the error, computed only when there is one.
    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Error>> ResultExt<T> for std::result::Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| e.into().context(context()))
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_keeps_the_message_and_the_root_kind() {
        let r: Result<()> = Err(Error::user("k must be between 1 and 100, got 0"));
        let e = r.context("searching").with_context(|| "answering /v1/search").unwrap_err();
        assert_eq!(e.to_string(), "answering /v1/search: searching: k must be between 1 and 100, got 0");
        assert!(matches!(e.root(), Error::User(_)));
    }
}
