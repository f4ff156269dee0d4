//! Chunk kinds.
use strata_core::{Chunk, ChunkKind, Document};

/// The kind of a chunk.
pub fn classify(_doc: &Document, _chunk: &Chunk) -> ChunkKind {
    ChunkKind::Content
}
