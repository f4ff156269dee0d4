//! What a search returns: hits with citations and highlights, the definitions and references
//! attached to them, the assembled context, and the time spent per stage.

use std::collections::BTreeMap;

use serde::Serialize;
use strata_core::{ChunkId, ChunkKind, LineRange, PageRange, Span};

use crate::fuse::{Leg, LegRank};
use crate::plan::Plan;
use crate::request::Mode;

/// What a hit covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One chunk.
    #[default]
    Chunk,
    /// A whole section's own text (auto-merged from its chunks).
    Section,
    /// Whole pages around the chunks found (`--pages`).
    Pages,
}

/// One result.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchHit {
    /// Chunk id (the best chunk of a merged section or of a page range).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub chunk_id: ChunkId,
    /// What the hit covers.
    pub unit: Unit,
    /// For a section or page range: the chunks found in it, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub merged: Vec<ChunkId>,
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Source path.
    pub source_path: String,
    /// Node id of the section (`0042`).
    pub node_id: String,
    /// Heading path from the top section down, below the document's title (a top heading
    /// that repeats the title is left out).
    pub heading_path: Vec<String>,
    /// Section number key of the chunk's section, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_number: Option<String>,
    /// Pages, in a document with pages (a PDF; a DOCX or plain text with page breaks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
    /// Source lines, in a document cited by line (Markdown, plain text without pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// Byte span in the document text.
    pub span: Span,
    /// Chunk kind.
    pub kind: ChunkKind,
    /// Fused score, or the reranker's when it reordered the hit.
    pub score: f64,
    /// The rank (from 1) of the hit's document among the documents the query names (the
    /// document leg's shortlist); absent when the query names none, or not this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_rank: Option<usize>,
    /// Hierarchical mode: the rank (from 1) of the hit's section among the sections returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_rank: Option<usize>,
    /// Rank (from 1) and the leg's own score, per leg that found the chunk.
    pub legs: BTreeMap<Leg, LegRank>,
    /// The heading the passage starts with, set apart from its body (see [`crate::show`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// What the passage says: the text of `span` after `heading`, without markup (a
    /// Markdown document's `###`, `**`, link targets and code ticks are left out).
    pub text: String,
    /// How the context block cites the hit: `[Title › A › B, p. 12]` (printed page labels),
    /// `[Title › A › B, lines 40–52]`, or `[Title › A › B]` (see [`crate::cite`]).
    pub citation: String,
    /// The chunk's generated context (contextual retrieval), when it has one; indexed, never
    /// part of `text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The sentences that best answer the query, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<Highlight>,
    /// Defined terms of the document that the hit uses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<String>,
    /// Read by OCR: the hit's chunk is on a scanned page.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// The mean word confidence (0–100) of that page, when `ocr`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<u8>,
    /// Indexes into the document's references of the references inside the hit.
    #[serde(skip)]
    pub(crate) references: Vec<u32>,
}

impl SearchHit {
    /// The heading to show apart, above the text: [`Self::heading`] where neither the
    /// citation's path nor the document's title already says it (whole pages that start in a
    /// subsection, say).
    pub fn heading_apart(&self) -> Option<&str> {
        let heading = self.heading.as_deref()?;
        let said = self.heading_path.last().map(String::as_str) == Some(heading) || heading == self.doc_title;
        (!said).then_some(heading)
    }
}

/// One highlighted sentence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Highlight {
    /// Byte span in the document's text.
    pub span: Span,
    /// The sentence, trimmed.
    pub text: String,
    /// Its score: the dense inner product plus the BM25 tie-break, or BM25 alone.
    pub score: f32,
}

/// A definition attached to a response.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AttachedDefinition {
    /// The term as written.
    pub term: String,
    /// Its normalized form.
    pub normalized: String,
    /// The defining text.
    pub text: String,
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Node id of the section holding the definition.
    pub node_id: String,
    /// Heading path of that section.
    pub heading_path: Vec<String>,
    /// Pages, in a document with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
    /// Source lines, in a document cited by line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// `[Title › A › B, p. 12]`, as for a hit.
    pub citation: String,
    /// Byte span of the definition.
    pub span: Span,
    /// True when the query names the term; false when only hits use it.
    pub in_query: bool,
    /// Chunk ids of the hits that use the term.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub used_by: Vec<ChunkId>,
    /// True when another document defines the same term differently.
    pub conflict: bool,
}

/// A defined term of the hits or the query whose definition was left out past
/// `max_definitions`: where to read it (`strata define TERM`, or its section).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MoreDefinition {
    /// The term as written.
    pub term: String,
    /// Document id.
    pub doc_id: String,
    /// Node id of the section holding the definition.
    pub node_id: String,
    /// How many hits use the term.
    pub used_by: usize,
    /// True when the query names the term.
    pub in_query: bool,
}

