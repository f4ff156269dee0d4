//! Chunks: token-bounded pieces of a section that tile its text.

use std::borrow::Borrow;

use serde::{Deserialize, Serialize};

use crate::{DocId, NodeId, PageRange, Span};

/// A chunk id, `DOC:ORDINAL` (see [`Chunk::make_id`]). Serialized as a plain string, and
/// compared, ordered and hashed as one. The HTTP API's schema documents the fields that hold
/// one as strings (`schema(value_type = String)`), so it has no schema of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChunkId(pub String);

impl ChunkId {
    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id of the chunk's document: what comes before the last `:` ([`Chunk::make_id`]).
    pub fn doc(&self) -> &str {
        self.0.rsplit_once(':').map_or(&self.0, |(doc, _)| doc)
    }
}

impl std::fmt::Display for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for ChunkId {
    /// Wraps an id read back from an index or a request.
    fn from(id: String) -> ChunkId {
        ChunkId(id)
    }
}

impl From<&str> for ChunkId {
    /// Copies an id read back from an index or a request.
    fn from(id: &str) -> ChunkId {
        ChunkId(id.to_string())
    }
}

impl AsRef<str> for ChunkId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Hashes and compares as its string, so maps keyed by `ChunkId` can be looked up by `&str`.
impl Borrow<str> for ChunkId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

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
    pub id: ChunkId,
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
    /// Source lines covered, in a document cited by line ([`crate::Document::first_line`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<crate::LineRange>,
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
    /// Read by OCR: a page it covers was a scan (see [`crate::Page::ocr`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// The mean word confidence (0–100) of its OCR'd page, the lowest when it covers several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<u8>,
}

impl Chunk {
    /// The id of chunk `ordinal` of `doc`.
    pub fn make_id(doc: &DocId, ordinal: u32) -> ChunkId {
        ChunkId(format!("{doc}:{ordinal}"))
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn a_chunk_id_is_a_plain_string_on_the_wire_and_in_maps() {
        let id = Chunk::make_id(&DocId("guide-1a2b3c4d".into()), 7);
        assert_eq!((id.as_str(), id.to_string().as_str()), ("guide-1a2b3c4d:7", "guide-1a2b3c4d:7"));
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, r#""guide-1a2b3c4d:7""#);
        assert_eq!(serde_json::from_str::<ChunkId>(&json).unwrap(), id);
        let ranks: HashMap<ChunkId, usize> = HashMap::from([(id.clone(), 1)]);
        assert_eq!(ranks.get("guide-1a2b3c4d:7"), Some(&1), "looked up by &str");
        assert!(ChunkId::from("a:10") < ChunkId::from("a:9"), "ordered as strings");
    }
}
