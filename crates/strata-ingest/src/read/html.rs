//! HTML: the visible text of a page, with its headings, tables, lists and code blocks.
//!
//! Unlike Markdown, the text of an HTML document is not its source: markup would drown the
//! words that BM25 and embeddings see, and a citation should quote what a reader sees. The
//! reader parses with `scraper` (html5ever, the browsers' algorithm, so broken markup reads
//! as a browser shows it) and writes the text in one walk of the DOM:
//!
//! - chrome is dropped: `head`, `script`, `style`, `noscript`, `template`, `svg`, `nav`, form
//!   controls, `hidden` elements, page-level `header` and `footer` (those inside an `article`
//!   or `section` hold its heading and stay), navigation panels and tables of contents by
//!   class (texinfo's `nav-panel` and `region-contents`, `noprint`), and self-links that only
//!   decorate a heading or paragraph (`¶`, `§`, `#`; RFC `a.self`, ReSpec `a.self-link`,
//!   texinfo `a.copiable-link`);
//! - blocks end lines: a blank line between paragraphs and headings, one line break between
//!   list items (each starting `- `) and table rows (cells joined by ` | `);
//! - whitespace collapses to single spaces (non-breaking spaces included) except inside
//!   `pre`, which keeps its lines and indentation (trailing blanks trimmed); lines never start
//!   or end with a space outside `pre`, and no more than one blank line ever runs;
//! - headings, and everything inside a table cell, stay on one line.
//!
//! The walk keeps an explicit stack of open elements, so 10,000 nested `div`s do not touch
//! the call stack. Legal unit headings (`PART II`, `CHAPTER 10`, `§102`), which the US Code
//! puts all at `h3`, are re-leveled by [`super::levels::refine_unit_levels`].

use scraper::{node::Element, ElementRef, Html, Node};
use strata_core::{Block, BlockKind, Format, Span};

use super::{decode::decode, levels::refine_unit_levels, HeadingMark, Parsed, ReadError, Reader};

/// HTML and XHTML, parsed as browsers do.
pub struct HtmlReader;

impl Reader for HtmlReader {
    fn format(&self) -> Format {
        Format::Html
    }

    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        let (source, warnings) = decode(bytes)?;
        // html5ever is not known to panic, but the reader contract is that nothing does.
        let walked = std::panic::catch_unwind(|| {
            let html = Html::parse_document(&source);
            let title = head_title(&html);
            let mut walker = Walker::with_capacity(source.len() / 2);
            walker.walk(&html);
            (title, walker.finish())
        });
        let Ok((title, (text, blocks, mut headings))) = walked else {
            return Err(ReadError::Malformed(
                "the HTML parser failed on this file; save it again from a browser or convert it to Markdown".into(),
            ));
        };
        if text.is_empty() {
            return Err(ReadError::Empty);
        }
        // A leading h1 names the document better than a generic <title> ("United States Code
        // Document"); otherwise <title>, otherwise any h1.
        let leading_h1 = headings.first().filter(|h| h.level == 1).map(|h| h.title.clone());
        let title = leading_h1.or(title).or_else(|| {
            headings
                .iter()
                .find(|h| h.level == 1)
                .map(|h| h.title.clone())
        });
        refine_unit_levels(&mut headings);
        Ok(Parsed {
            text,
            blocks,
            headings,
            title,
            warnings,
            ..Parsed::default()
        })
    }
}

/// The whitespace-normalized text of `html > head > title`, when not empty.
fn head_title(html: &Html) -> Option<String> {
    let html_el = html
        .tree
        .root()
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "html")?;
    let title = child(child(html_el, "head")?, "title")?;
    let mut text = String::new();
    for word in title.text().flat_map(str::split_whitespace) {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
    }
    (!text.is_empty()).then_some(text)
}

/// The first child element of `parent` named `name`.
fn child<'a>(parent: ElementRef<'a>, name: &str) -> Option<ElementRef<'a>> {
    parent
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == name)
}

/// Elements whose content is never text a reader sees.
const DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "nav", "title", "iframe", "object",
    "embed", "canvas", "audio", "video", "button", "select", "textarea", "datalist", "map",
];