impl MoreDefinition {
    /// The term of `d`, and where it is.
    pub fn of(d: &AttachedDefinition) -> MoreDefinition {
        MoreDefinition {
            term: d.term.clone(),
            doc_id: d.doc_id.clone(),
            node_id: d.node_id.clone(),
            used_by: d.used_by.len(),
            in_query: d.in_query,
        }
    }
}

/// A section a hit refers to, attached with `references`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AttachedReference {
    /// The reference as written (`section 4.2`).
    pub raw: String,
    /// Chunk id of the hit it appears in.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from_chunk: ChunkId,
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Node id of the section it resolves to.
    pub node_id: String,
    /// Heading path of that section.
    pub heading_path: Vec<String>,
    /// Pages of that section's own text, in a document with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
    /// Source lines of that section's own text, in a document cited by line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// `[Title › A › B, p. 12]`, as for a hit.
    pub citation: String,
    /// Byte span of that section's own text.
    pub span: Span,
    /// The section's own text.
    pub text: String,
    /// False when only an ancestor of the named subsection has a heading.
    pub exact: bool,
}

/// The hits, definitions and references packed into one block of text for a prompt.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Context {
    /// The block: document groups with cited passages, then definitions, then references.
    pub text: String,
    /// Its exact length in tokens under `tokenizer`.
    pub tokens: usize,
    /// The budget it was packed into.
    pub budget: usize,
    /// The tokenizer that counted.
    pub tokenizer: String,
    /// Indexes into `hits` of the hits in the block, in block order.
    pub hits: Vec<usize>,
    /// Indexes of the hits cut short to fit the budget.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub truncated: Vec<usize>,
    /// Indexes into `definitions` of the definitions in the block.
    pub definitions: Vec<usize>,
    /// Indexes into `references` of the references in the block.
    pub references: Vec<usize>,
}

/// What a search returns.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchResponse {
    /// The query.
    pub query: String,
    /// Mode used.
    pub mode: Mode,
    /// What the planner read in the query.
    pub plan: Plan,
    /// Results, best first.
    pub hits: Vec<SearchHit>,
    /// Definitions of the defined terms in the query and the hits, listed once each: those
    /// the query names, then those the most hits use, at most `[search] max_definitions` (by
    /// default as many as the hits).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<AttachedDefinition>,
    /// The terms whose definitions were left out past that bound, with where to read them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_definitions: Vec<MoreDefinition>,
    /// Sections the hits refer to, when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<AttachedReference>,
    /// The assembled context, when a budget was given and the searcher has a tokenizer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// What went wrong without failing the search (a reranker that did not answer).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Milliseconds spent.
    pub took_ms: f64,
    /// Milliseconds per stage.
    pub timings: Timings,
}

/// Milliseconds spent in each stage of one search; `None` for a stage that did not run. In
/// hybrid mode the dense stages run beside the lexical ones, so the stages may add up to
/// more than the total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timings {
    /// Reading the query (identifiers, phrases, terms).
    pub plan: f64,
    /// Ranking the documents by their profiles (hybrid and hierarchical mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<f64>,
    /// Embedding the query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<f64>,
    /// Vector search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense: Option<f64>,
    /// BM25.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<f64>,
    /// Identifiers, phrases and terms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<f64>,
    /// Fusing the legs' lists.
    pub fuse: f64,
    /// Reranking the top fused candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank: Option<f64>,
    /// Hierarchical mode: ranking sections and picking their chunks (the section legs are
    /// timed with the legs they run beside).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hierarchy: Option<f64>,
    /// Loading the returned chunks.
    pub fetch: f64,
    /// Auto-merge, pages, dedupe, definitions and references.
    pub expand: f64,
    /// Sentence highlights (embedding the sentences included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highlight: Option<f64>,
    /// Packing the context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assemble: Option<f64>,
    /// The whole search.
    pub total: f64,
}

impl Timings {
    /// The stages that ran, by name, in pipeline order.
    pub fn stages(&self) -> Vec<(&'static str, f64)> {
        let mut stages = vec![("plan", self.plan)];
        stages.extend(self.documents.map(|ms| ("documents", ms)));
        let optional =
            [("embed", self.embed), ("dense", self.dense), ("keyword", self.keyword), ("exact", self.exact)];
        stages.extend(optional.into_iter().filter_map(|(name, ms)| ms.map(|ms| (name, ms))));
        stages.push(("fuse", self.fuse));
        stages.extend(self.rerank.map(|ms| ("rerank", ms)));
        stages.extend(self.hierarchy.map(|ms| ("hierarchy", ms)));
        stages.extend([("fetch", self.fetch), ("expand", self.expand)]);
        stages.extend(self.highlight.map(|ms| ("highlight", ms)));
        stages.extend(self.assemble.map(|ms| ("assemble", ms)));
        stages.push(("total", self.total));
        stages
    }
}
