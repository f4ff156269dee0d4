//! A document's source file, as it was indexed: what a front-end shows beside the text strata
//! read from it (the web page renders a PDF's pages from it).
//!
//! The index keeps the source's path and the blake3 of its bytes, not the bytes. The file is
//! read from that path and served only while its hash still matches: a file changed or
//! replaced since it was indexed would show pages that the citations do not describe, and
//! the bytes given out are never more than what was indexed.

use strata_core::{Error, Result};
use strata_index::DocSummary;
use strata_search::navigate;

use crate::Engine;

impl Engine {
    /// The summary of document `doc` (id or part of its path) and its source file's bytes,
    /// as they were when it was indexed.
    pub fn source(&self, doc: &str) -> Result<(DocSummary, Vec<u8>)> {
        let snapshot = self.snapshot();
        let id = navigate::resolve_doc(snapshot.store(), doc)?;
        let summary = snapshot
            .store()
            .documents()?
            .into_iter()
            .find(|d| d.id == id)
            .ok_or_else(|| Error::not_found(format!("document {id} was removed")))?;
        let bytes = match std::fs::read(&summary.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::not_found(format!(
                    "the source of {id}, {}, is no longer on disk",
                    summary.path
                )));
            }
            Err(e) => return Err(Error::io(format!("reading the source of {id}, {}", summary.path), e)),
        };
        if blake3::hash(&bytes).to_hex().as_str() != summary.content_hash {
            return Err(Error::not_found(format!(
                "the source of {id}, {}, changed since it was indexed; ingest it again",
                summary.path
            )));
        }
        Ok((summary, bytes))
    }
}
