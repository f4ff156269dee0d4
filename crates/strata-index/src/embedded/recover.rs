//! Undoing a write that failed, and removing the files it left behind.
//!
//! A commit writes files before it publishes them: tantivy's segment files as its indexing
//! threads flush, the vector segments of `vectors.rs`, then `meta.json`, whose atomic
//! replacement is the commit point. A commit that fails before that point (a full disk, any
//! I/O error), or a process killed before it, leaves files that no commit references. Readers
//! never see them, but they hold their space: after a full disk, enough that every later
//! write fails too. So a failed write rolls the tantivy writer back to the last commit and
//! removes them at once, and opening for writing removes those a dead process left. Neither
//! touches a file the last commit references.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use strata_core::Error;
use tantivy::TantivyError;

use super::{tv, CommitPayload, EmbeddedStore};
use crate::Manifest;

/// How long a rollback waits for an indexing or merging thread of the failed commit to let
/// go of its files. Past it, the next open for writing removes them.
const ORPHAN_WAIT: Duration = Duration::from_secs(5);

/// What a user does about a full disk.
pub(super) const NO_SPACE_FIX: &str =
    "free space on that volume (or pass --index DIR on a larger one) and run the same command again";

/// Whether an error's message says the disk is full or the user's quota is spent. tantivy
/// passes some I/O errors on as text only, so the message is what there is to read.
pub(super) fn out_of_space(message: &str) -> bool {
    const SIGNS: [&str; 5] = [
        "no space left on device",
        "disk quota exceeded",
        "not enough space on the disk",
        "storagefull",
        "quotaexceeded",
    ];
    let message = message.to_lowercase();
    SIGNS.iter().any(|sign| message.contains(sign))
}

impl EmbeddedStore {
    /// The error of a write staged in the tantivy writer (`add_document`), after undoing
    /// every write since the last commit. When some were undone besides this one, the store
    /// refuses further writes and its next commit returns this error too, so that no caller
    /// takes the undone writes for committed ones.
    pub(super) fn staging_failed(&mut self, e: TantivyError) -> Error {
        let e = self.indexing_error(e);
        let cause = tv(&self.dir)(e);
        let undone_others = self.pending;
        let error = self.roll_back(cause);
        if let (true, Error::Index { reason, .. }) = (undone_others, &error) {
            self.failed = Some(reason.clone());
        }
        error
    }

    /// The error an indexing thread stopped on. A thread that fails (on a full disk, as it
    /// opens a segment's files) leaves the adding thread only "the index writer was killed";
    /// `prepare_commit` joins the indexing threads and returns the first one's own error.
    /// The writer is rolled back next, so what `prepare_commit` flushes is thrown away.
    fn indexing_error(&mut self, e: TantivyError) -> TantivyError {
        let TantivyError::ErrorInThread(_) = e else { return e };
        match self.writer.as_mut().map(|w| w.prepare_commit().map(drop)) {
            Some(Err(cause)) => cause,
            _ => e,
        }
    }

    /// Rolls the writer back to the last commit after `cause` made a write fail, removes the
    /// files of the writes since then, and returns the error to report: for a full disk,
    /// one that says so and names the fix.
    pub(super) fn roll_back(&mut self, cause: Error) -> Error {
        let Some(writer) = self.writer.as_mut() else { return cause };
        tracing::debug!(index = %self.dir.display(), error = %cause, "a write failed; rolling back to the last commit");
        if let Err(e) = writer.rollback() {
            tracing::warn!(error = %e, "rolling the tantivy writer back failed");
        }
        self.pending = false;
        self.staged.clear();
        self.vectors.discard();
        self.section_vectors.discard();
        // The manifest a failed commit may have written names no more than what is on disk.
        if let Ok(Some(manifest)) = Manifest::read(&self.dir) {
            self.manifest = manifest;
        }
        self.manifest_dirty = false;
        let undone = match self.collect_orphans() {
            true => "the writes since the last commit were undone and their files removed; the last commit is intact",
            false => "the writes since the last commit were undone and the last commit is intact; the next commit or open for writing removes the files they left",
        };
        let reason = match cause {
            _ if out_of_space(&cause.to_string()) => {
                format!("no space left on device: {undone}; {NO_SPACE_FIX}")
            }
            Error::Index { reason, .. } => format!("{reason} ({undone})"),
            cause => format!("{cause} ({undone})"),
        };
        Error::Index { path: self.dir.clone(), reason }
    }

    /// Removes the files no commit references: tantivy's of a failed or unfinished commit,
    /// the vector segments the last commit does not name, and the manifest's temporary file.
    /// Needs the writer (its lock keeps other writers out). Never fails: what it cannot remove
    /// is logged, and the next open for writing tries again. Returns whether tantivy's are all
    /// gone.
    pub(super) fn collect_orphans(&mut self) -> bool {
        let clean = self.collect_segment_files();
        // Also keep what the last commit on disk names, should it be newer than this store's.
        let committed = self
            .index
            .load_metas()
            .map_err(tv(&self.dir))
            .and_then(|metas| Self::committed_vectors(&metas, &self.dir))
            .unwrap_or_else(|_| CommitPayload::default());
        self.vectors.remove_unpublished(&committed.vectors);
        self.section_vectors.remove_unpublished(&committed.sections);
        let _ = std::fs::remove_file(self.dir.join(format!("{}.tmp", crate::MANIFEST_FILE)));
        clean
    }

    /// Runs tantivy's garbage collection until no file outside the last commit is left. A
    /// thread of the failed commit may still be writing a segment (tantivy returns the first
    /// indexing thread's error without joining the others) or merging; its files are kept
    /// while it holds them, so the collection runs again, for at most [`ORPHAN_WAIT`].
    /// Returns whether none is left.
    fn collect_segment_files(&self) -> bool {
        let Some(writer) = self.writer.as_ref() else { return false };
        let started = Instant::now();
        loop {
            // An error after the files went (rewriting `.managed.json` on a disk still full)
            // leaves nothing behind: the next collection forgets the names.
            let stuck = match writer.garbage_collect_files().wait() {
                Ok(result) => !result.failed_to_delete_files.is_empty(),
                Err(e) => {
                    tracing::debug!(index = %self.dir.display(), error = %e, "collecting unreferenced segment files");
                    true
                }
            };
            let left = self.unreferenced_segment_files();
            if left.is_empty() {
                return true;
            }
            if stuck || started.elapsed() >= ORPHAN_WAIT {
                tracing::warn!(
                    index = %self.dir.display(),
                    files = ?left,
                    "segment files no commit references are left; the next open for writing removes them"
                );
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// tantivy's files that the last commit does not reference.
    fn unreferenced_segment_files(&self) -> Vec<PathBuf> {
        let Ok(metas) = self.index.load_metas() else { return Vec::new() };
        let live = metas.list_segment_files();
        let mut left: Vec<PathBuf> = self
            .index
            .directory()
            .list_managed_files()
            .into_iter()
            .filter(|f| !live.contains(f) && f.as_os_str() != "meta.json")
            .collect();
        left.sort();
        left
    }
}
