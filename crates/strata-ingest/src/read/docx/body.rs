//! The body walk: `w:body` to text, blocks and heading marks, in document order.
//!
//! The walk keeps an explicit stack of block-level nodes, so deeply nested content controls
//! (`w:sdt`) or text boxes do not touch the call stack. Each block becomes one
//! [`strata_core::Block`]:
//!
//! - a paragraph with an outline level is a heading (see [`super::styles`]), on one line,
//!   with its list number in front as Word draws it (`1.2 Scope`);
//! - a numbered or bulleted paragraph is a list item with its number (`a.`, `3.`) or `- `;
//!   consecutive items are one line apart;
//! - a table is one block, one line per row, cells joined by ` | ` (nested tables flatten
//!   into their cell);
//! - any other paragraph with text is a paragraph; blocks are a blank line apart.
//!
//! Footnotes referenced in a section are written at its end, before the next heading, as
//! `[^1] text` lines, numbered in order of first reference as Word numbers them.

use std::collections::HashMap;

use roxmltree::Node;
use strata_core::{Block, BlockKind, SectionNumber, Span};
use strata_text::number;

use super::inline::{one_line, runs, Mode};
use super::notes::Notes;
use super::numbering::{Counters, Numbering, Rendered};
use super::styles::{NumPr, Styles};
use super::xml::{child_num, child_val, is, is_w, w_child, MC};
use crate::read::limits::merge_dropped;
use crate::read::{HeadingCap, HeadingMark};

/// What the walk reads a document with.
pub(super) struct Context<'a> {
    pub styles: &'a Styles,
    pub numbering: &'a Numbering,
    pub notes: &'a Notes,
    /// Headings come from outline levels (the document has some); otherwise from the
    /// built-in heading styles.
    pub by_outline: bool,
    /// Headings kept at most ([`HeadingCap`]).
    pub max_headings: usize,
}

/// What the walk found.
#[derive(Debug, Default)]
pub(super) struct Walked {
    pub text: String,
    pub blocks: Vec<Block>,
    pub headings: Vec<HeadingMark>,
    /// Headings found past `max_headings`, read as text.
    pub dropped_headings: usize,
    /// The text of the first run of `Title`-style paragraphs.
    pub title: Option<String>,
}

/// Walks `w:body`.
pub(super) fn walk(body: Node<'_, '_>, ctx: &Context<'_>) -> Walked {
    let mut walker = Walker::default_with(ctx);
    walker.body(body);
    walker.finish()
}

impl Walker<'_, '_> {
    /// Reads the block-level children of `body` (the whole body, or one segment of it:
    /// [`super::segments`]) after those read before.
    pub(super) fn body(&mut self, body: Node<'_, '_>) {
        let mut stack: Vec<Node<'_, '_>> = body.children().filter(Node::is_element).collect();
        stack.reverse();
        while let Some(node) = stack.pop() {
            if is_w(node, "p") {
                let boxes = self.paragraph(node);
                for text_box in boxes.iter().rev() {
                    stack.extend(
                        text_box.children().filter(Node::is_element).collect::<Vec<_>>().into_iter().rev(),
                    );
                }
            } else if is_w(node, "tbl") {
                self.table(node);
            } else if !skipped_block(node) {
                // Content controls, custom XML, tracked insertions, `mc:Choice`: their children
                // are blocks of the body.
                stack.extend(node.children().filter(Node::is_element).collect::<Vec<_>>().into_iter().rev());
            }
        }
    }

    /// What the walk found, once the whole body is read.
    pub(super) fn finish(mut self) -> Walked {
        self.flush_notes(usize::MAX);
        let title = (!self.title.is_empty()).then(|| self.title.join(" "));
        let (headings, dropped_headings) = self.out.headings.finish();
        let mut blocks = self.out.blocks;
        if dropped_headings > 0 {
            merge_dropped(&self.out.text, &mut blocks, &headings);
        }
        Walked { text: self.out.text, blocks, headings, dropped_headings, title }
    }
}

/// Block-level elements with nothing to read: section properties, deleted or moved-away
/// content, the fallback copy of alternate content.
fn skipped_block(node: Node<'_, '_>) -> bool {
    is(node, MC, "Fallback")
        || ["sectPr", "del", "moveFrom", "sdtPr", "sdtEndPr", "tblPr", "tblGrid"]
            .iter()
            .any(|n| is_w(node, n))
}