/// Classes of navigation chrome: texinfo's per-node navigation and table of contents, and
/// content marked as not for print.
const CHROME_CLASSES: &[&str] = &["nav-panel", "region-contents", "noprint"];

/// Classes of self-links that decorate headings and paragraphs.
const SELF_LINK_CLASSES: &[&str] = &[
    "self",
    "self-link",
    "copiable-link",
    "headerlink",
    "anchor-link",
    "pilcrow",
];

/// What an element does to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Inline: no effect on lines.
    Inline,
    /// A container that only separates lines (`div`, `section`, `ul`).
    Container(u8),
    /// A block recorded in [`Parsed::blocks`] when outermost.
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
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            Role::Heading(u32::from(name.as_bytes()[1] - b'0'))
        }
        "p" | "address" | "figcaption" | "summary" | "legend" => {
            Role::Block(BlockKind::Paragraph, 2)
        }
        "caption" => Role::Block(BlockKind::Paragraph, 1),
        "li" => Role::Block(BlockKind::ListItem, 1),
        "pre" | "listing" | "xmp" | "plaintext" => Role::Block(BlockKind::Code, 2),
        "table" => Role::Block(BlockKind::Table, 2),
        "blockquote" => Role::Block(BlockKind::Quote, 2),
        "tr" => Role::Row,
        "td" | "th" => Role::Cell,
        "br" => Role::LineBreak,
        "ul" | "ol" | "dl" | "menu" | "dir" | "div" | "section" | "article" | "aside" | "main"
        | "body" | "html" | "header" | "footer" | "figure" | "form" | "fieldset" | "details"
        | "dialog" | "hgroup" | "center" | "hr" | "search" => Role::Container(2),
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
struct Walker {
    out: String,
    blocks: Vec<Block>,
    headings: Vec<HeadingMark>,
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
    sectioning_depth: usize,
    /// Where the text of the outermost open `pre` starts, once it has some.
    pre_start: Option<usize>,
}

