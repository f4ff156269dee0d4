//! Markdown: CommonMark + GFM, read with pulldown-cmark's offset iterator.
//!
//! The text of a Markdown document is its source (normalized line ends, front matter
//! removed), so that a chunk shows exactly what the author wrote. Headings come from the
//! parser, so `#` lines inside code fences are not headings, and setext headings are.
//!
//! pulldown-cmark holds a tree of a whole document's blocks while it parses it. A document
//! over [`SEGMENT_BYTES`] is parsed in segments instead, each cut before an ATX heading at
//! the start of a line outside fenced code and HTML blocks, where no block of CommonMark runs
//! on ([`segments`]); a reference-style link then resolves only to a definition in its own
//! segment. Headings are kept to [`ReadLimits::max_headings`] as they are found.

mod segments;

use std::collections::BTreeMap;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use strata_core::{Block, BlockKind, Format, Span};

use segments::segments;

use super::limits::merge_dropped;
use super::{decode::decode, HeadingCap, HeadingMark, Parsed, ReadError, ReadLimits, Reader};

/// CommonMark + GFM (tables, strikethrough, task lists, footnotes).
pub struct MarkdownReader;

impl Reader for MarkdownReader {
    fn format(&self) -> Format {
        Format::Markdown
    }

    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError> {
        let (source, warnings) = decode(bytes)?;
        let mut parsed = Parsed { warnings, ..Parsed::default() };
        let (body, metadata, meta_warning) = split_front_matter(&source);
        parsed.metadata = metadata;
        parsed.warnings.extend(meta_warning);
        // The body is a suffix of the source: its first line follows the front matter's.
        let front = &source[..source.len() - body.len()];
        parsed.first_line = Some(1 + front.matches('\n').count() as u32);
        parsed.text = body.to_string();
        drop(source);
        read_structure(&mut parsed, limits);
        if parsed.text.trim().is_empty() {
            return Err(ReadError::Empty);
        }
        parsed.title = parsed
            .metadata
            .get("title")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .or_else(|| document_title(&parsed.headings));
        Ok(parsed)
    }
}

/// The first heading at the document's shallowest level that is not a table of contents
/// ("Contents" at the top of a guide names nothing).
fn document_title(headings: &[HeadingMark]) -> Option<String> {
    let top = headings.iter().map(|h| h.level).min()?;
    headings
        .iter()
        .filter(|h| h.level == top)
        .find(|h| !matches!(h.title.to_ascii_lowercase().as_str(), "contents" | "table of contents" | "toc"))
        .map(|h| h.title.clone())
}

/// Splits YAML (`---`) or TOML (`+++`) front matter from the body.
fn split_front_matter(source: &str) -> (&str, BTreeMap<String, serde_json::Value>, Option<String>) {
    let mut metadata = BTreeMap::new();
    for (fence, kind) in [("---", "yaml"), ("+++", "toml")] {
        let Some(rest) = source.strip_prefix(fence).and_then(|r| r.strip_prefix('\n')) else {
            continue;
        };
        let close = format!("\n{fence}");
        let Some(end) = rest.find(&close).map(|i| i + 1).or_else(|| rest.starts_with(fence).then_some(0))
        else {
            continue;
        };
        let after = &rest[end + fence.len()..];
        let after_line = after.find('\n').map(|i| i + 1).unwrap_or(after.len());
        if !after[..after_line].trim().is_empty() {
            continue;
        }
        let raw = &rest[..end];
        let body = &after[after_line..];
        let value: Result<serde_json::Value, String> = match kind {
            "yaml" => serde_yaml::from_str::<serde_json::Value>(raw).map_err(|e| e.to_string()),
            _ => toml::from_str::<toml::Value>(raw)
                .map_err(|e| e.to_string())
                .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string())),
        };
        return match value {
            Ok(serde_json::Value::Object(map)) => {
                metadata.extend(map);
                (body, metadata, None)
            }
            Ok(serde_json::Value::Null) => (body, metadata, None),
            Ok(_) => (body, metadata, Some(format!("{kind} front matter is not a mapping; ignored"))),
            Err(e) => {
                (body, metadata, Some(format!("{kind} front matter could not be parsed ({e}); ignored")))
            }
        };
    }
    (source, metadata, None)
}

/// Documents longer than this are parsed in [`segments`] of about this size.
const SEGMENT_BYTES: usize = 8 << 20;

fn read_structure(parsed: &mut Parsed, limits: &ReadLimits) {
    let ((headings, dropped), blocks) = structure(&parsed.text, limits, SEGMENT_BYTES);
    (parsed.headings, parsed.dropped_headings, parsed.blocks) = (headings, dropped, blocks);
}

