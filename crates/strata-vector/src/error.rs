//! The one error type of the crate, classified by whose fault it is: the file system (`Io`), a
//! file that is not ours or is from another format version (`Format`), or a caller that mixed
//! vectors of different widths or passed bad parameters (`DimMismatch`, `Params`).

use std::path::PathBuf;

/// Everything that can go wrong in `strata-vector`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    /// Reading, writing, renaming or mapping `path` failed.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The file the operation was about.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `path` is not a file this version can read: wrong magic, another format version,
    /// truncated, or inconsistent with the matrix it is used with. `reason` says what was
    /// found, what was expected and what to do.
    #[error("{path}: {reason}", path = path.display())]
    Format {
        /// The offending file.
        path: PathBuf,
        /// What was found, what was expected and what to do.
        reason: String,
    },
    /// A vector's length differs from the matrix dimension.
    #[error("vector dimension mismatch: expected {expected}, got {got}")]
    DimMismatch {
        /// The matrix dimension.
        expected: usize,
        /// The length that was passed.
        got: usize,
    },
    /// An index was used with a matrix of another size than the one it was built for.
    #[error("row count mismatch: the index covers {expected} rows, the matrix has {got}")]
    RowsMismatch {
        /// Rows the index was built over.
        expected: usize,
        /// Rows of the matrix that was passed.
        got: usize,
    },
    /// Invalid index parameters, named with the value that was passed.
    #[error("invalid parameters: {0}")]
    Params(String),
}

impl VectorError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        VectorError::Io { path: path.into(), source }
    }

    pub(crate) fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        VectorError::Format { path: path.into(), reason: reason.into() }
    }
}
