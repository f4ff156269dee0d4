//! The `Store` seam: what search reads and what ingest writes.
//!
//! Read and write are separate traits (Qdrant's `VectorStorageRead` pattern): a search path
//! that holds only a [`StoreRead`] cannot change an index. External engines (PostgreSQL,
//! vector databases) implement the same traits, so the CLI, the API and the eval harness work
//! unchanged on any of them.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use strata_core::{
    Annotation, CachedVector, Chunk, ChunkId, ChunkKind, Definition, DocId, Document, DocumentProfile,
    DocumentRecord, Format, NodeId, Reference, Result,
};

use crate::Manifest;

/// A document as listed by [`StoreRead::documents`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DocSummary {
    /// Id.
    pub id: DocId,
    /// Title.
    pub title: String,
    /// Source path.
    pub path: String,
    /// Format.
    pub format: Format,
    /// blake3 of the source bytes.
    pub content_hash: String,
    /// Pages, in a document with pages ([`strata_core::Format::has_pages`]); 0, and left out
    /// of the JSON, in one without (Markdown, HTML). Indexes made before pages were told
    /// apart say 1 there: [`DocSummary::has_pages`] reads both right.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pages: usize,
    /// Sections, root included.
    pub nodes: usize,
    /// Chunks.
    pub chunks: usize,
    /// Defined terms.
    pub definitions: usize,
    /// Cross-references.
    pub references: usize,
    /// Its metadata: front matter, `--meta` and sidecar values, and the fields its
    /// annotators filled (issuer, ticker, form, period, fiscal years, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// What the document leg searches for it. Empty in indexes made before profiles.
    #[serde(default)]
    pub profile: DocumentProfile,
    /// The annotators that ran on it, and why (empty when none claimed it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<Annotation>,
}

impl DocSummary {
    /// The summary of a document and the counts of what ingest found in it.
    pub fn of(doc: &Document, chunks: usize, definitions: usize, references: usize) -> DocSummary {
        DocSummary {
            id: doc.id.clone(),
            title: doc.title.clone(),
            path: doc.source.path.clone(),
            format: doc.source.format,
            content_hash: doc.source.content_hash.clone(),
            pages: if doc.has_pages() { doc.pages.len() } else { 0 },
            nodes: doc.tree.len(),
            chunks,
            definitions,
            references,
            metadata: doc.metadata.clone(),
            profile: DocumentProfile::of(doc),
            annotations: doc.annotations.clone(),
        }
    }

    /// True when the document is cited by page.
    pub fn has_pages(&self) -> bool {
        self.format.has_pages(self.pages)
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A stored document without its chunks: text, tree, definitions and references.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredDocument {
    /// The document, text included.
    pub document: Document,
    /// Terms it defines.
    pub definitions: Vec<Definition>,
    /// Its cross-references.
    pub references: Vec<Reference>,
    /// Number of chunks.
    pub chunks: usize,
}

/// A chunk with what a result needs to show it without loading its document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredChunk {
    /// The chunk.
    pub chunk: Chunk,
    /// The chunk's own text.
    pub text: String,
    /// Title of its document.
    pub doc_title: String,
    /// Source path of its document.
    pub source_path: String,
    /// Normalized section-number key of its node, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
}

impl StoredChunk {
    /// What a store keeps for `chunk` of `doc`: its own text, the citation data of its
    /// document, and the number key of its section.
    pub fn of(doc: &Document, chunk: &Chunk) -> StoredChunk {
        StoredChunk {
            chunk: chunk.clone(),
            text: chunk.span.slice(&doc.text).to_string(),
            doc_title: doc.title.clone(),
            source_path: doc.source.path.clone(),
            number: doc.tree.get(chunk.node).and_then(|n| n.number.as_ref()).map(strata_text::number::key),
        }
    }
}

/// Restricts a leg to part of the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this document.
    pub doc: Option<DocId>,
    /// Only the subtree of this node of `doc` (node ids `first..=last`, contiguous in
    /// depth-first order).
    pub nodes: Option<(NodeId, NodeId)>,
    /// Only chunks of this kind.
    pub kind: Option<ChunkKind>,
    /// Only chunks (and sections) whose pages overlap `first..=last` (physical page numbers,
    /// from 1). Format 1 indexes cannot filter by page and refuse it.
    pub pages: Option<(u32, u32)>,
}

