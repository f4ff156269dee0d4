//! `strata check`: verifies an embedded index without changing it.
//!
//! - tantivy's own checksums over every file of every committed segment (a flipped byte in a
//!   term dictionary, postings, positions, fast fields or the document store);
//! - the manifest, the schema and the commit payload, by opening the index as a search does;
//! - every vector file: its header and size against its keys (on open), and every row a unit
//!   vector, since the vector files carry no checksum of their own (a flipped byte makes a
//!   norm other than 1, or a NaN).

use std::path::{Path, PathBuf};

use serde::Serialize;
use strata_core::Result;

use super::{tv, EmbeddedStore};

/// Damaged rows reported per vector space at most.
const MAX_ROWS_REPORTED: usize = 20;

/// What a check found.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The index folder.
    pub index: PathBuf,
    /// tantivy segments of the last commit.
    pub segments: usize,
    /// Vectors verified (chunks' and sections').
    pub vectors: usize,
    /// What is damaged: a file and why; empty when the index is sound.
    pub damaged: Vec<String>,
}

impl Check {
    /// Whether nothing is damaged.
    pub fn is_sound(&self) -> bool {
        self.damaged.is_empty()
    }
}

impl EmbeddedStore {
    /// Checks the index in `dir` (see the module documentation). An index that cannot even be
    /// opened is an error that says why.
    pub fn check(dir: &Path) -> Result<Check> {
        let store = Self::open(dir)?;
        let tantivy = store.index.validate_checksum().map_err(tv(dir))?;
        let mut damaged: Vec<String> = tantivy
            .into_iter()
            .map(|file| format!("tantivy/{}: checksum mismatch", file.display()))
            .collect();
        damaged.sort();
        for vectors in [&store.vectors, &store.section_vectors] {
            damaged.extend(
                vectors
                    .damaged_rows(MAX_ROWS_REPORTED)
                    .into_iter()
                    .map(|(file, row)| format!("{}: row {row} is not a unit vector", file.display())),
            );
        }
        let metas = store.index.searchable_segment_metas().map_err(tv(dir))?;
        Ok(Check {
            index: dir.to_path_buf(),
            segments: metas.len(),
            vectors: store.vectors.rows() + store.section_vectors.rows(),
            damaged,
        })
    }
}
