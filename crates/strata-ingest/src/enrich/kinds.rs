//! Chunk kinds: one per chunk, by precedence definition > requirement > table > code > list >
//! content.
//!
//! - `definition`: a definition starts inside the chunk (the caller knows; definitions are
//!   found once per document).
//! - `requirement`: `shall`, `must`, `required` (any case) or the RFC 2119 keywords `SHOULD`
//!   and `RECOMMENDED` in capitals, word-bounded, outside code blocks. `MAY` and lowercase
//!   `should` state a permission or advice, not a requirement.
//! - `table`, `code`, `list`: blocks of that kind cover more than half of the chunk's bytes.

use std::sync::LazyLock;

use regex::Regex;
use strata_core::{BlockKind, Chunk, ChunkKind, Document, Span};

static REQUIREMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?-u:\b)(?:(?i:shall|must|required)|SHOULD|RECOMMENDED)(?-u:\b)").unwrap());

/// The kind of a chunk. `has_definition` says whether a definition starts inside its span.
pub fn classify(doc: &Document, chunk: &Chunk, has_definition: bool) -> ChunkKind {
    if has_definition {
        return ChunkKind::Definition;
    }
    let span = chunk.span;
    if is_requirement(doc, span) {
        return ChunkKind::Requirement;
    }
    let [table, code, list] = coverage(doc, span, [BlockKind::Table, BlockKind::Code, BlockKind::ListItem]);
    let half = span.len() / 2;
    if table > half {
        ChunkKind::Table
    } else if code > half {
        ChunkKind::Code
    } else if list > half {
        ChunkKind::List
    } else {
        ChunkKind::Content
    }
}

/// True when `span` states a requirement outside code blocks.
pub fn is_requirement(doc: &Document, span: Span) -> bool {
    let Some(text) = doc.text.get(span.start..span.end) else { return false };
    REQUIREMENT.find_iter(text).any(|m| !in_code(doc, span.start + m.start()))
}

fn in_code(doc: &Document, offset: usize) -> bool {
    let i = doc.blocks.partition_point(|b| b.span.end <= offset);
    doc.blocks.get(i).is_some_and(|b| b.kind == BlockKind::Code && b.span.contains(offset))
}

/// Bytes of `span` covered by blocks of each of `kinds`.
fn coverage<const N: usize>(doc: &Document, span: Span, kinds: [BlockKind; N]) -> [usize; N] {
    let mut out = [0; N];
    let first = doc.blocks.partition_point(|b| b.span.end <= span.start);
    for b in doc.blocks[first..].iter().take_while(|b| b.span.start < span.end) {
        if let Some(k) = kinds.iter().position(|k| *k == b.kind) {
            out[k] += b.span.end.min(span.end) - b.span.start.max(span.start);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::testdoc::{chunk, doc};
    use strata_core::Block;

    fn kind_of(text: &str, blocks: &[(BlockKind, usize, usize)], has_def: bool) -> ChunkKind {
        let mut d = doc(text, &[]);
        d.blocks = blocks.iter().map(|&(kind, s, e)| Block::new(kind, Span::new(s, e))).collect();
        let c = chunk(&d, Span::new(0, text.len()), 0);
        classify(&d, &c, has_def)
    }

    #[test]
    fn requirement_keywords() {
        for text in [
            "The sender shall retry.",
            "A client MUST NOT send it.",
            "Clients SHOULD cache.",
            "This field is REQUIRED.",
            "The applicant is required to pay.",
            "It must be signed.",
            "Use of TLS is RECOMMENDED.",
            "The sender SHALL retry.",
        ] {
            assert_eq!(kind_of(text, &[], false), ChunkKind::Requirement, "{text}");
        }
        for text in [
            "A client MAY retry.",
            "You should see a prompt.",
            "Mustard and marshalling.",
            "Requirements are listed.",
        ] {
            assert_eq!(kind_of(text, &[], false), ChunkKind::Content, "{text}");
        }
    }

    #[test]
    fn requirement_inside_code_does_not_count() {
        let text = "Example:\nassert!(x, \"must be set\");\n";
        let code = (BlockKind::Code, 9, text.len());
        assert_eq!(kind_of(text, &[code], false), ChunkKind::Code);
        let text = "It must hold.\nlet x = 1; // must\n";
        assert_eq!(kind_of(text, &[(BlockKind::Code, 14, text.len())], false), ChunkKind::Requirement);
    }

    #[test]
    fn block_coverage_over_half() {
        let text = "intro\n| a | b |\n| 1 | 2 |\n";
        assert_eq!(kind_of(text, &[(BlockKind::Table, 6, text.len())], false), ChunkKind::Table);
        let text = "A long introduction paragraph.\n- a\n";
        assert_eq!(kind_of(text, &[(BlockKind::ListItem, 31, text.len())], false), ChunkKind::Content);
        let text = "- one\n- two\n- three\n";
        let items =
            [(BlockKind::ListItem, 0, 6), (BlockKind::ListItem, 6, 12), (BlockKind::ListItem, 12, 20)];
        assert_eq!(kind_of(text, &items, false), ChunkKind::List);
    }

    #[test]
    fn precedence() {
        let text = "\"X\" means a thing that MUST be set.";
        assert_eq!(kind_of(text, &[], true), ChunkKind::Definition);
        let text = "| x | MUST |\n";
        assert_eq!(kind_of(text, &[(BlockKind::Table, 0, text.len())], false), ChunkKind::Requirement);
        let text = "```\ncode\n```\n- a\n";
        let blocks = [(BlockKind::Code, 0, 13), (BlockKind::ListItem, 13, text.len())];
        assert_eq!(kind_of(text, &blocks, false), ChunkKind::Code);
    }
}