/// How a block is separated from the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heading,
    Paragraph,
    Item,
    Table,
    Note,
}

impl Kind {
    fn block(self) -> BlockKind {
        match self {
            Kind::Heading => BlockKind::Heading,
            Kind::Paragraph | Kind::Note => BlockKind::Paragraph,
            Kind::Item => BlockKind::ListItem,
            Kind::Table => BlockKind::Table,
        }
    }
}

/// The text being written and the blocks and headings in it.
#[derive(Debug)]
struct Writer {
    text: String,
    blocks: Vec<Block>,
    headings: HeadingCap,
    last: Option<Kind>,
}

impl Writer {
    fn new(max_headings: usize) -> Writer {
        Writer {
            text: String::new(),
            blocks: Vec::new(),
            headings: HeadingCap::new(max_headings),
            last: None,
        }
    }

    /// Writes one block (non-empty, already normalized) and returns its span.
    fn block(&mut self, kind: Kind, content: &str) -> Span {
        if let Some(last) = self.last {
            let tight = last == kind && matches!(kind, Kind::Item | Kind::Note);
            self.text.push_str(if tight { "\n" } else { "\n\n" });
        }
        let start = self.text.len();
        self.text.push_str(content);
        let span = Span::new(start, self.text.len());
        self.blocks.push(Block::headed(kind.block(), span, &self.text));
        self.last = Some(kind);
        span
    }
}

/// Footnote numbering and the notes waiting for the end of their section.
#[derive(Debug, Default)]
struct NoteState {
    numbers: HashMap<String, u32>,
    pending: Vec<(u32, String)>,
}

impl NoteState {
    /// The marker for a reference to note `id`, queuing the note on its first reference.
    fn marker(&mut self, notes: &Notes, id: &str) -> Option<String> {
        let text = notes.get(id)?;
        let next = self.numbers.len() as u32 + 1;
        let n = *self.numbers.entry(id.to_string()).or_insert_with(|| {
            self.pending.push((next, text.to_string()));
            next
        });
        Some(format!("[^{n}]"))
    }
}

/// The walk's state between blocks: what it wrote, list counters, notes, the title.
pub(super) struct Walker<'c, 'a> {
    ctx: &'c Context<'a>,
    out: Writer,
    counters: Counters,
    notes: NoteState,
    title: Vec<String>,
    /// The first run of title paragraphs ended.
    title_closed: bool,
}

impl<'c, 'a> Walker<'c, 'a> {
    pub(super) fn default_with(ctx: &'c Context<'a>) -> Walker<'c, 'a> {
        Walker {
            ctx,
            out: Writer::new(ctx.max_headings),
            counters: Counters::default(),
            notes: NoteState::default(),
            title: Vec::new(),
            title_closed: false,
        }
    }

    /// Reads one body paragraph; returns the text boxes anchored in it.
    fn paragraph<'n, 'i>(&mut self, p: Node<'n, 'i>) -> Vec<Node<'n, 'i>> {
        let ctx = self.ctx;
        let ppr = w_child(p, "pPr");
        let style_id = ppr.and_then(|x| child_val(x, "pStyle"));
        let style = ctx.styles.get(style_id);
        let level = if ctx.by_outline {
            let direct = ppr.and_then(|x| child_num(x, "outlineLvl")).filter(|l| *l <= 9);
            direct.or(style.outline).filter(|l| *l < 9).map(|l| l + 1)
        } else {
            style.builtin_heading
        };
        let num_pr = ppr.map(NumPr::of).unwrap_or_default().or(style.num_pr);
        let rendered = num_pr.num_id.filter(|id| *id != 0).and_then(|num_id| {
            let ilvl = num_pr
                .ilvl
                .or_else(|| style_id.and_then(|s| ctx.numbering.level_of_style(num_id, s)))
                .unwrap_or(0);
            ctx.numbering.next(&mut self.counters, num_id, ilvl)
        });

        let before = self.notes.pending.len();
        let mut raw = String::new();
        let mut boxes = Vec::new();
        let notes = &mut self.notes;
        runs(p, Mode::Paragraph, &mut raw, &mut boxes, &mut |id| notes.marker(ctx.notes, id));

        if style.title && !self.title_closed {
            let line = one_line(&raw);
            if !line.is_empty() {
                self.title.push(line);
            }
        } else if !self.title.is_empty() && !raw.trim().is_empty() {
            self.title_closed = true;
        }

        if let Some(level) = level {
            let text = one_line(&raw);
            if !text.is_empty() {
                self.flush_notes(before);
                self.heading(level, &text, rendered);
            }
            return boxes;
        }
        let body = lines(&raw);
        if body.is_empty() {
            return boxes;
        }
        match rendered {
            Some(r) if r.bullet => {
                self.out.block(Kind::Item, &format!("- {body}"));
            }
            Some(r) if !r.text.is_empty() => {
                let gap = if r.no_suffix { "" } else { " " };
                self.out.block(Kind::Item, &format!("{}{gap}{body}", r.text));
            }
            _ => {
                self.out.block(Kind::Paragraph, &body);
            }
        }
        boxes
    }

