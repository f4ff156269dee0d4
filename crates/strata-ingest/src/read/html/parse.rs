//! Parsing with a bound on nesting.
//!
//! html5ever checks, for most start and end tags, whether an element is "in scope" by
//! walking its stack of open elements from the top, so a document that only opens elements
//! costs the square of its depth: 50,000 nested `div`s (550 KB) took 9.8 s to parse, 100,000
//! took 42.7 s (issue 23). The parser is fed in chunks instead of at once, which it is built
//! for (the result is the same), and after each chunk the tree builder's open and formatting
//! elements are counted; past [`MAX_DEPTH`] the file is refused. Nothing deeper than the
//! limit and one chunk is ever parsed, so the time stays linear in the file's size.

use std::cell::Cell;

use html5ever::interface::{Tracer, TreeSink};
use html5ever::tendril::TendrilSink;
use scraper::{Html, HtmlTreeSink};

/// Elements open at once, beyond which a document is refused. The deepest corpus page
/// (`shared/data/corpus/html/`) opens 17; browsers cap the DOM depth they build at 512.
pub const MAX_DEPTH: usize = 512;

/// Bytes fed between two counts (about as many open elements can follow the limit).
const CHUNK: usize = 16 * 1024;

/// Counts the handles the tree builder holds.
struct Count(Cell<usize>);

impl Tracer for Count {
    type Handle = <HtmlTreeSink as TreeSink>::Handle;

    fn trace_handle(&self, _: &Self::Handle) {
        self.0.set(self.0.get() + 1);
    }
}

/// Parses `source` as a document, or gives the depth reached once it passed `max_depth`:
/// the elements open, those on the list of formatting elements, and `head` and `form` once
/// seen.
pub(super) fn parse(source: &str, max_depth: usize) -> Result<Html, usize> {
    parse_in_chunks(source, CHUNK, max_depth)
}

fn parse_in_chunks(source: &str, chunk: usize, max_depth: usize) -> Result<Html, usize> {
    let mut parser = html5ever::parse_document(HtmlTreeSink::new(Html::new_document()), Default::default());
    let mut rest = source;
    while !rest.is_empty() {
        let cut = strata_core::floor_char_boundary(rest, chunk.min(rest.len()));
        // A chunk smaller than one character takes the whole character.
        let cut = if cut == 0 { rest.chars().next().map_or(rest.len(), char::len_utf8) } else { cut };
        parser.process(rest[..cut].into());
        rest = &rest[cut..];
        let count = Count(Cell::new(0));
        parser.tokenizer.sink.trace_handles(&count);
        // The document's own handle is counted too.
        let depth = count.0.get().saturating_sub(1);
        if depth > max_depth {
            return Err(depth);
        }
    }
    Ok(parser.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fed in chunks of any size, even inside a tag, a character reference, a CRLF or a
    /// multi-byte character, the parser builds the same document as fed at once.
    #[test]
    fn chunked_parse_builds_the_same_document() {
        let pages = [
            "<!DOCTYPE html><html><head><title>T &amp; U</title></head><body><p>a&nbsp;b &eacute;t\u{e9}\r\n<b>x<i>y</b>z</i><table><tr><td>1<td>2</table><p>one<p>two<div>d</div></body></html>",
            "<ul><li>a<li>b<ul><li>c</ul></ul><pre>\r\n  x\r\n</pre><svg><path d='M0'/><g><rect/></g></svg><math><mi>x</mi></math>",
            "<script>if (a < b) { document.write('</p>') }</script><!-- c -- --><textarea>&lt;</textarea>日本語",
        ];
        for page in pages {
            let whole = Html::parse_document(page).html();
            for chunk in [1, 2, 3, 7, 64] {
                let chunked = parse_in_chunks(page, chunk, MAX_DEPTH).unwrap().html();
                assert_eq!(chunked, whole, "chunk {chunk} of {page:?}");
            }
        }
    }

    #[test]
    fn depth_counts_open_elements_and_stops_past_the_limit() {
        let nested = |n: usize| format!("<html><body>{}x", "<div>".repeat(n));
        // html, body and the divs are open, and the parser holds head.
        assert!(parse_in_chunks(&nested(7), 4, 10).is_ok());
        let depth = parse_in_chunks(&nested(8), 4, 10).unwrap_err();
        assert_eq!(depth, 11);
        // Closed elements do not count: many in a row read.
        assert!(parse_in_chunks(&"<div>x</div>".repeat(1000), 16, 10).is_ok());
    }
}
