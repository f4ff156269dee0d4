//! Lines to the document text: paragraphs, hyphenated line ends joined, page breaks.
//!
//! A new paragraph starts at the top of a page, at a line that crosses a column gutter (or
//! follows one), after a vertical gap wider than [`PARAGRAPH_GAP`] times the line's size,
//! where the text moves up inside a column, and where the size or the weight changes (a
//! heading). Paragraphs are separated by a blank line, lines inside one by a line end. A line
//! that ends in a letter and a hyphen, followed by a line that starts with a lower-case letter,
//! is joined without the hyphen (`exam-` `ple` → `example`), or with it when the word is a
//! compound already (`end-to-` `end`); never across a page.
//!
//! The rows of one table (see `tables`) are one paragraph, a line each, which becomes a
//! table block with its header rows.

use strata_core::{Block, BlockKind, Span};

use super::layout::Line;
use super::PageLines;
use crate::read::HeadingMark;

/// Vertical gap between baselines, in units of the line's size, above which a paragraph ends.
const PARAGRAPH_GAP: f32 = 1.65;

/// A line as placed in the document text.
#[derive(Debug, Clone)]
pub(crate) struct LineRef {
    /// The line's text in [`PageText::text`].
    pub span: Span,
    /// 0-based page.
    pub page: usize,
    pub size: f32,
    pub bold: bool,
    /// It starts bold (see [`super::layout::Line::lead_bold`]).
    pub lead_bold: bool,
    pub font: u32,
    /// Index of its paragraph in [`PageText::paragraphs`].
    pub paragraph: usize,
    /// It is a row of a table.
    pub table: bool,
}

/// A table's paragraph and the end of its header rows (its start when it has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TableText {
    pub paragraph: usize,
    pub header_end: usize,
}

/// The assembled text.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageText {
    pub text: String,
    pub page_breaks: Vec<usize>,
    pub lines: Vec<LineRef>,
    /// Paragraph spans, in order; each is one or more whole lines.
    pub paragraphs: Vec<Span>,
    /// The paragraphs that are tables, in order.
    pub tables: Vec<TableText>,
    /// The most common glyph size of the text, weighted by characters.
    pub body_size: f32,
    /// The most common font of the text, weighted by characters.
    pub body_font: u32,
}

impl PageText {
    /// The lines of paragraph `p`.
    pub fn lines_of(&self, p: usize) -> impl Iterator<Item = &LineRef> {
        let start = self.lines.partition_point(|l| l.paragraph < p);
        self.lines[start..].iter().take_while(move |l| l.paragraph == p)
    }

    /// The text of a line.
    pub fn line_text(&self, l: &LineRef) -> &str {
        &self.text[l.span.start..l.span.end]
    }
}

/// Joins the pages' lines into one text.
pub(crate) fn assemble(pages: &[PageLines]) -> PageText {
    let mut out =
        PageText { body_size: body_size(pages), body_font: body_font(pages), ..PageText::default() };
    for (page, p) in pages.iter().enumerate() {
        if page > 0 {
            if out.text.is_empty() {
                // Leading empty pages: a line end keeps every page start inside the text.
                out.text.push('\n');
            }
            out.page_breaks.push(out.text.len());
        }
        let mut prev: Option<&Line> = None;
        for line in &p.lines {
            let new_paragraph = match prev {
                None => true,
                Some(a) => match (a.row, line.row) {
                    (Some(x), Some(y)) => x.table != y.table,
                    (None, None) => breaks(a, line),
                    _ => true,
                },
            };
            if new_paragraph {
                // A paragraph of this page ends here; one of an earlier page was closed when
                // its page ended.
                if let (Some(last), Some(_)) = (out.paragraphs.last_mut(), prev) {
                    last.end = out.text.len();
                }
                if prev.is_some() {
                    trim_end(&mut out.text);
                    out.text.push_str("\n\n");
                }
                out.paragraphs.push(Span::new(out.text.len(), out.text.len()));
            } else if let Some(hyphen) = joins(&out.text, &line.text).filter(|_| line.row.is_none()) {
                if !hyphen {
                    out.text.pop();
                    // The line that lost its hyphen ends where the text now ends.
                    if let Some(last) = out.lines.last_mut() {
                        last.span.end = out.text.len();
                    }
                }
            } else {
                out.text.push('\n');
            }
            let start = out.text.len();
            out.text.push_str(&line.text);
            let paragraph = out.paragraphs.len() - 1;
            if let Some(row) = line.row {
                if new_paragraph {
                    out.tables.push(TableText { paragraph, header_end: start });
                }
                if let Some(t) = out.tables.last_mut().filter(|_| row.header) {
                    t.header_end = out.text.len();
                }
            }
            out.lines.push(LineRef {
                span: Span::new(start, out.text.len()),
                page,
                size: line.size,
                bold: line.bold,
                lead_bold: line.lead_bold,
                font: line.font,
                paragraph,
                table: line.row.is_some(),
            });
            prev = Some(line);
        }
        if !p.lines.is_empty() {
            if let Some(last) = out.paragraphs.last_mut() {
                last.end = out.text.len();
            }
            out.text.push_str("\n\n");
        }
    }
    trim_end(&mut out.text);
    out.text.push('\n');
    // Trailing empty pages have no text to start in.
    let len = out.text.len();
    for p in &mut out.paragraphs {
        p.end = p.end.min(len);
    }
    out.page_breaks.retain(|&b| b < len);
    out
}

