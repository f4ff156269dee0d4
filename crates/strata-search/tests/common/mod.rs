//! What the ranking tests share: a temporary index built as `strata ingest` builds it.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::path::PathBuf;

/// A temporary index; the folder goes when this is dropped.
pub struct Ingested {
    _dir: tempfile::TempDir,
    /// The index folder.
    pub index: PathBuf,
}

/// Ingests `files` into a new temporary index with the dense leg off (structural contexts,
/// the other defaults of `strata ingest`), asserting that no file failed.
pub fn ingest_lexical(files: &[PathBuf]) -> Ingested {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let mut config = strata_core::Config::default();
    config.dense.enabled = false;
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let options = strata_engine::IngestOptions::default();
    let summary = strata_engine::ingest_files(config, &index, None, &paths, &options).unwrap();
    assert_eq!(summary.failed, 0, "{:?}", summary.outcomes);
    eprintln!("ingested {} files, {} chunks in {:.2}s", summary.ingested, summary.chunks, summary.seconds);
    Ingested { _dir: dir, index }
}

/// `../shared/data/RELATIVE` next to this checkout ([`strata_core::testdata::shared`]).
pub fn shared(relative: &str) -> Option<PathBuf> {
    strata_core::testdata::shared(relative)
}
