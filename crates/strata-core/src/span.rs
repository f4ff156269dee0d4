//! Byte spans of a document's normalized text.
//!
//! Every position in strata is a byte range of [`Document::text`](crate::Document::text):
//! headings, sections, pages, chunks, definitions and references. Spans are half-open.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` of a document's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Span {
    /// First byte of the span.
    pub start: usize,
    /// One past the last byte of the span.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`. Panics in debug builds when `end < start`.
    pub fn new(start: usize, end: usize) -> Span {
        debug_assert!(start <= end, "span end {end} before start {start}");
        Span { start, end }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// True when the span covers no byte.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// True when `offset` lies inside the span.
    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }

    /// True when the two spans share at least one byte.
    pub fn overlaps(&self, other: Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The text this span covers.
    pub fn slice<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start..self.end]
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// An inclusive range of physical page numbers (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PageRange {
    /// First page, 1-based.
    pub first: u32,
    /// Last page, inclusive.
    pub last: u32,
}

impl PageRange {
    /// A range covering one page.
    pub fn single(page: u32) -> PageRange {
        PageRange { first: page, last: page }
    }

    /// The range that covers both.
    pub fn union(self, other: PageRange) -> PageRange {
        PageRange { first: self.first.min(other.first), last: self.last.max(other.last) }
    }
}

impl std::fmt::Display for PageRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "p. {}", self.first)
        } else {
            write!(f, "pp. {}-{}", self.first, self.last)
        }
    }
}

/// The largest char boundary of `text` at or before `at` (`text.len()` when `at` is past
/// the end). std's `str::floor_char_boundary` is not stable yet.
///
/// ```
/// use strata_core::floor_char_boundary;
/// assert_eq!(floor_char_boundary("a§b", 2), 1); // `§` is bytes 1..3
/// assert_eq!(floor_char_boundary("a§b", 9), 4);
/// ```
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at` (`text.len()` when `at` is past
/// the end). std's `str::ceil_char_boundary` is not stable yet.
///
/// ```
/// use strata_core::ceil_char_boundary;
/// assert_eq!(ceil_char_boundary("a§b", 2), 3); // `§` is bytes 1..3
/// assert_eq!(ceil_char_boundary("a§b", 9), 4);
/// ```
pub fn ceil_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_boundaries_round_down_and_up() {
        let ascii = "abc";
        for at in 0..=3 {
            assert_eq!((floor_char_boundary(ascii, at), ceil_char_boundary(ascii, at)), (at, at));
        }
        // `é` is bytes 1..3, `€` bytes 3..6.
        let text = "aé€";
        let floors: Vec<usize> = (0..=6).map(|at| floor_char_boundary(text, at)).collect();
        let ceils: Vec<usize> = (0..=6).map(|at| ceil_char_boundary(text, at)).collect();
        assert_eq!(floors, [0, 1, 1, 3, 3, 3, 6]);
        assert_eq!(ceils, [0, 1, 3, 3, 6, 6, 6]);
        for f in [floor_char_boundary, ceil_char_boundary] {
            assert_eq!((f(text, 7), f(text, usize::MAX), f("", 0), f("", 5)), (6, 6, 0, 0));
            assert_eq!(f("🦀", 0), 0);
        }
        assert_eq!((floor_char_boundary("🦀", 3), ceil_char_boundary("🦀", 1)), (0, 4));
    }
}