    /// Writes a heading, its number (when numbered) in front.
    fn heading(&mut self, level: u32, text: &str, rendered: Option<Rendered>) {
        let prefix = rendered.filter(|r| !r.bullet && !r.text.is_empty());
        let (title, number) = match &prefix {
            Some(r) => {
                let gap = if r.no_suffix { "" } else { " " };
                (format!("{}{gap}{text}", r.text), Some(section_number(&r.text)))
            }
            None => (text.to_string(), None),
        };
        let span = self.out.block(Kind::Heading, &title);
        self.out.headings.push(HeadingMark { level, title, span, number });
    }

    /// Reads one table: one line per row, cells joined by ` | `.
    fn table(&mut self, tbl: Node<'_, '_>) {
        let ctx = self.ctx;
        let mut rows: Vec<String> = Vec::new();
        for tr in wrapped(tbl, "tr") {
            let mut row = String::new();
            let mut any = false;
            for (i, tc) in wrapped(tr, "tc").into_iter().enumerate() {
                let mut raw = String::new();
                let notes = &mut self.notes;
                runs(tc, Mode::Line, &mut raw, &mut Vec::new(), &mut |id| notes.marker(ctx.notes, id));
                let cell = one_line(&raw);
                if i > 0 {
                    row.push_str(" |");
                }
                if !cell.is_empty() {
                    if i > 0 {
                        row.push(' ');
                    }
                    row.push_str(&cell);
                    any = true;
                }
            }
            if any {
                rows.push(row.trim().to_string());
            }
        }
        if !rows.is_empty() {
            self.out.block(Kind::Table, &rows.join("\n"));
        }
    }

    /// Writes the notes queued before index `upto` of the pending list (all of them for
    /// `usize::MAX`), keeping later ones: a note referenced in a heading belongs to the
    /// section that heading opens.
    fn flush_notes(&mut self, upto: usize) {
        let upto = upto.min(self.notes.pending.len());
        let later = self.notes.pending.split_off(upto);
        for (n, text) in std::mem::replace(&mut self.notes.pending, later) {
            self.out.block(Kind::Note, &format!("[^{n}] {text}"));
        }
    }
}

/// The `want` children of a table or row (`w:tr`, `w:tc`), looking through the wrappers
/// that may sit between them (content controls, custom XML, tracked insertions) but not
/// into cells, so nested tables stay in their cell.
fn wrapped<'a, 'i>(parent: Node<'a, 'i>, want: &str) -> Vec<Node<'a, 'i>> {
    let mut out = Vec::new();
    let mut stack: Vec<Node<'a, 'i>> = parent.children().filter(Node::is_element).collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        if is_w(n, want) {
            out.push(n);
        } else if ["sdt", "sdtContent", "customXml", "ins", "moveTo"].iter().any(|w| is_w(n, w)) {
            stack.extend(n.children().filter(Node::is_element).collect::<Vec<_>>().into_iter().rev());
        }
    }
    out
}

/// The section number of a rendered list number: `1.2.` → `1.2`, `Chapter 3` → chapter 3,
/// `(a)` → `a`.
fn section_number(rendered: &str) -> SectionNumber {
    number::from_heading(rendered).unwrap_or_else(|| SectionNumber {
        number: rendered
            .trim()
            .trim_start_matches(['(', '['])
            .trim_end_matches(['.', ')', ']', ':'])
            .to_string(),
        unit: None,
    })
}

/// [`one_line`] for each line, empty lines dropped.
fn lines(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.split('\n').map(one_line).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&line);
    }
    out
}
