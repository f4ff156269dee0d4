//! Test-only documents: built by hand from text and heading lines, or read from the shared
//! corpus. The HTML readers and the chunker are written in parallel with enrichment, so this
//! module carries a tiny tag-stripping extractor and a naive chunker of its own; the corpus
//! tests use the crate's readers when they work.

use std::sync::LazyLock;

use regex::Regex;
use strata_core::{
    ceil_char_boundary, floor_char_boundary, Block, BlockKind, Chunk, ChunkKind, DocId, Document, Format,
    Page, PageRange, Source, Span,
};

use crate::read::{HeadingMark, Parsed, Reader};
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

/// Reads a corpus file (relative to the corpus folder): with the crate's reader when it
/// works, else with the test-only HTML extractor. `None` (after saying why) when the corpus
/// is absent.
pub(crate) fn corpus_doc(rel: &str) -> Option<Document> {
    let path = strata_core::testdata::shared(&format!("corpus/{rel}"))?;
    let bytes = std::fs::read(&path).unwrap();
    let ext = rel.rsplit('.').next().unwrap_or("");
    let format = Format::from_extension(ext).expect("known extension");
    let reader = crate::read::reader_for(format);
    let real = reader.and_then(|r| {
        let r: &dyn Reader = &*r;
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.read(&bytes)));
        out.ok().and_then(Result::ok)
    });
    let (parsed, how) = match real {
        Some(p) if !p.headings.is_empty() => (p, "crate reader"),
        _ if format == Format::Html => {
            (html_to_parsed(&String::from_utf8_lossy(&bytes)), "test-only HTML extractor")
        }
        _ => {
            eprintln!("skipping: no working reader for {rel}");
            return None;
        }
    };
    eprintln!("{rel}: read with the {how}: {} bytes, {} headings", parsed.text.len(), parsed.headings.len());
    let name = rel.rsplit('/').next().unwrap_or(rel);
    Some(from_parsed(name, format, parsed))
}

static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>|[^<]+|<").unwrap());
static ENTITY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);").unwrap());

/// A crude HTML to text extractor for tests: block tags end lines, headings become marks,
/// `pre`, `table` and `li` become blocks, entities are decoded, whitespace collapsed.
pub(crate) fn html_to_parsed(html: &str) -> Parsed {
    let mut text = String::with_capacity(html.len() / 2);
    let mut headings = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut skip = 0usize;
    let mut pre = 0usize;
    let mut heading: Option<(u32, usize)> = None;
    let mut open_block: Option<(BlockKind, usize, usize)> = None; // kind, start, depth
    let mut depth = 0usize;
    let newline = |text: &mut String, n: usize| {
        let trimmed = text.trim_end_matches([' ', '\t']).len();
        text.truncate(trimmed);
        if text.is_empty() {
            return;
        }
        let have = text.len() - text.trim_end_matches('\n').len();
        for _ in have..n {
            text.push('\n');
        }
    };
    for m in TOKEN.captures_iter(html) {
        let whole = m.get(0).unwrap().as_str();
        if whole.starts_with("<!--") {
            continue;
        }
        if let Some(tag) = m.get(2) {
            let closing = !m[1].is_empty();
            let tag = tag.as_str().to_ascii_lowercase();
            match tag.as_str() {
                "head" | "script" | "style" | "title" => {
                    if closing {
                        skip = skip.saturating_sub(1);
                    } else {
                        skip += 1;
                    }
                }
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                    newline(&mut text, 2);
                    let level = tag[1..].parse().unwrap();
                    if closing {
                        if let Some((level, start)) = heading.take() {
                            let end = text.trim_end().len().max(start);
                            let title = text[start..end].split_whitespace().collect::<Vec<_>>().join(" ");
                            if !title.is_empty() {
                                headings.push(HeadingMark {
                                    level,
                                    title,
                                    span: Span::new(start, end),
                                    number: None,
                                });
                            }
                        }
                        newline(&mut text, 2);
                    } else {
                        heading = Some((level, text.len()));
                    }
                }
                "pre" | "table" | "li" => {
                    let kind = match tag.as_str() {
                        "pre" => BlockKind::Code,
                        "table" => BlockKind::Table,
                        _ => BlockKind::ListItem,
                    };
                    newline(&mut text, if kind == BlockKind::ListItem { 1 } else { 2 });
                    if tag == "pre" {
                        pre = if closing { pre.saturating_sub(1) } else { pre + 1 };
                    }
                    if closing {
                        depth = depth.saturating_sub(1);
                        if let Some((k, start, d)) = open_block {
                            if k == kind && d == depth {
                                let end = text.len();
                                if end > start && blocks.last().is_none_or(|b| b.span.end <= start) {
                                    blocks.push(Block::new(k, Span::new(start, end)));
                                }
                                open_block = None;
                            }
                        }
                    } else {
                        if open_block.is_none() {
                            open_block = Some((kind, text.len(), depth));
                        }
                        depth += 1;
                    }
                }
                "p" | "div" | "br" | "tr" | "ul" | "ol" | "dl" | "dt" | "dd" | "section" | "blockquote"
                | "hr" => {
                    newline(
                        &mut text,
                        if matches!(tag.as_str(), "p" | "ul" | "ol" | "blockquote") { 2 } else { 1 },
                    );
                }
                "td" | "th" => text.push_str(" | "),
                _ => {}
            }
            continue;
        }
        if skip > 0 {
            continue;
        }
        let decoded = decode_entities(whole);
        if pre > 0 {
            text.push_str(&decoded);
        } else {
            let starts_space = decoded.starts_with(char::is_whitespace);
            let ends_space = decoded.ends_with(char::is_whitespace);
            let words: Vec<&str> = decoded.split_whitespace().collect();
            if words.is_empty() {
                if starts_space && !text.is_empty() && !text.ends_with([' ', '\n']) {
                    text.push(' ');
                }
                continue;
            }
            if starts_space && !text.is_empty() && !text.ends_with([' ', '\n']) {
                text.push(' ');
            }
            text.push_str(&words.join(" "));
            if ends_space {
                text.push(' ');
            }
        }
    }
    Parsed { text, headings, blocks, ..Parsed::default() }
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    ENTITY
        .replace_all(s, |c: &regex::Captures| {
            let e = &c[1];
            let ch = if let Some(hex) = e.strip_prefix("#x") {
                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
            } else if let Some(dec) = e.strip_prefix('#') {
                dec.parse().ok().and_then(char::from_u32)
            } else {
                match e {
                    "nbsp" => Some(' '),
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "ldquo" => Some('“'),
                    "rdquo" => Some('”'),
                    "lsquo" => Some('‘'),
                    "rsquo" => Some('’'),
                    "mdash" => Some('—'),
                    "ndash" => Some('–'),
                    "sect" => Some('§'),
                    "para" => Some('¶'),
                    _ => None,
                }
            };
            ch.map_or_else(|| c[0].to_string(), |ch| if ch == '\u{a0}' { " ".into() } else { ch.to_string() })
        })
        .into_owned()
}