fn trim_end(text: &mut String) {
    let keep = text.trim_end_matches([' ', '\n']).len();
    text.truncate(keep);
}

fn breaks(a: &Line, b: &Line) -> bool {
    if a.column == 2 || b.column == 2 {
        return true;
    }
    if a.column != b.column {
        return false; // bottom of the left column to the top of the right one
    }
    let em = a.size.max(b.size).max(1.0);
    let gap = a.y - b.y;
    gap > PARAGRAPH_GAP * em
        || gap < -0.5 * em
        || (a.size - b.size).abs() > 0.12 * em
        || a.bold != b.bold
        || a.font != b.font
}

/// Whether `next` continues a word hyphenated at the end of `text` (a letter and a hyphen,
/// then a lower-case letter): `Some(false)` drops the hyphen (`exam-` `ple`), `Some(true)`
/// keeps it because the word is a compound already (`end-to-` `end`).
fn joins(text: &str, next: &str) -> Option<bool> {
    let mut tail = text.chars().rev();
    let split = tail.next() == Some('-')
        && tail.next().is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase);
    if !split {
        return None;
    }
    let word = text[..text.len() - 1].rsplit(char::is_whitespace).next().unwrap_or("");
    Some(word.contains('-'))
}

fn body_size(pages: &[PageLines]) -> f32 {
    let mut weights: Vec<(i32, usize)> = Vec::new();
    for l in pages.iter().flat_map(|p| &p.lines) {
        let key = (l.size * 2.0).round() as i32;
        match weights.iter_mut().find(|w| w.0 == key) {
            Some(w) => w.1 += l.text.len(),
            None => weights.push((key, l.text.len())),
        }
    }
    weights.iter().max_by_key(|w| w.1).map_or(10.0, |w| w.0 as f32 / 2.0)
}

fn body_font(pages: &[PageLines]) -> u32 {
    let mut weights: Vec<(u32, usize)> = Vec::new();
    for l in pages.iter().flat_map(|p| &p.lines) {
        match weights.iter_mut().find(|w| w.0 == l.font) {
            Some(w) => w.1 += l.text.len(),
            None => weights.push((l.font, l.text.len())),
        }
    }
    weights.iter().max_by_key(|w| w.1).map_or(0, |w| w.0)
}

/// Blocks: each paragraph, as a table when it is one, as a heading when a heading covers
/// all of it.
pub(crate) fn blocks(text: &PageText, headings: &[HeadingMark]) -> Vec<Block> {
    let mut h = headings.iter().peekable();
    let mut tables = text.tables.iter().peekable();
    text.paragraphs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.end > p.start)
        .map(|(i, p)| {
            while tables.peek().is_some_and(|t| t.paragraph < i) {
                tables.next();
            }
            if let Some(t) = tables.peek().filter(|t| t.paragraph == i) {
                return Block::table(*p, t.header_end);
            }
            while h.peek().is_some_and(|m| m.span.end <= p.start) {
                h.next();
            }
            let heading = h.peek().is_some_and(|m| m.span.start <= p.start && m.span.end >= p.end);
            Block::new(if heading { BlockKind::Heading } else { BlockKind::Paragraph }, *p)
        })
        .collect()
}
