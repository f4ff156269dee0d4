//! The walk: one iterative depth-first pass over the DOM with an explicit stack, writing the
//! visible text and recording blocks and headings as it goes.

use scraper::{ElementRef, Html, Node};
use strata_core::{Block, BlockKind, Span};

use crate::read::{HeadingCap, HeadingMark};

/// What an element does to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Inline: no effect on lines.
    Inline,
    /// A container that only separates lines (`div`, `section`, `ul`).
    Container(u8),
    /// A block recorded in [`crate::read::Parsed::blocks`] when outermost.
    Block(BlockKind, u8),
    /// A heading, `h1`–`h6`.
    Heading(u32),
    /// A table row.
    Row,
    /// A table cell.
    Cell,
    /// `br`.
    LineBreak,
}

fn role(name: &str) -> Role {
    match name {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Role::Heading(u32::from(name.as_bytes()[1] - b'0')),
        "p" | "address" | "figcaption" | "summary" | "legend" => Role::Block(BlockKind::Paragraph, 2),
        "caption" => Role::Block(BlockKind::Paragraph, 1),
        "li" => Role::Block(BlockKind::ListItem, 1),
        "pre" | "listing" | "xmp" | "plaintext" => Role::Block(BlockKind::Code, 2),
        "table" => Role::Block(BlockKind::Table, 2),
        "blockquote" => Role::Block(BlockKind::Quote, 2),
        "tr" => Role::Row,
        "td" | "th" => Role::Cell,
        "br" => Role::LineBreak,
        "ul" | "ol" | "dl" | "menu" | "dir" | "div" | "section" | "article" | "aside" | "main" | "body"
        | "html" | "header" | "footer" | "figure" | "form" | "fieldset" | "details" | "dialog" | "hgroup"
        | "center" | "hr" | "search" => Role::Container(2),
        // A definition holds paragraphs and examples of its own (texinfo option lists).
        "dt" | "dd" | "option" | "optgroup" => Role::Container(1),
        _ => Role::Inline,
    }
}

/// One open element on the walker's stack: what to undo when it closes.
#[derive(Debug, Clone, Copy, Default)]
struct Frame {
    /// Line breaks to request when it closes.
    break_after: u8,
    /// It opened the current block.
    owns_block: bool,
    /// It opened the current heading.
    owns_heading: bool,
    /// It entered an inline context (heading or table cell).
    inline: bool,
    /// It is a `pre`-like element.
    pre: bool,
    /// It pushed a row counter.
    row: bool,
    /// It is a list item.
    item: bool,
    /// It is a sectioning element (`article`, `section`, `aside`, `main`).
    sectioning: bool,
}

/// The block being written: its kind, its start once text arrived, and whether it is an
/// implicit paragraph of loose text.
#[derive(Debug, Clone, Copy)]
struct OpenBlock {
    kind: BlockKind,
    start: Option<usize>,
    implicit: bool,
}

/// Writes the text in one walk, with everything pending resolved lazily at the next visible
/// character: line breaks, a space, a list bullet, cell separators, block and heading starts.
pub(super) struct Walker {
    out: String,
    blocks: Vec<Block>,
    headings: HeadingCap,
    stack: Vec<Frame>,
    /// Line breaks owed before the next character (0, 1 or 2).
    pending_break: u8,
    pending_space: bool,
    pending_bullet: bool,
    /// Cell separators owed before the next character.
    pending_cells: usize,
    /// Something above is pending: the next visible character calls [`Walker::flush`].
    dirty: bool,
    block: Option<OpenBlock>,
    /// The open heading: level and start once text arrived.
    heading: Option<(u32, Option<usize>)>,
    /// Cells seen in each open table row.
    rows: Vec<usize>,
    inline_depth: usize,
    pre_depth: usize,
    item_depth: usize,
    pub(super) sectioning_depth: usize,
    /// Where the text of the outermost open `pre` starts, once it has some.
    pre_start: Option<usize>,
}

impl Walker {
    /// A walker whose text starts with room for `capacity` bytes and that keeps
    /// `max_headings` headings at most ([`HeadingCap`]).
    pub(super) fn with_capacity(capacity: usize, max_headings: usize) -> Walker {
        Walker {
            out: String::with_capacity(capacity),
            blocks: Vec::new(),
            headings: HeadingCap::new(max_headings),
            stack: Vec::new(),
            pending_break: 0,
            pending_space: false,
            pending_bullet: false,
            pending_cells: 0,
            dirty: true,
            block: None,
            heading: None,
            rows: Vec::new(),
            inline_depth: 0,
            pre_depth: 0,
            item_depth: 0,
            sectioning_depth: 0,
            pre_start: None,
        }
    }

