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
    /// The vector cache's entries of this document: one per distinct text its vectors embed
    /// (chunks' and sections'), by key (`strata_embed::cache::key`: the embedder's cache id
    /// and the exact text). A store keeps them with the document, replaces them with it and
    /// removes them with it, and serves them by key (`StoreRead::cached_vectors` of
    /// `strata-index`), so a re-ingest embeds only the texts that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cached_vectors: Vec<CachedVector>,
}

impl DocumentRecord {
    /// A record as read and enriched, before any vector is made.
    pub fn new(
        document: Document,
        chunks: Vec<Chunk>,
        definitions: Vec<Definition>,
        references: Vec<Reference>,
    ) -> Self {
        DocumentRecord {
            document,
            chunks,
            definitions,
            references,
            vectors: None,
            section_vectors: None,
            cached_vectors: Vec::new(),
        }
    }
}

/// A vector the cache holds: what an embedder made of one text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedVector {
    /// The key of the embedder and text (64 hex digits); empty for a vector of an embedder
    /// that declares no cache id, which is never stored.
    pub key: String,
    /// The L2-normalized vector.
    pub values: Vec<f32>,
    /// The model cut the text at its window.
    pub truncated: bool,
}

impl CachedVector {
    /// The bytes a store keeps: a flag byte (1 when truncated), then the values as
    /// little-endian f32.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + 4 * self.values.len());
        out.push(u8::from(self.truncated));
        out.extend(self.values.iter().flat_map(|v| v.to_le_bytes()));
        out
    }

    /// The entry of `key` whose stored bytes are `bytes`; `None` when they are not
    /// [`CachedVector::encode`]'s of a `dim`-dimensional vector.
    pub fn decode(key: String, bytes: &[u8], dim: usize) -> Option<CachedVector> {
        let (&flag, values) = bytes.split_first()?;
        if flag > 1 || values.len() != 4 * dim || dim == 0 {
            return None;
        }
        let values = values.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Some(CachedVector { key, values, truncated: flag == 1 })
    }
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
