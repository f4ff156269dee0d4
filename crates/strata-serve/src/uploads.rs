//! The uploads folder, `INDEX/uploads`: where an upload waits for its job and then stays, as
//! its document's source. At start, what neither a document nor a job holds is removed: the
//! file of an upload whose job a crash lost, a temporary file half written.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use strata_engine::ingest::Roots;

/// The one root an upload's job may read from: the folder `upload` is staged in. The error
/// names the folder.
pub fn confine(upload: &Path) -> Result<Arc<Roots>, String> {
    let dir = upload.parent().unwrap_or(Path::new(".")).to_path_buf();
    Roots::new(&[dir])
        .map(Arc::new)
        .map_err(|(dir, e)| format!("the uploads folder {} cannot be read: {e}", dir.display()))
}

/// Removes every file of `dir` whose source path (as a document would record it) is not in
/// `keep`; each removal is logged. A missing folder is nothing to sweep.
pub fn sweep(dir: &Path, keep: &HashSet<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            tracing::error!("reading the uploads folder {}: {e}; it is not swept", dir.display());
            return;
        }
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if keep.contains(&strata_core::Source::path_of(&real)) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {
                tracing::info!(path = %path.display(), "removed an upload that no document or job holds")
            }
            Err(e) => tracing::warn!("removing the orphaned upload {}: {e}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_held_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["held.md", "orphan.pdf", ".tmpAbC123"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let held = std::fs::canonicalize(dir.path().join("held.md")).unwrap();
        sweep(dir.path(), &HashSet::from([strata_core::Source::path_of(&held)]));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["held.md"]);
        sweep(&dir.path().join("missing"), &HashSet::new());
    }
}