    /// Walks the document depth-first without recursion: down to first children, across to
    /// next siblings, and up through parents, closing each element on the way up.
    pub(super) fn walk(&mut self, html: &Html) {
        let root = html.tree.root();
        let mut next = root.first_child();
        while let Some(node) = next {
            let descend = match node.value() {
                Node::Text(text) => {
                    self.text(text);
                    false
                }
                Node::Element(_) => ElementRef::wrap(node).is_some_and(|e| self.open(e)),
                _ => false,
            };
            if descend {
                if let Some(child) = node.first_child() {
                    next = Some(child);
                    continue;
                }
                self.close();
            }
            let mut current = node;
            next = loop {
                if let Some(sibling) = current.next_sibling() {
                    break Some(sibling);
                }
                match current.parent() {
                    Some(parent) if parent.id() != root.id() => {
                        self.close();
                        current = parent;
                    }
                    _ => break None,
                }
            };
        }
        while !self.stack.is_empty() {
            self.close();
        }
    }

    /// Handles an element on the way down. Returns true when its children should be walked; a [`Frame`] was then pushed and [`Walker::close`] must follow.
    fn open(&mut self, node: ElementRef<'_>) -> bool {
        let element = node.value();
        if self.is_dropped(node, element) {
            return false;
        }
        let mut frame = Frame::default();
        match role(element.name()) {
            Role::Inline => {}
            Role::LineBreak => {
                let breaks = if self.pending_break >= 1 { 2 } else { 1 };
                self.line_break(breaks);
            }
            Role::Container(breaks) => {
                let breaks = if matches!(element.name(), "hr") { 2 } else { breaks };
                self.request_break(breaks);
                frame.break_after = breaks;
                if matches!(element.name(), "article" | "section" | "aside" | "main") {
                    frame.sectioning = true;
                    self.sectioning_depth += 1;
                }
            }
            Role::Block(kind, breaks) => {
                self.request_break(breaks);
                frame.break_after = breaks;
                frame.owns_block = self.open_block(kind);
                if kind == BlockKind::ListItem {
                    frame.item = true;
                    self.item_depth += 1;
                    if self.inline_depth == 0 {
                        self.pending_bullet = true;
                        self.dirty = true;
                    }
                }
                if kind == BlockKind::Code {
                    frame.pre = true;
                    if self.pre_depth == 0 {
                        self.pre_start = None;
                    }
                    self.pre_depth += 1;
                }
            }
            Role::Heading(level) => {
                self.request_break(2);
                frame.break_after = 2;
                frame.owns_block = self.open_block(BlockKind::Heading);
                if self.heading.is_none() {
                    self.heading = Some((level, None));
                    frame.owns_heading = true;
                    self.dirty = true;
                }
                frame.inline = true;
                self.inline_depth += 1;
            }
            Role::Row => {
                self.request_break(1);
                frame.break_after = 1;
                frame.row = true;
                self.rows.push(0);
            }
            Role::Cell => {
                if let Some(cells) = self.rows.last_mut() {
                    if *cells > 0 {
                        self.pending_cells += 1;
                        self.dirty = true;
                    }
                    *cells += 1;
                } else {
                    self.pending_space = true;
                    self.dirty = true;
                }
                frame.inline = true;
                self.inline_depth += 1;
            }
        }
        self.stack.push(frame);
        true
    }

    /// Handles the end of the element on top of the stack.
    fn close(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        if frame.pre {
            self.pre_depth -= 1;
            if self.pre_depth == 0 {
                // Trailing blank lines and spaces of the block, never before its text.
                if let Some(start) = self.pre_start.take() {
                    let keep = self.out.trim_end().len().max(start);
                    self.out.truncate(keep);
                }
            }
        }
        if frame.inline {
            self.inline_depth -= 1;
        }
        if frame.owns_heading {
            if let Some((level, Some(start))) = self.heading {
                let end = self.out.len();
                if end > start {
                    self.headings.push(HeadingMark {
                        level,
                        title: self.out[start..end].to_string(),
                        span: Span::new(start, end),
                        number: None,
                    });
                }
            }
            self.heading = None;
        }
        if frame.owns_block {
            self.close_block();
        }
        if frame.item {
            self.item_depth -= 1;
            self.pending_bullet = false;
        }
        if frame.row {
            self.rows.pop();
            self.pending_cells = 0;
        }
        if frame.sectioning {
            self.sectioning_depth -= 1;
        }
        if frame.break_after > 0 {
            self.request_break(frame.break_after);
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre_depth > 0 && self.inline_depth == 0 {
            self.pre_text(text);
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                if !self.pending_space {
                    self.pending_space = true;
                    self.dirty = true;
                }
            } else if !is_invisible(c) {
                if self.dirty {
                    self.flush();
                }
                self.out.push(c);
            }
        }
    }

