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
    section_profiles, CachedVector, ChunkVectors, Document, DocumentProfile, NodeId, Result, SectionVectors,
};

use crate::cache::{self, VectorCache};
use strata_model::Embedder;

/// Profiles embedded per call.
pub const SLICE: usize = 64;

/// A document's section vectors, and what the vector cache did for them.
#[derive(Debug)]
pub struct Sections {
    /// The vectors.
    pub vectors: SectionVectors,
    /// The cache's entry of each profile, in node order.
    pub entries: Vec<CachedVector>,
    /// Profiles the model embedded (the others came from `cache`).
    pub computed: usize,
}

/// The section vectors of `doc`: its root's (the document's profile), then each other
/// section profile's, from `cache` when it has them; `None` when it has neither.
pub fn embed_sections(
    embedder: &dyn Embedder,
    cache: &dyn VectorCache,
    doc: &Document,
) -> Result<Option<Sections>> {
    let others =
        section_profiles(doc).into_iter().filter(|p| p.node != NodeId::ROOT).map(|p| (p.node, p.text()));
    embed(embedder, cache, root(doc).into_iter().chain(others).collect())
}

/// The vector of `doc`'s root alone: its profile ([`DocumentProfile::text`]), for the dense
/// document leg; `None` when the profile is empty.
pub fn embed_document(
    embedder: &dyn Embedder,
    cache: &dyn VectorCache,
    doc: &Document,
) -> Result<Option<Sections>> {
    embed(embedder, cache, root(doc).into_iter().collect())
}

/// The root's text, the document's profile, unless it is empty.
fn root(doc: &Document) -> Option<(NodeId, String)> {
    let text = DocumentProfile::of(doc).text();
    (!text.trim().is_empty()).then_some((NodeId::ROOT, text))
}

/// The passages' vectors, [`SLICE`] per call; `None` for no passage.
fn embed(
    embedder: &dyn Embedder,
    cache: &dyn VectorCache,
    passages: Vec<(NodeId, String)>,
) -> Result<Option<Sections>> {
    if passages.is_empty() {
        return Ok(None);
    }
    let info = embedder.info();
    let mut values = Vec::with_capacity(passages.len() * info.dim);
    let (mut entries, mut computed) = (Vec::with_capacity(passages.len()), 0);
    for slice in passages.chunks(SLICE) {
        let refs: Vec<&str> = slice.iter().map(|(_, text)| text.as_str()).collect();
        let embedded = cache::embed(embedder, cache, &refs)?;
        values.extend_from_slice(embedded.embeddings.as_slice());
        entries.extend(embedded.entries);
        computed += embedded.computed;
    }
    let vectors = SectionVectors {
        nodes: passages.into_iter().map(|(node, _)| node).collect(),
        vectors: ChunkVectors { model: info.model_id.clone(), dim: info.dim, values },
    };
    Ok(Some(Sections { vectors, entries, computed }))
}
