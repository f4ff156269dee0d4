//! Path safety for path-based ingest: only files under the configured roots.
//!
//! A path is refused when it has a `..` component, when an absolute path is not under a root
//! as written (checked before the disk is touched, so that answers tell nothing about files
//! elsewhere), when it is not under a root once every symlink is resolved, or, for a folder,
//! when any file found in it (symlinks followed, as `strata ingest` follows them) resolves
//! outside the roots. Only regular files are admitted (a FIFO would block the writer), and
//! they are handed on resolved. Relative paths are taken from the first root. Patterns are
//! not expanded: `Contract [final].pdf` is a file name.
//!
//! Admission answers the client at once; it is not what keeps other files out. The job
//! opens each file later, and the ingest checks the file it opened against the same roots
//! ([`Roots::confine`]), so a symlink swapped in between is refused there.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::error::ApiError;

/// The folders path ingest may read from, canonicalized at start.
pub struct Roots(Arc<strata_engine::ingest::Roots>);

impl Roots {
    /// Canonicalizes `roots`; a root that does not exist is a startup error.
    pub fn new(roots: &[PathBuf]) -> strata_core::Result<Roots> {
        let roots = strata_engine::ingest::Roots::new(roots).map_err(|(root, e)| {
            strata_core::Error::user(format!(
                "[serve] roots: {} cannot be used as an ingest root: {e}",
                root.display()
            ))
        })?;
        Ok(Roots(Arc::new(roots)))
    }

    /// The roots, for the ingest that reads the files admitted: it checks again, on each
    /// file it opens, that the file lies under them.
    pub fn confine(&self) -> Arc<strata_engine::ingest::Roots> {
        self.0.clone()
    }

    /// The files `input` names, each checked to lie under a root; the error says which
    /// path was refused and why.
    pub fn admit(&self, input: &str) -> Result<Vec<PathBuf>, ApiError> {
        let Some(first) = self.0.list().first() else {
            return Err(ApiError::forbidden(
                "path ingest is off on this server: set [serve] roots to the folders it may read, or upload the file",
            ));
        };
        let path = Path::new(input);
        if input.is_empty() {
            return Err(ApiError::bad_request("an ingest path is empty"));
        }
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(ApiError::forbidden(format!(
                "{input:?}: paths with `..` are refused; give a path under a root"
            )));
        }
        if path.is_absolute() && !self.0.list().iter().any(|root| path.starts_with(root)) {
            return Err(self.escapes(input));
        }
        let joined = if path.is_absolute() { path.to_path_buf() } else { first.join(path) };
        let canonical = std::fs::canonicalize(&joined)
            .map_err(|_| ApiError::not_found(format!("{input:?}: no such file or folder under the roots")))?;
        if !self.0.contains(&canonical) {
            return Err(self.escapes(input));
        }
        let text = canonical.to_string_lossy().into_owned();
        let (files, problems) = strata_engine::ingest::collect(std::slice::from_ref(&text));
        if let Some(problem) = problems.first() {
            return Err(ApiError::bad_request(problem.messages.join("; ")));
        }
        let mut admitted = Vec::with_capacity(files.len());
        for file in &files {
            let resolved = std::fs::canonicalize(file)
                .map_err(|e| ApiError::bad_request(format!("{}: {e}", file.display())))?;
            if !self.0.contains(&resolved) {
                return Err(self.escapes(&file.display().to_string()));
            }
            if !std::fs::metadata(&resolved).is_ok_and(|m| m.is_file()) {
                return Err(ApiError::bad_request(format!("{}: not a regular file", file.display())));
            }
            admitted.push(resolved);
        }
        if admitted.is_empty() {
            return Err(ApiError::bad_request(format!(
                "{input:?}: the folder holds no file strata can read"
            )));
        }
        Ok(admitted)
    }

    fn escapes(&self, input: &str) -> ApiError {
        ApiError::forbidden(format!(
            "{input:?} is outside the ingest roots (symlinks are resolved); allowed: {}",
            self.0.describe()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn traversal_and_escaping_symlinks_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "# Secret\n\nkeep out\n").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("ok.md"), "# Ok\n\nfine\n").unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.path().join("sub/link.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("away")).unwrap();
        let roots = Roots::new(&[root.path().to_path_buf()]).unwrap();

        assert_eq!(roots.admit("ok.md").unwrap().len(), 1);
        std::fs::write(root.path().join("Contract [final].md"), "# C\n\ntext\n").unwrap();
        assert_eq!(roots.admit("Contract [final].md").unwrap().len(), 1);
        let fifo = root.path().join("pipe.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert_eq!(roots.admit("pipe.md").unwrap_err().status.as_u16(), 400);
        std::fs::remove_file(&fifo).unwrap();
        let abs = root.path().join("ok.md");
        assert_eq!(roots.admit(abs.to_str().unwrap()).unwrap().len(), 1);
        for (input, status) in [
            ("../x.md".to_string(), 403),
            ("sub/../../x.md".to_string(), 403),
            (outside.path().join("secret.md").display().to_string(), 403),
            ("sub/link.md".to_string(), 403),
            ("away/secret.md".to_string(), 403),
            ("sub".to_string(), 403),
            ("*.md".to_string(), 404),
            ("missing.md".to_string(), 404),
            ("/nowhere/x.md".to_string(), 403),
        ] {
            let err = roots.admit(&input).unwrap_err();
            assert_eq!(err.status.as_u16(), status, "{input}: {}", err.message);
        }
        let off = Roots::new(&[]).unwrap();
        assert_eq!(off.admit("ok.md").unwrap_err().status.as_u16(), 403);
    }
}