    /// Text inside `pre`: kept verbatim, but without trailing blanks on lines, leading blank
    /// lines, or more than one blank line in a row.
    fn pre_text(&mut self, text: &str) {
        for c in text.chars() {
            if c == '\n' {
                if self.pre_start.is_some() {
                    let trimmed = self.out.trim_end_matches([' ', '\t']).len();
                    self.out.truncate(trimmed);
                    if !self.out.ends_with("\n\n") {
                        self.out.push('\n');
                    }
                }
            } else if !is_invisible(c) {
                if self.dirty {
                    self.pending_space = false;
                    self.flush();
                }
                if self.pre_start.is_none() {
                    self.pre_start = Some(self.out.len());
                }
                self.out.push(c);
            }
        }
    }

    /// Resolves everything pending before a visible character.
    fn flush(&mut self) {
        if self.out.is_empty() {
            self.pending_break = 0;
            self.pending_space = false;
        }
        if self.pending_break > 0 {
            let trimmed = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(trimmed);
            let have = if self.out.ends_with("\n\n") { 2 } else { u8::from(self.out.ends_with('\n')) };
            for _ in have..self.pending_break {
                self.out.push('\n');
            }
            self.pending_break = 0;
            self.pending_space = false;
        }
        if self.block.is_none() && self.inline_depth == 0 {
            self.block = Some(OpenBlock { kind: BlockKind::Paragraph, start: None, implicit: true });
        }
        if let Some(block) = &mut self.block {
            if block.start.is_none() {
                block.start = Some(self.out.len());
            }
        }
        if self.pending_bullet {
            self.out.push_str("- ");
            self.pending_bullet = false;
            self.pending_space = false;
        }
        if self.pending_cells > 0 {
            for _ in 0..self.pending_cells {
                if self.out.is_empty() || self.out.ends_with('\n') {
                    self.out.push('|');
                } else {
                    if !self.out.ends_with(' ') {
                        self.out.push(' ');
                    }
                    self.out.push('|');
                }
            }
            self.out.push(' ');
            self.pending_cells = 0;
            self.pending_space = false;
        }
        if self.pending_space {
            if !self.out.is_empty() && !self.out.ends_with(['\n', ' ']) {
                self.out.push(' ');
            }
            self.pending_space = false;
        }
        if let Some((_, start @ None)) = &mut self.heading {
            *start = Some(self.out.len());
        }
        self.dirty = false;
    }

    /// Asks for `breaks` line breaks (1 or 2) before the next text. Inside a heading or a
    /// table cell it asks for a space; inside a list item, for one line break at most.
    fn request_break(&mut self, breaks: u8) {
        self.dirty = true;
        if self.inline_depth > 0 {
            self.pending_space = true;
            return;
        }
        if self.block.is_some_and(|b| b.implicit) {
            self.close_block();
        }
        let breaks = if self.item_depth > 0 { 1 } else { breaks };
        self.pending_break = self.pending_break.max(breaks);
    }

    /// A `br`: a line break inside the current block.
    fn line_break(&mut self, breaks: u8) {
        self.dirty = true;
        if self.inline_depth > 0 {
            self.pending_space = true;
            return;
        }
        if self.pre_depth > 0 && self.pre_start.is_some() {
            self.pre_text("\n");
            return;
        }
        self.pending_break = self.pending_break.max(breaks.min(2));
    }

    /// Opens a block of `kind` unless one is open. Returns true when it did.
    fn open_block(&mut self, kind: BlockKind) -> bool {
        if self.block.is_some() || self.inline_depth > 0 {
            return false;
        }
        self.block = Some(OpenBlock { kind, start: None, implicit: false });
        self.dirty = true;
        true
    }

    fn close_block(&mut self) {
        if let Some(OpenBlock { kind, start: Some(start), .. }) = self.block.take() {
            let end = self.out.len();
            if end > start {
                self.blocks.push(Block::headed(kind, Span::new(start, end), &self.out));
            }
        }
    }

    pub(super) fn finish(mut self) -> (String, Vec<Block>, (Vec<HeadingMark>, usize)) {
        self.close_block();
        let trimmed = self.out.trim_end().len();
        self.out.truncate(trimmed);
        // Spans end at text already written, so trimming the tail can only shorten the last.
        let len = self.out.len();
        for block in &mut self.blocks {
            block.span.end = block.span.end.min(len);
            block.span.start = block.span.start.min(block.span.end);
        }
        self.blocks.retain(|b| !b.span.is_empty());
        (self.out, self.blocks, self.headings.finish())
    }
}

/// Characters that take no room and only get in the way of matching: soft hyphen,
/// zero-width space, and a stray byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{200B}' | '\u{FEFF}')
}
