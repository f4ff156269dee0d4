//! Line ranges: how a document without pages is cited.
//!
//! A PDF is cited by page. Plain text without form feeds and Markdown have no pages, so their
//! passages are cited by the lines of the source file they cover, the way an editor or
//! `grep -n` counts them: from 1, counting `\n`. The reader says where the text's first byte
//! lies in the source ([`crate::Document::first_line`]: Markdown front matter is not part of
//! the text), and [`Lines`] maps byte spans of the text to source lines.

use serde::{Deserialize, Serialize};

use crate::Span;

/// An inclusive range of source lines (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LineRange {
    /// First line, 1-based.
    pub first: u32,
    /// Last line, inclusive.
    pub last: u32,
}

impl LineRange {
    /// The lines that `span` of `text` covers, `text` starting on source line `first_line`
    /// (see [`Lines::range`]). It counts the text up to the span: for many spans of one
    /// text, build [`Lines`] once.
    pub fn of(text: &str, span: Span, first_line: u32) -> LineRange {
        let (start, end) = content(text, span);
        let line_at = |offset: usize| {
            let before = text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count();
            first_line.saturating_add(u32::try_from(before).unwrap_or(u32::MAX))
        };
        let first = line_at(start);
        let inside = text.as_bytes()[start..end].iter().filter(|&&b| b == b'\n').count();
        let last = first.saturating_add(u32::try_from(inside).unwrap_or(u32::MAX));
        LineRange { first, last }
    }

    /// The range that covers both.
    pub fn union(self, other: LineRange) -> LineRange {
        LineRange { first: self.first.min(other.first), last: self.last.max(other.last) }
    }
}

impl std::fmt::Display for LineRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "line {}", self.first)
        } else {
            write!(f, "lines {}–{}", self.first, self.last)
        }
    }
}

/// The line starts of a text, to map spans to [`LineRange`]s in `O(log lines)` each.
#[derive(Debug, Clone)]
pub struct Lines<'t> {
    text: &'t str,
    /// Byte offsets of the `\n`s.
    newlines: Vec<usize>,
    /// The source line of the text's first byte.
    first_line: u32,
}

impl<'t> Lines<'t> {
    /// The lines of `text`, whose first byte is on source line `first_line`.
    pub fn new(text: &'t str, first_line: u32) -> Lines<'t> {
        let newlines = text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i).collect();
        Lines { text, newlines, first_line }
    }

    /// The source line of byte `offset`.
    pub fn line_at(&self, offset: usize) -> u32 {
        let before = self.newlines.partition_point(|&n| n < offset);
        self.first_line.saturating_add(u32::try_from(before).unwrap_or(u32::MAX))
    }

    /// The lines `span` covers, leading and trailing whitespace aside (a chunk that ends in a
    /// blank line is not cited as reaching it). An all-blank span is cited by its start.
    ///
    /// ```
    /// use strata_core::{LineRange, Lines, Span};
    /// let text = "# Title\n\nFirst line\nsecond line\n\n";
    /// let lines = Lines::new(text, 3);
    /// assert_eq!(lines.range(Span::new(7, text.len())), LineRange { first: 5, last: 6 });
    /// ```
    pub fn range(&self, span: Span) -> LineRange {
        let (start, end) = content(self.text, span);
        LineRange { first: self.line_at(start), last: self.line_at(end) }
    }
}

/// The part of `span` that [`LineRange`]s cite: from its first to its last non-blank byte
/// (`end` inclusive); an all-blank span is its start.
fn content(text: &str, span: Span) -> (usize, usize) {
    let slice = span.slice(text);
    let trimmed = slice.trim();
    if trimmed.is_empty() {
        return (span.start, span.start);
    }
    let start = span.start + (slice.len() - slice.trim_start().len());
    (start, start + trimmed.len() - 1)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::floor_char_boundary;

    #[test]
    fn one_line_and_several() {
        let text = "a\nbb\nccc";
        let lines = Lines::new(text, 1);
        assert_eq!(lines.range(Span::new(0, 1)), LineRange { first: 1, last: 1 });
        assert_eq!(lines.range(Span::new(2, 8)), LineRange { first: 2, last: 3 });
        assert_eq!(lines.range(Span::new(1, 2)), LineRange { first: 1, last: 1 }, "a lone newline");
        assert_eq!(LineRange { first: 4, last: 4 }.to_string(), "line 4");
        assert_eq!(LineRange { first: 4, last: 9 }.to_string(), "lines 4–9");
    }

    proptest! {
        /// The line of a span's first non-blank byte is the count of `\n` before it, plus
        /// the first line, as `grep -n` would print it.
        #[test]
        fn lines_count_like_grep(text in "[a-c§ \n]{0,60}", a in 0usize..60, b in 0usize..60, first in 1u32..5) {
            let (a, b) = (floor_char_boundary(&text, a), floor_char_boundary(&text, b));
            let span = Span::new(a.min(b), a.max(b));
            let range = Lines::new(&text, first).range(span);
            let slice = span.slice(&text);
            let at = span.start + slice.len() - slice.trim_start().len();
            let at = if slice.trim().is_empty() { span.start } else { at };
            prop_assert_eq!(range.first, first + text[..at].matches('\n').count() as u32);
            prop_assert_eq!(range, LineRange::of(&text, span, first));
            prop_assert!(range.first <= range.last);
            prop_assert!(range.last <= first + text.matches('\n').count() as u32);
        }
    }
}
