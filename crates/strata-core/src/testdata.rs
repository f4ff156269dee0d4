//! The shared test data beside the checkout (`shared/data`: the corpus and the evaluation
//! sets), for tests. Never part of the product: nothing here is called outside tests.
//!
//! A test that needs them calls [`shared`]: it gets the path, or, when the data are absent,
//! `None` after a message saying what was skipped. Under `STRATA_REQUIRE_CORPUS=1`, which
//! `.ci/run` always sets and `scripts/test.sh` sets when the data are beside the checkout, an
//! absent path fails the test instead, so that a test looking in the wrong place (or a CI
//! machine without the data) cannot pass by skipping.

use std::path::PathBuf;

/// The folder the shared data are in: `shared/data` beside the repository.
pub fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
}

/// `shared/data/RELATIVE` when it exists; otherwise `None` after saying so, or a panic
/// naming the path under `STRATA_REQUIRE_CORPUS=1`.
pub fn shared(relative: &str) -> Option<PathBuf> {
    let path = root().join(relative);
    if path.exists() {
        return Some(path.canonicalize().unwrap_or(path));
    }
    if std::env::var("STRATA_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!(
            "STRATA_REQUIRE_CORPUS=1 but {} is absent (the shared data beside the checkout)",
            path.display()
        );
    }
    eprintln!("skipping: {} is absent (the shared data are not beside this checkout)", path.display());
    None
}

/// The corpus's files (`shared/data/corpus`), each format's folder in turn, sorted within it;
/// `None` as [`shared`] says when the corpus is absent.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let corpus = shared("corpus")?;
    let mut all = Vec::new();
    for folder in ["markdown", "html", "txt", "pdf", "docx"] {
        let entries = std::fs::read_dir(corpus.join(folder)).ok()?;
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        all.extend(files);
    }
    Some(all)
}
