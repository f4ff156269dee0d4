//! Embedding a document's section profiles for the dense section leg, and its own profile for
//! the dense document leg.
//!
//! Every front-end that ingests (the CLI, the eval harness, benchmarks) embeds sections the
//! same way: the profile text of [`strata_core::section_profiles`] as a passage, in node
//! order, in slices so that long documents report progress between them. The root's text is
//! the document's profile ([`DocumentProfile::text`]: its name, period and lead), so that the
//! root's vector is what the documents stage compares a query with; without section vectors
//! the root's vector alone is embedded ([`embed_document`]).

use strata_core::{
    section_profiles, ChunkVectors, Document, DocumentProfile, NodeId, Result, SectionVectors,
};

use crate::Embedder;

/// Profiles embedded per call.
pub const SLICE: usize = 64;

/// The section vectors of `doc`: its root's (the document's profile), then each other
/// section profile's; `None` when it has neither.
pub fn embed_sections(embedder: &dyn Embedder, doc: &Document) -> Result<Option<SectionVectors>> {
    let document = DocumentProfile::of(doc).text();
    let mut nodes = Vec::new();
    let mut texts = Vec::new();
    if !document.trim().is_empty() {
        nodes.push(NodeId::ROOT);
        texts.push(document);
    }
    for profile in section_profiles(doc).into_iter().filter(|p| p.node != NodeId::ROOT) {
        nodes.push(profile.node);
        texts.push(profile.text());
    }
    if texts.is_empty() {
        return Ok(None);
    }
    let info = embedder.info();
    let mut values = Vec::with_capacity(texts.len() * info.dim);
    for slice in texts.chunks(SLICE) {
        let refs: Vec<&str> = slice.iter().map(String::as_str).collect();
        values.extend_from_slice(embedder.embed_passages(&refs)?.as_slice());
    }
    Ok(Some(SectionVectors {
        nodes,
        vectors: ChunkVectors { model: info.model_id.clone(), dim: info.dim, values },
    }))
}

/// The vector of `doc`'s root alone: its profile ([`DocumentProfile::text`]), for the dense
/// document leg; `None` when the profile is empty.
pub fn embed_document(embedder: &dyn Embedder, doc: &Document) -> Result<Option<SectionVectors>> {
    let text = DocumentProfile::of(doc).text();
    if text.trim().is_empty() {
        return Ok(None);
    }
    let info = embedder.info();
    let values = embedder.embed_passages(&[text.as_str()])?.as_slice().to_vec();
    Ok(Some(SectionVectors {
        nodes: vec![NodeId::ROOT],
        vectors: ChunkVectors { model: info.model_id.clone(), dim: info.dim, values },
    }))
}