/// The headings kept and dropped, and the top-level blocks of `text`, parsed in segments of
/// about `segment` bytes.
fn structure(text: &str, limits: &ReadLimits, segment: usize) -> ((Vec<HeadingMark>, usize), Vec<Block>) {
    let mut headings = HeadingCap::new(limits.max_headings);
    let mut blocks = Vec::new();
    for segment in segments(text, segment) {
        read_segment(text, segment, &mut headings, &mut blocks);
        if headings.dropped() > 0 {
            merge_dropped(text, &mut blocks, headings.marks());
        }
    }
    blocks.sort_by_key(|b| b.span.start);
    // Drop blocks that overlap an earlier one (defensive: parser ranges of nested items).
    let mut last_end = 0;
    blocks.retain(|b| {
        let keep = b.span.start >= last_end;
        if keep {
            last_end = b.span.end;
        }
        keep
    });
    let (kept, dropped) = headings.finish();
    if dropped > 0 {
        merge_dropped(text, &mut blocks, &kept);
    }
    ((kept, dropped), blocks)
}

/// The headings and top-level blocks of `text[segment]`, spans in `text`.
fn read_segment(
    text: &str,
    segment: std::ops::Range<usize>,
    headings: &mut HeadingCap,
    blocks: &mut Vec<Block>,
) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let at = segment.start;
    // Depth of block containers, so that only top-level blocks (and list items of top-level
    // lists) are recorded.
    let mut depth = 0usize;
    let mut list_depth = 0usize;
    let mut heading: Option<(u32, Span, String)> = None;
    for (event, range) in Parser::new_ext(&text[segment], options).into_offset_iter() {
        let span = Span::new(at + range.start, at + range.end);
        match event {
            Event::Start(tag) => {
                match &tag {
                    Tag::Heading { level, .. } if depth == 0 => {
                        heading = Some((heading_level(*level), span, String::new()));
                    }
                    Tag::List(_) => list_depth += 1,
                    Tag::Item if list_depth == 1 && depth == 1 => {
                        blocks.push(Block::new(BlockKind::ListItem, trim_end(text, span)));
                    }
                    _ => {}
                }
                if depth == 0 {
                    let kind = match tag {
                        Tag::Paragraph => Some(BlockKind::Paragraph),
                        Tag::Table(_) => Some(BlockKind::Table),
                        Tag::CodeBlock(_) => Some(BlockKind::Code),
                        Tag::BlockQuote(_) => Some(BlockKind::Quote),
                        Tag::HtmlBlock => Some(BlockKind::Other),
                        Tag::Heading { .. } => Some(BlockKind::Heading),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        blocks.push(Block::headed(kind, trim_end(text, span), text));
                    }
                }
                if is_container(&tag) {
                    depth += 1;
                }
            }
            Event::End(end) => {
                if let TagEnd::List(_) = end {
                    list_depth -= 1;
                }
                if is_container_end(&end) {
                    depth = depth.saturating_sub(1);
                }
                if let TagEnd::Heading(_) = end {
                    if let Some((level, span, title)) = heading.take() {
                        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                        headings.push(HeadingMark { level, title, span: trim_end(text, span), number: None });
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, title)) = heading.as_mut() {
                    title.push(' ');
                }
            }
            Event::Rule if depth == 0 => blocks.push(Block::new(BlockKind::Other, trim_end(text, span))),
            _ => {}
        }
    }
}

fn is_container(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Item
            | Tag::FootnoteDefinition(_)
            | Tag::Table(_)
            | Tag::DefinitionList
            | Tag::MetadataBlock(_)
    )
}

fn is_container_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::FootnoteDefinition
            | TagEnd::Table
            | TagEnd::DefinitionList
            | TagEnd::MetadataBlock(_)
    )
}

fn heading_level(level: HeadingLevel) -> u32 {
    level as u32
}