impl Walker {
    fn with_capacity(capacity: usize) -> Walker {
        Walker {
            out: String::with_capacity(capacity),
            blocks: Vec::new(),
            headings: Vec::new(),
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
    fn walk(&mut self, html: &Html) {
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
                let breaks = if matches!(element.name(), "hr") {
                    2
                } else {
                    breaks
                };
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

    /// True for elements whose whole subtree is chrome.
    fn is_dropped(&self, node: ElementRef<'_>, element: &Element) -> bool {
        let name = element.name();
        if DROPPED.contains(&name) {
            return true;
        }
        // Page banners and footers; a header inside an article or section holds its heading.
        if matches!(name, "header" | "footer") && self.sectioning_depth == 0 {
            return true;
        }
        if element.attr("hidden").is_some() || element.attr("role") == Some("navigation") {
            return true;
        }
        if element.classes().any(|c| CHROME_CLASSES.contains(&c)) {
            return true;
        }
        name == "a" && is_self_link(node, element)
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
            let have = if self.out.ends_with("\n\n") {
                2
            } else {
                u8::from(self.out.ends_with('\n'))
            };
            for _ in have..self.pending_break {
                self.out.push('\n');
            }
            self.pending_break = 0;
            self.pending_space = false;
        }
        if self.block.is_none() && self.inline_depth == 0 {
            self.block = Some(OpenBlock {
                kind: BlockKind::Paragraph,
                start: None,
                implicit: true,
            });
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
        self.block = Some(OpenBlock {
            kind,
            start: None,
            implicit: false,
        });
        self.dirty = true;
        true
    }

    fn close_block(&mut self) {
        if let Some(OpenBlock {
            kind,
            start: Some(start),
            ..
        }) = self.block.take()
        {
            let end = self.out.len();
            if end > start {
                self.blocks.push(Block {
                    kind,
                    span: Span::new(start, end),
                });
            }
        }
    }

    fn finish(mut self) -> (String, Vec<Block>, Vec<HeadingMark>) {
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
        (self.out, self.blocks, self.headings)
    }
}

/// Characters that take no room and only get in the way of matching: soft hyphen,
/// zero-width space, and a stray byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{200B}' | '\u{FEFF}')
}

/// A link that only decorates: a self-link class, or a same-page link whose text is a
/// pilcrow, a section sign, a `#`, or nothing.
fn is_self_link(node: ElementRef<'_>, element: &Element) -> bool {
    if element.classes().any(|c| SELF_LINK_CLASSES.contains(&c)) {
        return true;
    }
    if !element.attr("href").is_some_and(|h| h.starts_with('#')) {
        return false;
    }
    let mut text = String::new();
    for child in node.descendants().take(8) {
        if let Node::Text(t) = child.value() {
            text.push_str(t);
            if text.len() > 16 {
                return false;
            }
        }
    }
    matches!(text.trim(), "¶" | "§" | "#" | "🔗" | "")
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    fn read(html: &str) -> Parsed {
        HtmlReader.read(html.as_bytes()).expect("reads")
    }

    /// The reader contract: spans on char boundaries, headings in order and disjoint, blocks
    /// sorted and disjoint, heading titles equal to their spans, no blank runs or edge spaces.
    fn check(parsed: &Parsed) {
        let text = &parsed.text;
        let mut last = 0;
        for h in &parsed.headings {
            assert!(
                h.span.start >= last,
                "heading {:?} overlaps the previous one",
                h.title
            );
            assert!(text.is_char_boundary(h.span.start) && text.is_char_boundary(h.span.end));
            assert_eq!(h.span.slice(text), h.title);
            assert!(
                (1..=6).contains(&h.level) || h.level > 6,
                "level {}",
                h.level
            );
            assert!(!h.title.contains('\n'));
            last = h.span.end;
        }
        let mut last = 0;
        for b in &parsed.blocks {
            assert!(
                b.span.start >= last && b.span.start < b.span.end && b.span.end <= text.len(),
                "{b:?}"
            );
            assert!(text.is_char_boundary(b.span.start) && text.is_char_boundary(b.span.end));
            last = b.span.end;
        }
        assert!(!text.contains("\n\n\n"), "a run of blank lines");
        assert!(parsed.page_breaks.is_empty());
    }

    fn no_edge_spaces(text: &str) {
        for line in text.lines() {
            assert_eq!(line, line.trim(), "line with edge spaces: {line:?}");
        }
    }

    #[test]
    fn chrome_and_comments_are_dropped() {
        let parsed = read(
            "<!DOCTYPE html><html><head><title> The  Title </title><style>p{color:red}</style>\
             <script>var x = '<p>no</p>';</script></head><body><header>Site banner</header>\
             <nav><a href='/'>Home</a></nav><!-- a comment --><h1>Main</h1><p>Body text.</p>\
             <noscript>Enable JS</noscript><template><p>tpl</p></template>\
             <svg><text>chart</text></svg><div hidden>secret</div>\
             <footer>Copyright</footer></body></html>",
        );
        check(&parsed);
        assert_eq!(parsed.text, "Main\n\nBody text.");
        // A leading h1 names the document before <title>.
        assert_eq!(parsed.title.as_deref(), Some("Main"));
        let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BlockKind::Heading, BlockKind::Paragraph]);
    }

    #[test]
    fn article_header_keeps_its_heading() {
        let parsed = read("<article><header><h1>Post</h1></header><p>x</p></article>");
        assert_eq!(parsed.text, "Post\n\nx");
        assert_eq!(parsed.headings.len(), 1);
    }

    #[test]
    fn title_falls_back_to_first_h1() {
        let parsed = read("<h2>Sub</h2><h1>First <em>one</em></h1><h1>Second</h1>");
        assert_eq!(parsed.title.as_deref(), Some("First one"));
    }

    #[test]
    fn entities_and_whitespace() {
        let parsed = read(
            "<p>  caf&eacute; &amp;&nbsp;&lt;tea&gt;\n\t &#x2014; done  </p><p>a<b>b</b> c</p>",
        );
        check(&parsed);
        assert_eq!(parsed.text, "café & <tea> — done\n\nab c");
    }

