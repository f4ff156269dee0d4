//! What an evaluation runs on: documents to ingest and queries with gold labels, whatever
//! format they came in (see `adapters`).

use std::path::PathBuf;

use serde::Serialize;
use strata_core::{ChunkId, Format, Span};

/// A loaded data set.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Short name, used in reports (`anthropic-codebase`).
    pub name: String,
    /// Documents, each ingested once per ingest configuration.
    pub documents: Vec<DocInput>,
    /// Queries with their gold labels.
    pub queries: Vec<Query>,
    /// Results published by others on this data set, shown beside strata's.
    pub published: Vec<Published>,
    /// What the adapter wants the reader of the report to know (how gold was mapped, …).
    pub notes: Vec<String>,
}

/// One document of a data set. `name` is how gold labels refer to it.
#[derive(Debug, Clone)]
pub struct DocInput {
    /// The name gold labels use (a file name, a BEIR `_id`, `doc_1`).
    pub name: String,
    /// Where its text comes from.
    pub content: Content,
    /// Chunk spans the data set fixes (bytes of the input text), when it comes pre-split.
    /// Used when the ingest configuration asks for the given chunks.
    pub given_chunks: Option<Vec<Span>>,
}

/// Where a document's text comes from.
#[derive(Debug, Clone)]
pub enum Content {
    /// A file read by strata's reader for its format.
    File(PathBuf),
    /// Text in memory, read by the reader of `format`.
    Text {
        /// Title, when the data set gives one.
        title: Option<String>,
        /// The text, as the gold labels count it.
        text: String,
        /// Which reader reads it.
        format: Format,
    },
}

/// A query and what answers it.
#[derive(Debug, Clone)]
pub struct Query {
    /// Identifier from the data set, or the line number.
    pub id: String,
    /// The query text.
    pub text: String,
    /// Gold labels; empty gold is allowed and reported (the query is left out of the means).
    pub gold: Vec<Gold>,
}

/// One gold label: a target and its relevance grade (> 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Gold {
    /// What is relevant.
    pub target: Target,
    /// Relevance grade for nDCG; 1 for binary labels.
    pub grade: f64,
}

/// What a gold label points at. Documents are named as in [`DocInput::name`].
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A whole document: any chunk of it is a hit.
    Doc(String),
    /// A section by node id (`0042`) or section number (`102(b)`): chunks in its subtree hit.
    Node {
        /// Document name.
        doc: String,
        /// Node id or section number.
        node: String,
    },
    /// A section by heading path (titles from the top down; the last ones suffice).
    Path {
        /// Document name.
        doc: String,
        /// Heading titles.
        path: Vec<String>,
    },
    /// A chunk by strata's chunk id (`doc:7`): only meaningful for one chunking.
    Chunk(ChunkId),
    /// A byte span of the document's input text: chunks that overlap it hit.
    Span {
        /// Document name.
        doc: String,
        /// Bytes of the input text (adapters convert code points to bytes).
        span: Span,
    },
    /// A physical page (1-based): chunks on it hit.
    Page {
        /// Document name.
        doc: String,
        /// Page number.
        page: u32,
    },
}

impl Target {
    /// The document this target is in, when it names one.
    pub fn doc(&self) -> Option<&str> {
        match self {
            Target::Doc(d) => Some(d),
            Target::Node { doc, .. }
            | Target::Path { doc, .. }
            | Target::Span { doc, .. }
            | Target::Page { doc, .. } => Some(doc),
            Target::Chunk(_) => None,
        }
    }
}

/// A row of results published by others, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    /// Who and what (`voyage-2 embeddings (Anthropic cookbook)`).
    pub system: String,
    /// Metric name as in our reports (`recall@5`, `span_iou@5`).
    pub metric: String,
    /// Value, 0 to 1.
    pub value: f64,
    /// Where the number comes from.
    pub source: String,
}

impl Dataset {
    /// Checks what every adapter must guarantee: unique document names, gold that names
    /// known documents, positive grades. The error names the first problem.
    pub fn validate(&self) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for d in &self.documents {
            if !names.insert(d.name.as_str()) {
                return Err(format!("document name {:?} appears twice", d.name));
            }
        }
        for q in &self.queries {
            if q.text.trim().is_empty() {
                return Err(format!("query {} is empty", q.id));
            }
            for g in &q.gold {
                if g.grade.is_nan() || g.grade <= 0.0 {
                    return Err(format!("query {}: gold grade {} is not positive", q.id, g.grade));
                }
                if let Some(doc) = g.target.doc() {
                    if !names.contains(doc) {
                        return Err(format!(
                            "query {}: gold names document {doc:?}, which the data set does not have",
                            q.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
