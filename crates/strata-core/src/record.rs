//! A document with everything ingest found in it: the unit the index stores and replaces.

use serde::{Deserialize, Serialize};

use crate::{Chunk, Definition, Document, Reference};

/// One document and its chunks, definitions and references. Writing a record replaces every
/// earlier record of the same document id: no stale chunk, term or reference survives.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// The document.
    pub document: Document,
    /// Its chunks, tiling each section.
    pub chunks: Vec<Chunk>,
    /// Terms it defines.
    pub definitions: Vec<Definition>,
    /// Its cross-references.
    pub references: Vec<Reference>,
}