    #[test]
    fn tables_are_rows_of_cells() {
        let parsed = read(
            "<p>Before</p><table><tr><th>Code</th><th>Meaning</th></tr>\
             <tr><td> 200 </td><td><p>OK</p><p>fine</p></td></tr>\
             <tr><td></td><td></td></tr><tr><td></td><td>only second</td></tr></table><p>After</p>",
        );
        check(&parsed);
        assert_eq!(
            parsed.text,
            "Before\n\nCode | Meaning\n200 | OK fine\n| only second\n\nAfter"
        );
        let table = parsed
            .blocks
            .iter()
            .find(|b| b.kind == BlockKind::Table)
            .unwrap();
        assert_eq!(
            table.span.slice(&parsed.text),
            "Code | Meaning\n200 | OK fine\n| only second"
        );
        assert_eq!(parsed.blocks.len(), 3);
    }

    #[test]
    fn pre_is_kept_verbatim() {
        let parsed = read(
            "<p>Run:</p><pre>\nfn main() {\n    println!(\"hi\");   \n\n\n\n}\n\n</pre><p>Done</p>",
        );
        check(&parsed);
        assert_eq!(
            parsed.text,
            "Run:\n\nfn main() {\n    println!(\"hi\");\n\n}\n\nDone"
        );
        let code = parsed
            .blocks
            .iter()
            .find(|b| b.kind == BlockKind::Code)
            .unwrap();
        assert_eq!(
            code.span.slice(&parsed.text),
            "fn main() {\n    println!(\"hi\");\n\n}"
        );
    }

