//! Test-only documents: built by hand from text and heading lines, or read from the shared
//! corpus with the crate's readers; and a naive chunker, so that enrichment is tested apart
//! from the chunker.

use strata_core::{
    ceil_char_boundary, floor_char_boundary, Chunk, ChunkKind, DocId, Document, Format, Page, PageRange,
    Source, Span,
};

use crate::read::{HeadingMark, Parsed};
use crate::tree::build_tree;

/// A document from `text` whose headings are the given lines (level, exact line text), found
/// in order in the text.
pub(crate) fn doc(text: &str, headings: &[(u32, &str)]) -> Document {
    let mut marks = Vec::new();
    let mut from = 0;
    for &(level, line) in headings {
        let at = from + text[from..].find(line).unwrap_or_else(|| panic!("heading {line:?} not in text"));
        marks.push(HeadingMark {
            level,
            title: line.trim().to_string(),
            span: Span::new(at, at + line.len()),
            number: None,
        });
        from = at + line.len();
    }
    let parsed = Parsed { text: text.to_string(), headings: marks, ..Parsed::default() };
    from_parsed("test", Format::Text, parsed)
}

/// A document from a reader's output.
pub(crate) fn from_parsed(name: &str, format: Format, parsed: Parsed) -> Document {
    let len = parsed.text.len();
    let pages = vec![Page { number: 1, label: None, span: Span::new(0, len), ocr: None }];
    let title = parsed.title.clone().unwrap_or_else(|| name.to_string());
    let tree = build_tree(&title, len, &parsed.headings, &pages);
    Document {
        id: DocId(name.to_string()),
        source: Source {
            path: name.to_string(),
            format,
            content_hash: String::new(),
            size: len as u64,
            mtime: None,
        },
        title,
        text: parsed.text,
        pages,
        blocks: parsed.blocks,
        tree,
        metadata: Default::default(),
        lead: String::new(),
        warnings: parsed.warnings,
        first_line: parsed.first_line,
        annotations: Vec::new(),
    }
}

/// A chunk of `doc` over `span`.
pub(crate) fn chunk(doc: &Document, span: Span, ordinal: u32) -> Chunk {
    let node = doc.tree.node_at(span.start);
    Chunk {
        id: Chunk::make_id(&doc.id, ordinal),
        doc: doc.id.clone(),
        node,
        ordinal,
        span,
        overlap_start: span.start,
        pages: PageRange::single(1),
        lines: doc.cited_lines(span),
        tokens: (span.len() / 4) as u32,
        kind: ChunkKind::Content,
        heading_path: doc.tree.heading_path(node),
        defines: vec![],
        uses: vec![],
        references: vec![],
        context: None,
        ocr: false,
        ocr_confidence: None,
    }
}

/// Naive chunks: each node's own span cut into pieces of about `max` bytes at line ends.
pub(crate) fn chunks(doc: &Document, max: usize) -> Vec<Chunk> {
    let mut out = Vec::new();
    for n in doc.tree.nodes() {
        let mut start = n.own.start;
        while start < n.own.end {
            let mut end = floor_char_boundary(&doc.text, (start + max).min(n.own.end));
            if end < n.own.end {
                let line_end = doc.text[start..end].rfind('\n').map_or(end, |i| start + i + 1);
                end = ceil_char_boundary(&doc.text, line_end);
            }
            out.push(chunk(doc, Span::new(start, end), out.len() as u32));
            start = end;
        }
    }
    out
}

/// Reads a corpus file (relative to the corpus folder) with the crate's reader, which must
/// find its headings. `None` (after saying why) when the corpus is absent.
pub(crate) fn corpus_doc(rel: &str) -> Option<Document> {
    let path = strata_core::testdata::shared(&format!("corpus/{rel}"))?;
    let bytes = std::fs::read(&path).unwrap();
    let ext = rel.rsplit('.').next().unwrap_or("");
    let format = Format::from_extension(ext).expect("known extension");
    let reader = crate::read::reader_for(format).unwrap_or_else(|| panic!("no reader for {rel}"));
    let parsed = reader.read(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert!(!parsed.headings.is_empty(), "{rel}: the reader found no headings");
    eprintln!("{rel}: {} bytes, {} headings", parsed.text.len(), parsed.headings.len());
    let name = rel.rsplit('/').next().unwrap_or(rel);
    Some(from_parsed(name, format, parsed))
}
