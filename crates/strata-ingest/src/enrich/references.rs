//! Cross-references.
use strata_core::{Document, Reference};

/// Finds and resolves the cross-references of a document.
pub fn find_references(_doc: &Document) -> Vec<Reference> {
    Vec::new()
}
