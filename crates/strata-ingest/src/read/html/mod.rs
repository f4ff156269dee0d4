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
//! The parser is fed in chunks and a document nesting elements deeper than
//! [`parse::MAX_DEPTH`] is refused: html5ever's time grows with the square of the depth
//! (`parse`). The walk keeps an explicit stack of open elements all the same. Legal unit headings (`PART II`, `CHAPTER 10`, `§102`), which the US Code
//! puts all at `h3`, are re-leveled by [`super::levels::refine_unit_levels`].
//!
//! `parse` bounds the parse, `walk` holds the walk and the text it writes, `chrome` what it
//! drops.

mod chrome;
mod parse;
#[cfg(test)]
mod tests;
mod walk;

use scraper::{ElementRef, Html};
use strata_core::Format;

pub use self::parse::MAX_DEPTH;
use self::walk::Walker;
use super::limits::merge_dropped;
use super::{decode::decode, levels::refine_unit_levels, Parsed, ReadError, ReadLimits, Reader};

/// HTML and XHTML, parsed as browsers do.
pub struct HtmlReader;

impl Reader for HtmlReader {
    fn format(&self) -> Format {
        Format::Html
    }

    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError> {
        let (source, warnings) = decode(bytes)?;
        // html5ever is not known to panic, but the reader contract is that nothing does.
        let walked = std::panic::catch_unwind(|| {
            let html = parse::parse(&source, MAX_DEPTH)?;
            let title = head_title(&html);
            let mut walker = Walker::with_capacity(source.len() / 2, limits.max_headings);
            walker.walk(&html);
            Ok((title, walker.finish()))
        });
        let (title, (text, mut blocks, (mut headings, dropped_headings))) = match walked {
            Ok(Ok(walked)) => walked,
            Ok(Err(depth)) => return Err(ReadError::TooDeep { depth, limit: MAX_DEPTH }),
            Err(_) => {
                return Err(ReadError::Malformed(
                    "the HTML parser failed on this file; save it again from a browser or convert it to \
                     Markdown"
                        .into(),
                ))
            }
        };
        if text.is_empty() {
            return Err(ReadError::Empty);
        }
        // A leading h1 names the document better than a generic <title> ("United States Code
        // Document"); otherwise <title>, otherwise any h1.
        let leading_h1 = headings.first().filter(|h| h.level == 1).map(|h| h.title.clone());
        let title =
            leading_h1.or(title).or_else(|| headings.iter().find(|h| h.level == 1).map(|h| h.title.clone()));
        refine_unit_levels(&mut headings);
        if dropped_headings > 0 {
            merge_dropped(&text, &mut blocks, &headings);
        }
        Ok(Parsed { text, blocks, headings, dropped_headings, title, warnings, ..Parsed::default() })
    }
}

/// The whitespace-normalized text of `html > head > title`, when not empty.
fn head_title(html: &Html) -> Option<String> {
    let html_el =
        html.tree.root().children().filter_map(ElementRef::wrap).find(|e| e.value().name() == "html")?;
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
    parent.children().filter_map(ElementRef::wrap).find(|e| e.value().name() == name)
}