    #[test]
    fn lists_and_quotes() {
        let parsed = read(
            "<ul><li>one</li><li><p>two</p><ul><li>two.a</li></ul></li><li></li></ul>\
             <blockquote><p>q1</p><p>q2</p></blockquote><dl><dt>term</dt><dd>def</dd></dl>",
        );
        check(&parsed);
        no_edge_spaces(&parsed.text);
        assert_eq!(
            parsed.text,
            "- one\n- two\n- two.a\n\nq1\n\nq2\n\nterm\ndef"
        );
        let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, [ListItem, ListItem, Quote, Paragraph, Paragraph]);
        assert_eq!(parsed.blocks[1].span.slice(&parsed.text), "- two\n- two.a");
        // Definitions hold blocks of their own (texinfo option lists).
        let parsed = read("<dl><dt>-x</dt><dd><p>Trace.</p><pre>  set -x</pre></dd></dl>");
        check(&parsed);
        assert_eq!(parsed.text, "-x\n\nTrace.\n\n  set -x");
        let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [Paragraph, Paragraph, Code]);
    }

    #[test]
    fn headings_skip_levels_and_slice_to_their_titles() {
        let parsed = read(
            "<h1>Top</h1><p>intro</p><h4 id='x'><a href='#section-5.6.1'>5.6.1.</a>&nbsp;<a>Sender \
             Requirements</a><a class='self' href='#x'>¶</a></h4><div><h2>  Two\n lines <br> here </h2></div>",
        );
        check(&parsed);
        let got: Vec<_> = parsed
            .headings
            .iter()
            .map(|h| (h.level, h.title.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "Top"),
                (4, "5.6.1. Sender Requirements"),
                (2, "Two lines here")
            ]
        );
        for h in &parsed.headings {
            assert!(parsed.text[h.span.start..h.span.end].contains(&h.title));
            assert!(h.number.is_none());
        }
    }

    #[test]
    fn loose_text_becomes_paragraphs() {
        let parsed = read("<section><h2>What</h2>Loose text <b>here</b>.<p>p</p>tail</section>");
        check(&parsed);
        assert_eq!(parsed.text, "What\n\nLoose text here.\n\np\n\ntail");
        let kinds: Vec<_> = parsed.blocks.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, [Heading, Paragraph, Paragraph, Paragraph]);
        assert_eq!(
            parsed.blocks[1].span.slice(&parsed.text),
            "Loose text here."
        );
    }

    #[test]
    fn line_breaks() {
        let parsed = read("<p>a<br>b<br><br>c<br><br><br><br>d</p>");
        check(&parsed);
        assert_eq!(parsed.text, "a\nb\n\nc\n\nd");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 10_000;
        let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        let parsed = read(&html);
        assert_eq!(parsed.text, "deep");
        let html = format!(
            "{}<h3>x</h3>{}",
            "<ul><li>".repeat(2_000),
            "</li></ul>".repeat(2_000)
        );
        check(&read(&html));
    }

    #[test]
    fn garbage_does_not_panic() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let pieces = [
            "<",
            ">",
            "</",
            "<p>",
            "<table>",
            "<td>",
            "<tr>",
            "<pre>",
            "</pre>",
            "<h2>",
            "</h3>",
            "<li>",
            "<br>",
            "&",
            "&amp",
            "&#xFFFFFF;",
            "<!--",
            "-->",
            "<script>",
            "<svg>",
            "\n",
            " ",
            "é",
            "ü",
            "<a href='#x'>",
            "¶",
            "</a>",
            "<header>",
            "<section>",
            "<template>",
            "text",
            "<![CDATA[",
        ];
        for _ in 0..300 {
            let mut doc = String::new();
            for _ in 0..60 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                doc.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            if let Ok(parsed) = HtmlReader.read(doc.as_bytes()) {
                check(&parsed);
            }
        }
        for bytes in [
            &b"\xff\xfe<\x80p>\xc3"[..],
            b"<",
            b"   ",
            b"<html></html>",
            b"<p>\x01\x02</p>",
        ] {
            let _ = HtmlReader.read(bytes);
        }
        assert_eq!(
            HtmlReader
                .read(b"<html><script>x</script></html>")
                .unwrap_err(),
            ReadError::Empty
        );
    }

    #[test]
    fn core_numbers_handle_us_code_dashes() {
        use strata_core::number::from_heading;
        let chapter = from_heading("CHAPTER 10—PATENTABILITY OF INVENTIONS").unwrap();
        assert_eq!(
            (chapter.number.as_str(), chapter.unit.as_deref()),
            ("10", Some("chapter"))
        );
        let part =
            from_heading("PART II—PATENTABILITY OF INVENTIONS AND GRANT OF PATENTS").unwrap();
        assert_eq!(
            (part.number.as_str(), part.unit.as_deref()),
            ("II", Some("part"))
        );
        let title = from_heading("TITLE 35—PATENTS").unwrap();
        assert_eq!(
            (title.number.as_str(), title.unit.as_deref()),
            ("35", Some("title"))
        );
        assert_eq!(
            from_heading("§102. Conditions for patentability; novelty")
                .unwrap()
                .number,
            "102"
        );
        assert_eq!(
            from_heading("5.6.1. Sender Requirements").unwrap().number,
            "5.6.1"
        );
    }

    fn corpus(name: &str) -> Option<Vec<u8>> {
        let path = format!(
            "{}/../../../shared/data/corpus/html/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(_) => {
                eprintln!("skipping: {path} not found");
                None
            }
        }
    }

    fn read_corpus(name: &str) -> Option<Parsed> {
        let bytes = corpus(name)?;
        let started = Instant::now();
        let parsed = HtmlReader.read(&bytes).expect("reads");
        let elapsed = started.elapsed();
        eprintln!(
            "{name}: {} bytes in {:.1} ms, {} headings, {} blocks, text {} bytes, title {:?}",
            bytes.len(),
            elapsed.as_secs_f64() * 1000.0,
            parsed.headings.len(),
            parsed.blocks.len(),
            parsed.text.len(),
            parsed.title,
        );
        check(&parsed);
        no_edge_spaces_outside_code(&parsed);
        Some(parsed)
    }

    /// No line ends with a space; only `pre` text starts lines with one, and a `pre` lies in a
    /// code block or in the list item, quote or table that holds it.
    fn no_edge_spaces_outside_code(parsed: &Parsed) {
        use BlockKind::*;
        let mut at = 0;
        for line in parsed.text.split('\n') {
            assert_eq!(line, line.trim_end(), "trailing space at {at}");
            let may_hold_pre = parsed.blocks.iter().any(|b| {
                matches!(b.kind, Code | ListItem | Quote | Table)
                    && b.span.start <= at
                    && at < b.span.end
            });
            if !may_hold_pre {
                assert_eq!(line, line.trim_start(), "leading space at {at}");
            }
            at += line.len() + 1;
        }
    }

    #[test]
    fn corpus_rfc9110() {
        let Some(parsed) = read_corpus("rfc9110-http-semantics.html") else {
            return;
        };
        assert!(
            parsed.headings.len() >= 290,
            "{} headings",
            parsed.headings.len()
        );
        // The file's 5.6.1 is "Lists (#rule ABNF Extension)"; Sender Requirements is 5.6.1.1.
        assert!(parsed
            .headings
            .iter()
            .any(|h| h.title == "5.6.1. Lists (#rule ABNF Extension)"));
        assert!(parsed
            .headings
            .iter()
            .any(|h| h.title == "5.6.1.1. Sender Requirements"));
        assert!(!parsed
            .headings
            .iter()
            .any(|h| h.title.contains('¶') || h.title == "Table of Contents"));
        assert!(!parsed.text.contains('¶'));
        assert_eq!(parsed.title.as_deref(), Some("RFC 9110 - HTTP Semantics"));
        // No units: refine_unit_levels left the markup levels alone.
        let h = parsed
            .headings
            .iter()
            .find(|h| h.title.starts_with("5.6.1.1."))
            .unwrap();
        assert_eq!(h.level, 5);
    }

    #[test]
    fn corpus_usc_title35() {
        let Some(parsed) = read_corpus("usc-title35-patents.htm") else {
            return;
        };
        let find = |prefix: &str| {
            parsed
                .headings
                .iter()
                .find(|h| h.title.starts_with(prefix))
                .unwrap_or_else(|| panic!("no heading {prefix:?}"))
        };
        let (title, part, chapter, section) = (
            find("TITLE 35"),
            find("PART II—"),
            find("CHAPTER 10—"),
            find("§102."),
        );
        assert!(title.level < part.level, "{title:?} {part:?}");
        assert!(part.level < chapter.level, "{part:?} {chapter:?}");
        assert!(chapter.level < section.level, "{chapter:?} {section:?}");
        let i = parsed
            .headings
            .iter()
            .position(|h| h.title.starts_with("§102."))
            .unwrap();
        let note = &parsed.headings[i + 1];
        assert!(note.level > section.level, "{note:?}");
    }

    #[test]
    fn corpus_usc_title09() {
        let Some(parsed) = read_corpus("usc-title09-arbitration.htm") else {
            return;
        };
        assert!(parsed.headings.iter().any(|h| h.title.starts_with("§1.")));
    }

    #[test]
    fn corpus_openapi() {
        let Some(parsed) = read_corpus("openapi-spec-3.2.0.html") else {
            return;
        };
        assert!(parsed.headings.iter().any(|h| h.level == 6));
        // No legal units: markup levels stand.
        let h = parsed
            .headings
            .iter()
            .find(|h| h.title == "4.1.2.2.1 Establishing the Base URI")
            .unwrap();
        assert_eq!(h.level, 6);
        assert!(parsed.blocks.iter().any(|b| b.kind == BlockKind::Table));
        assert!(parsed.blocks.iter().any(|b| b.kind == BlockKind::Code));
    }

    #[test]
    fn corpus_bash_manual() {
        let Some(parsed) = read_corpus("bash-reference-manual.html") else {
            return;
        };
        let levels: Vec<_> = parsed
            .headings
            .iter()
            .take(4)
            .map(|h| (h.level, h.title.as_str()))
            .collect();
        assert_eq!(
            levels,
            [
                (1, "Bash Features"),
                (2, "1 Introduction"),
                (3, "1.1 What is Bash?"),
                (3, "1.2 What is a shell?")
            ]
        );
        assert!(!parsed.text.contains('¶'));
        assert!(!parsed.text.contains("Next: Introduction"));
    }
}