/// One result of one leg: a chunk id and the leg's score (higher is better).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegHit {
    /// Chunk id.
    pub chunk: ChunkId,
    /// The leg's own score.
    pub score: f32,
}

/// One result of a section-level leg: a node of a document and the leg's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SectionHit {
    /// The document.
    pub doc: DocId,
    /// The node.
    pub node: NodeId,
    /// The leg's own score.
    pub score: f32,
}

impl SectionHit {
    /// The hit of a section record whose id is `DOC#NODE` (how every store keys sections),
    /// or `None` when the id is not one.
    pub fn from_id(id: &str, score: f32) -> Option<SectionHit> {
        let (doc, node) = id.rsplit_once('#')?;
        Some(SectionHit { doc: DocId(doc.to_string()), node: NodeId::parse(node)?, score })
    }
}

/// BM25 field boosts every store ranks chunks with: the chunk text counts most, its heading
/// path and document title less.
pub const BOOST_TEXT: f32 = 1.0;
/// See [`BOOST_TEXT`].
pub const BOOST_HEADING: f32 = 0.5;
/// See [`BOOST_TEXT`].
pub const BOOST_TITLE: f32 = 0.25;
/// A section is what its heading says it is: on section records the heading path counts as
/// much as the lead and the children's titles ([`BOOST_TEXT`]).
pub const SECTION_BOOST_HEADING: f32 = 1.0;

/// Checks that `record`'s vectors fit its chunks and sections (one row each, of one
/// dimension), before a store writes any of them.
pub fn check_vectors(record: &DocumentRecord) -> Result<()> {
    let id = record.document.id.as_str();
    if let Some(v) = &record.vectors {
        if v.len() != record.chunks.len() || v.values.len() != v.len() * v.dim {
            return Err(strata_core::Error::Internal(format!(
                "{id}: {} vectors of dimension {} for {} chunks",
                v.len(),
                v.dim,
                record.chunks.len()
            )));
        }
    }
    if let Some(sv) = &record.section_vectors {
        let v = &sv.vectors;
        if v.len() != sv.nodes.len() || v.values.len() != v.len() * v.dim {
            return Err(strata_core::Error::Internal(format!(
                "{id}: {} section vectors of dimension {} for {} sections",
                v.len(),
                v.dim,
                sv.nodes.len()
            )));
        }
        if record.vectors.is_none() {
            return Err(strata_core::Error::Internal(format!("{id}: section vectors without chunk vectors")));
        }
    }
    // Without chunk vectors (the side index of a store whose vectors live elsewhere), the
    // entries must at least agree with each other.
    let dim =
        record.vectors.as_ref().map(|v| v.dim).or(record.cached_vectors.first().map(|e| e.values.len()));
    if let Some(bad) = record.cached_vectors.iter().find(|e| Some(e.values.len()) != dim) {
        return Err(strata_core::Error::Internal(format!(
            "{id}: the cached vector {} has {} values, not {}",
            bad.key,
            bad.values.len(),
            dim.unwrap_or_default()
        )));
    }
    Ok(())
}

/// What search needs from an index.
pub trait StoreRead: Send + Sync {
    /// The index manifest.
    fn manifest(&self) -> &Manifest;

    /// All documents, sorted by source path.
    fn documents(&self) -> Result<Vec<DocSummary>>;

    /// One document with its text, tree, definitions and references.
    fn document(&self, id: &DocId) -> Result<Option<StoredDocument>>;

    /// One document's tree, pages, definitions and references, without its text
    /// (`document.text` is empty): what citations need, at a fraction of the cost.
    fn document_meta(&self, id: &DocId) -> Result<Option<StoredDocument>>;

    /// The content hash stored for a document, to skip unchanged files.
    fn content_hash(&self, id: &DocId) -> Result<Option<String>>;

