//! Defined terms.
use strata_core::{Definition, Document};

/// Finds the terms a document defines.
pub fn find_definitions(_doc: &Document) -> Vec<Definition> {
    Vec::new()
}
