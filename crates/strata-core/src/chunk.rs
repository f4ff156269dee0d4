//! Chunks: token-bounded pieces of a section that tile its text.

use serde::{Deserialize, Serialize};

use crate::{DocId, NodeId, PageRange, Span};

/// What a chunk mostly is. One kind per chunk, chosen by enrichment in this order of
/// precedence: definition, requirement, table, code, list, content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChunkKind {
    /// Ordinary prose.
    #[default]
    Content,
    /// Defines one or more terms.
    Definition,
    /// States a requirement (shall, must, required, RFC 2119 keywords).
    Requirement,
    /// Mostly a table.
    Table,
    /// Mostly code or preformatted text.
    Code,
    /// Mostly list items.
    List,
}

impl ChunkKind {
    /// All kinds, for parsing and help text.
    pub const ALL: [ChunkKind; 6] = [
        ChunkKind::Content,
        ChunkKind::Definition,
        ChunkKind::Requirement,
        ChunkKind::Table,
        ChunkKind::Code,
        ChunkKind::List,
    ];

    /// Lowercase name.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkKind::Content => "content",
            ChunkKind::Definition => "definition",
            ChunkKind::Requirement => "requirement",
            ChunkKind::Table => "table",
            ChunkKind::Code => "code",
            ChunkKind::List => "list",
        }
    }

    /// Parses a lowercase name.
    pub fn parse(s: &str) -> Option<ChunkKind> {
        ChunkKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// A token-bounded piece of one section.
///
/// `span` is the chunk's own text: the spans of a section's chunks are adjacent and together
/// cover the section's own span exactly. `overlap_start` reaches back into the previous chunk
/// of the same section (at most the configured overlap, on a sentence boundary) and is used
/// only for indexing, so that a passage cut in two is still found whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// `DOC:ORDINAL`.
    pub id: String,
    /// The document.
    pub doc: DocId,
    /// The section it belongs to.
    pub node: NodeId,
    /// Position among the document's chunks, from 0.
    pub ordinal: u32,
    /// The chunk's own text (tiling).
    pub span: Span,
    /// Start of the indexed text, `<= span.start`.
    pub overlap_start: usize,
    /// Pages touched.
    pub pages: PageRange,
    /// Tokens in `span`, by the index's tokenizer.
    pub tokens: u32,
    /// Kind.
    pub kind: ChunkKind,
    /// Heading path titles from the top section down.
    pub heading_path: Vec<String>,
    /// Normalized terms defined in this chunk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    /// Normalized defined terms of the document that this chunk uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<String>,
    /// Indexes into the document's reference list of the references inside this chunk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<u32>,
    /// Generated context (contextual retrieval), stored apart from the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl Chunk {
    /// The id of chunk `ordinal` of `doc`.
    pub fn make_id(doc: &DocId, ordinal: u32) -> String {
        format!("{doc}:{ordinal}")
    }

    /// The span that is indexed: the overlap plus the chunk's own text.
    pub fn indexed_span(&self) -> Span {
        Span::new(self.overlap_start, self.span.end)
    }

    /// What the keyword legs index for this chunk of `doc_text`: its context, when it has
    /// one, on a line before the overlap and the chunk's own text.
    pub fn indexed_text<'t>(&self, doc_text: &'t str) -> std::borrow::Cow<'t, str> {
        let indexed = self.indexed_span().slice(doc_text);
        match &self.context {
            Some(context) => format!("{context}\n{indexed}").into(),
            None => indexed.into(),
        }
    }
}