    /// Chunks by id, in the order asked; unknown ids are skipped.
    fn chunks(&self, ids: &[ChunkId]) -> Result<Vec<StoredChunk>>;

    /// The section (document and node) of each chunk among `ids` the store holds, in the
    /// order asked: what hierarchical mode needs of its candidates. Read from
    /// [`StoreRead::chunks`] unless a store can answer it without loading them.
    fn sections_of(&self, ids: &[ChunkId]) -> Result<Vec<(ChunkId, DocId, NodeId)>> {
        Ok(self
            .chunks(ids)?
            .into_iter()
            .map(|c| (c.chunk.id.clone(), c.chunk.doc.clone(), c.chunk.node))
            .collect())
    }

    /// All chunks of a document (optionally of one node's subtree), in document order.
    fn chunks_of(&self, doc: &DocId, nodes: Option<(NodeId, NodeId)>) -> Result<Vec<StoredChunk>>;

    /// BM25 leg: chunk text, heading path and document title, English stemming.
    fn keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>>;

    /// Section leg, BM25: sections ranked by their profile (heading path, lead text,
    /// children's titles; see [`strata_core::SectionProfile`]), English stemming. `filter.doc`
    /// and `filter.nodes` apply; `filter.kind` does not (a section has no kind).
    fn section_keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<SectionHit>>;

    /// Section leg, dense: the `limit` sections whose profile vectors have the highest inner
    /// product with `query`, best first. `filter.doc` and `filter.nodes` apply. An index
    /// without section vectors returns nothing.
    fn section_dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<SectionHit>>;

    /// Exact leg, section numbers: chunks whose section number key equals one of `keys`,
    /// ordered by document and position.
    fn exact_numbers(&self, keys: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>>;

    /// Exact leg, defined terms: chunks that define one of the normalized `terms`.
    fn exact_terms(&self, terms: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>>;

    /// Exact leg, phrases: chunks that contain `phrase` word for word (case-insensitive).
    fn exact_phrase(&self, phrase: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>>;

    /// Dense leg: the `limit` chunks whose vectors have the highest inner product with
    /// `query` (an L2-normalized vector of the model in [`Manifest::dense`]), best first.
    /// An index without vectors returns nothing.
    fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>>;

    /// Definitions of a normalized term, across documents.
    fn definitions(&self, term: &str) -> Result<Vec<Definition>>;

    /// Every normalized defined term in the index (for query planning).
    fn defined_terms(&self) -> Result<Vec<String>>;

    /// Chunk contexts a language model wrote earlier, by cache key
    /// (`strata_ingest::context::cache_key`: document hash, chunk text, model, prompt
    /// version), and pages OCR'd earlier, by page key (`strata_ingest::read::pdf::ocr`:
    /// what the page draws and the OCR settings); keys not cached are absent.
    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>>;

    /// Vectors made earlier, by key (`strata_embed::cache::key`: the embedder's cache id
    /// and the exact text): the [`DocumentRecord::cached_vectors`] of the documents the
    /// index holds, so they go with the document that served them. Keys not held are
    /// absent; an index without vectors holds none.
    fn cached_vectors(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>>;
}

/// What ingest needs on top of reading.
///
/// Writes are staged until [`StoreWrite::commit`]; a crash before it leaves the last commit
/// readable.
pub trait StoreWrite: StoreRead {
    /// Stages a document, replacing every record of the same id, its
    /// [`DocumentRecord::cached_vectors`] included.
    fn put(&mut self, record: &DocumentRecord) -> Result<()>;

    /// Stages the removal of a document and all its records, committed or staged. Returns
    /// false when the id is neither.
    fn remove(&mut self, id: &DocId) -> Result<bool>;

    /// Stages chunk contexts (or OCR'd pages) for the cache, by key. They are committed with the next
    /// [`StoreWrite::commit`] and are not removed with documents: the same text under
    /// another path, or ingested again after a removal, finds them.
    fn cache_contexts(&mut self, entries: &[(String, String)]) -> Result<()>;

    /// Makes staged changes durable and visible, atomically.
    fn commit(&mut self) -> Result<()>;
}