fn trim_end(text: &str, span: Span) -> Span {
    let s = &text[span.start..span.end];
    Span::new(span.start, span.start + s.trim_end().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Parsed {
        MarkdownReader.read(s.as_bytes()).unwrap()
    }

    /// 60 MB of `# a` lines took 4.3 GB: every heading was held, and pulldown-cmark held the
    /// tree of the whole document. Headings are kept to the cap as they are found.
    #[test]
    fn regression_a_heading_bomb_keeps_max_sections_as_it_reads() {
        let limits = ReadLimits { max_headings: 10, ..ReadLimits::default() };
        let p = MarkdownReader.read_with("# a\n## b\n".repeat(5_000).as_bytes(), &limits).unwrap();
        assert_eq!((p.headings.len(), p.dropped_headings), (10, 9_990));
        assert!(p.headings.iter().all(|h| h.level == 1));
        assert_eq!(p.headings[9].span.start, 9 * 9, "the first ten of level 1, in order");
        // The lines of the dropped headings are one block of text after the last one kept.
        let tail =
            p.blocks.iter().filter(|b| b.span.start >= 81).map(|b| (b.kind, b.span)).collect::<Vec<_>>();
        assert_eq!(
            tail,
            [(BlockKind::Heading, Span::new(81, 84)), (BlockKind::Other, Span::new(85, p.text.len() - 1))]
        );
    }

    /// A document parsed in segments reads as it does whole: its headings and blocks are the
    /// same, whatever the fences, HTML blocks, lists and quotes around the places it is cut.
    #[test]
    fn segments_read_as_the_whole_document_does() {
        let part = "# Title\n\nSome *text* here.\n\n- a list\n- of items\n# Not a list item\n\n\
                    > quoted\n# after a quote\n```\n# in code\n```\n<div>\n# in html\n\n## Two\n\n\
                    | a | b |\n|---|---|\n| 1 | 2 |\n# after a table\ntext\n===\n    # indented code\n";
        let text = part.repeat(20);
        let limits = ReadLimits::default();
        let (whole, whole_blocks) = structure(&text, &limits, usize::MAX);
        assert!(whole.0.len() > 100);
        for size in [1, 64, 300] {
            assert!(segments(&text, size).len() > 1);
            let (cut, cut_blocks) = structure(&text, &limits, size);
            assert_eq!(cut, whole, "segments of {size} bytes");
            assert_eq!(cut_blocks, whole_blocks, "segments of {size} bytes");
        }
    }

    #[test]
    fn atx_and_setext_headings() {
        let p = read("# One\n\ntext\n\nTwo\n---\n\nmore\n");
        let titles: Vec<_> = p.headings.iter().map(|h| (h.level, h.title.as_str())).collect();
        assert_eq!(titles, [(1, "One"), (2, "Two")]);
        assert_eq!(p.headings[1].span.slice(&p.text), "Two\n---");
    }

    #[test]
    fn headings_inside_code_fences_are_not_headings() {
        let p = read("# Real\n\n```yaml\n# comment\nkey: 1\n```\n");
        assert_eq!(p.headings.len(), 1);
        assert!(p.blocks.iter().any(|b| b.kind == BlockKind::Code));
    }

    #[test]
    fn yaml_front_matter_becomes_metadata() {
        let p = read("---\ntitle: Guide\ntags: [a, b]\n---\n# Intro\n\nbody\n");
        assert_eq!(p.metadata["title"], "Guide");
        assert_eq!(p.title.as_deref(), Some("Guide"));
        assert!(p.text.starts_with("# Intro"));
    }

    #[test]
    fn toml_front_matter_becomes_metadata() {
        let p = read("+++\ntitle = \"T\"\n+++\nbody text\n");
        assert_eq!(p.metadata["title"], "T");
        assert_eq!(p.text, "body text\n");
    }

    #[test]
    fn the_text_starts_on_the_line_after_the_front_matter() {
        assert_eq!(read("---\ntitle: Guide\n---\n# Intro\n").first_line, Some(4));
        assert_eq!(read("+++\ntitle = \"T\"\n+++\n\nbody\n").first_line, Some(4));
        assert_eq!(read("# Intro\n\nbody\n").first_line, Some(1));
        assert_eq!(read("---\nnot: [closed\n# Intro\n").first_line, Some(1), "no front matter");
    }

    #[test]
    fn tables_and_lists_are_known() {
        let p = read("| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n");
        let kinds: Vec<_> = p.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BlockKind::Table, BlockKind::ListItem, BlockKind::ListItem]);
    }

    #[test]
    fn title_is_the_first_top_heading_that_is_not_a_toc() {
        assert_eq!(read("## Contents\n\n## Guide\n\n### x\n").title.as_deref(), Some("Guide"));
        assert_eq!(read("## Pattern Syntax\n\n### Literals\n").title.as_deref(), Some("Pattern Syntax"));
    }

    #[test]
    fn heading_title_drops_markup() {
        let p = read("## The `Foo` *object* {#foo}\n");
        assert_eq!(p.headings[0].title, "The Foo object");
    }
}
