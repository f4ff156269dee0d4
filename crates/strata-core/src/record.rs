//! A document with everything ingest found in it: the unit the index stores and replaces.

use serde::{Deserialize, Serialize};

use crate::{Chunk, Definition, Document, NodeId, Reference};

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
    /// One embedding per chunk, in chunk order, when the dense leg is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<ChunkVectors>,
    /// One embedding per section profile (see [`crate::section_profiles`]), for the dense
    /// section leg, when the dense leg is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_vectors: Option<SectionVectors>,
}

/// The dense vectors of a document's section profiles: row `i` belongs to `nodes[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionVectors {
    /// The sections, in node order.
    pub nodes: Vec<NodeId>,
    /// Their vectors (same model as the chunks').
    pub vectors: ChunkVectors,
}

/// The dense vectors of a document's chunks: row `i` belongs to `chunks[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkVectors {
    /// Id of the model that made them; an index holds vectors of one model only.
    pub model: String,
    /// Dimension.
    pub dim: usize,
    /// `chunks.len() * dim` values, row-major, each row L2-normalized.
    pub values: Vec<f32>,
}

impl ChunkVectors {
    /// Vector of chunk `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.values.len().checked_div(self.dim).unwrap_or(0)
    }

    /// True when there is no vector.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}
