//! Embedding a document's section profiles for the dense section leg.
//!
//! Every front-end that ingests (the CLI, the eval harness, benchmarks) embeds sections the
//! same way: the profile text of [`strata_core::section_profiles`] as a passage, in node
//! order, in slices so that long documents report progress between them.

use strata_core::{section_profiles, ChunkVectors, Document, Result, SectionVectors};

use crate::Embedder;

/// Profiles embedded per call.
pub const SLICE: usize = 64;

/// The section vectors of `doc`, or `None` when it has no section profile.
pub fn embed_sections(embedder: &dyn Embedder, doc: &Document) -> Result<Option<SectionVectors>> {
    let profiles = section_profiles(doc);
    if profiles.is_empty() {
        return Ok(None);
    }
    let texts: Vec<String> = profiles.iter().map(|p| p.text()).collect();
    let info = embedder.info();
    let mut values = Vec::with_capacity(texts.len() * info.dim);
    for slice in texts.chunks(SLICE) {
        let refs: Vec<&str> = slice.iter().map(String::as_str).collect();
        values.extend_from_slice(embedder.embed_passages(&refs)?.as_slice());
    }
    Ok(Some(SectionVectors {
        nodes: profiles.iter().map(|p| p.node).collect(),
        vectors: ChunkVectors { model: info.model_id.clone(), dim: info.dim, values },
    }))
}
