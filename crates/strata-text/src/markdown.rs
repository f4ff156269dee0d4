//! Markdown as plain text, for showing a passage: what a reader sees, not how it was marked.
//!
//! A Markdown document's text is its source, so its chunks hold `### 2.2 Renewal`, `**shall**`,
//! `[section 4](#s4)` and `` `GET` ``. [`plain`] keeps the words and the layout (paragraphs,
//! list items as `- ` lines, table rows with ` | ` between cells, code as written) and drops the
//! marks: heading hashes, emphasis, link targets, code ticks, block-quote `>`, HTML tags and
//! the table's `|---|` rule. A passage is parsed on its own: a chunk cut inside a list or a
//! code block reads as the parser sees that fragment.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// `markdown` without its markup (see the module doc).
pub fn plain(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut out = Plain::default();
    for event in Parser::new_ext(markdown, options) {
        out.event(event);
    }
    out.finish()
}

#[derive(Default)]
struct Plain {
    text: String,
    /// Open lists: the next number of an ordered one, `None` for bullets.
    lists: Vec<Option<u64>>,
    /// Cells written in the current table row.
    cells: usize,
}

impl Plain {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.text.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak => self.text.push('\n'),
            Event::Rule => self.block_break(),
            Event::FootnoteReference(label) => {
                self.text.push('[');
                self.text.push_str(&label);
                self.text.push(']');
            }
            Event::TaskListMarker(done) => self.text.push_str(if done { "[x] " } else { "[ ] " }),
            Event::Html(_) | Event::InlineHtml(_) => {}
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::List(first) => {
                self.line_break();
                self.lists.push(first);
            }
            Tag::Item => {
                self.line_break();
                let depth = self.lists.len().saturating_sub(1);
                self.text.push_str(&"  ".repeat(depth));
                match self.lists.last_mut() {
                    Some(Some(n)) => {
                        self.text.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    _ => self.text.push_str("- "),
                }
            }
            Tag::TableRow | Tag::TableHead => self.cells = 0,
            Tag::TableCell => {
                if self.cells > 0 {
                    self.text.push_str(" | ");
                }
                self.cells += 1;
            }
            Tag::Paragraph | Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::Table(_) | Tag::BlockQuote(_) => {
                if !self.in_item() {
                    self.block_break();
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::List(_) => {
                self.lists.pop();
                self.line_break();
            }
            TagEnd::TableRow | TagEnd::TableHead => self.text.push('\n'),
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::CodeBlock
            | TagEnd::Table
            | TagEnd::BlockQuote(_) => {
                if !self.in_item() {
                    self.block_break();
                }
            }
            _ => {}
        }
    }

    fn in_item(&self) -> bool {
        !self.lists.is_empty()
    }

    /// Ends the line unless it is ended.
    fn line_break(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    /// One blank line between blocks.
    fn block_break(&mut self) {
        self.line_break();
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    fn finish(self) -> String {
        self.text.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_emphasis_links_and_code_lose_their_marks() {
        let md = "### 2.2 Renewal\n\nThe Agreement **renews** under [Section 9.2](#s92), see `GET`.\n";
        assert_eq!(plain(md), "2.2 Renewal\n\nThe Agreement renews under Section 9.2, see GET.");
    }

    #[test]
    fn lists_tables_and_quotes_keep_their_layout() {
        let md = "- one\n- two\n  1. inner\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted <b>text</b>\n";
        assert_eq!(plain(md), "- one\n- two\n  1. inner\n\na | b\n1 | 2\n\nquoted text");
    }

    #[test]
    fn code_blocks_stay_as_written() {
        assert_eq!(plain("```rust\nlet x = *y;\n```\n"), "let x = *y;");
    }

    #[test]
    fn plain_text_is_left_alone() {
        let text = "4.1.  Data Flow Control\n\nQUIC employs a limit-based flow control scheme.";
        assert_eq!(plain(text), text);
    }
}
