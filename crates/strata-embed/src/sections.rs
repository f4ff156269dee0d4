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
    let others =
        section_profiles(doc).into_iter().filter(|p| p.node != NodeId::ROOT).map(|p| (p.node, p.text()));
    embed(embedder, root(doc).into_iter().chain(others).collect())
}

/// The vector of `doc`'s root alone: its profile ([`DocumentProfile::text`]), for the dense
/// document leg; `None` when the profile is empty.
pub fn embed_document(embedder: &dyn Embedder, doc: &Document) -> Result<Option<SectionVectors>> {
    embed(embedder, root(doc).into_iter().collect())
}

/// The root's text, the document's profile, unless it is empty.
fn root(doc: &Document) -> Option<(NodeId, String)> {
    let text = DocumentProfile::of(doc).text();
    (!text.trim().is_empty()).then_some((NodeId::ROOT, text))
}

/// The passages' vectors, [`SLICE`] per call; `None` for no passage.
fn embed(embedder: &dyn Embedder, passages: Vec<(NodeId, String)>) -> Result<Option<SectionVectors>> {
    if passages.is_empty() {
        return Ok(None);
    }
    let info = embedder.info();
    let mut values = Vec::with_capacity(passages.len() * info.dim);
    for slice in passages.chunks(SLICE) {
        let refs: Vec<&str> = slice.iter().map(|(_, text)| text.as_str()).collect();
        values.extend_from_slice(embedder.embed_passages(&refs)?.as_slice());
    }
    Ok(Some(SectionVectors {
        nodes: passages.into_iter().map(|(node, _)| node).collect(),
        vectors: ChunkVectors { model: info.model_id.clone(), dim: info.dim, values },
    }))
}
