//! Sentence boundaries that survive abbreviations ("Dr.", "Sec. 5", "Jan. 5.", "U.S.C.").
//!
//! Backed by `sentencex` (Wikimedia), which keeps abbreviation lists per language; Unicode
//! sentence segmentation splits after "U.S.C." and "Sec.", which would cut statutes mid
//! sentence.
//!
//! **In time linear in the text.** sentencex finds a paragraph's quotes and brackets with a
//! lazy regex (`` `…` ``, `«…»`) that, from every opener without its closer, scans on to the
//! paragraph's end: a paragraph of runs of backticks costs the square of its length (500 KB
//! took 74 s, issue 55). Its work on a paragraph grows with the paragraph's length times the
//! quotes and brackets in it. sentencex reads a long text in runs of whole paragraphs of
//! about [`PARAGRAPH`] bytes, which bounds that for most text, but it reads a longer
//! paragraph whole. So a paragraph longer than that which also holds more than
//! [`MAX_QUOTES`] quote and bracket characters (prose has about 5 a kilobyte) is handed over
//! in overlapping windows of at most [`WINDOW`] bytes, each keeping the boundaries of its
//! middle and leaving [`MARGIN`] bytes either side as context. Windows pair quotes only
//! within themselves, so a quote-heavy paragraph splits differently there than read whole;
//! any other text is read exactly as before.

use std::ops::Range;

use strata_core::Span;

/// The longest paragraph sentencex reads whole: its own chunk size (`sentencex::
/// get_sentence_boundaries` reads runs of whole paragraphs of up to 10 KB).
pub const PARAGRAPH: usize = 10 * 1024;

/// Most quote and bracket characters a paragraph longer than [`PARAGRAPH`] may hold to be
/// read whole: its reading then costs at most this many scans of its length.
const MAX_QUOTES: usize = 1024;

/// Most bytes of a longer, quote-heavy paragraph that sentencex reads at once.
const WINDOW: usize = 1024;

/// Context either side of the part of a window whose boundaries are kept.
const MARGIN: usize = 128;

/// Byte offsets where sentences start inside `text` (relative to `text`), excluding 0,
/// sorted and unique. Paragraph breaks (`\n\n`) are boundaries too.
pub fn sentence_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (part, long) in parts(text) {
        if long {
            windows(text, part, (WINDOW, MARGIN), &mut out);
        } else {
            out.extend(starts_in(text, part.clone(), part));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `text` in parts: what sentencex reads as it reads the whole text (`false`), and the
/// paragraphs it would take more than linear time on (`true`).
fn parts(text: &str) -> Vec<(Range<usize>, bool)> {
    let mut out = Vec::new();
    let (mut run_start, mut para_start) = (0, 0);
    let ends = separators(text).chain(std::iter::once((text.len(), text.len())));
    for (sep_start, sep_end) in ends {
        if sep_start - para_start > PARAGRAPH && quotes(&text[para_start..sep_start]) > MAX_QUOTES {
            if para_start > run_start {
                out.push((run_start..para_start, false));
            }
            out.push((para_start..sep_start, true));
            run_start = sep_start;
        }
        para_start = sep_end;
    }
    if run_start < text.len() {
        out.push((run_start..text.len(), false));
    }
    out
}

/// The quote and bracket characters of `text` (openers and closers), up to one past
/// [`MAX_QUOTES`].
fn quotes(text: &str) -> usize {
    const QUOTES: &[char] =
        &['«', '»', '‘', '’', '“', '”', '‹', '›', '„', '「', '」', '『', '』', '《', '》', '（', '）'];
    text.chars()
        .filter(|&c| {
            matches!(c, '\'' | '`' | '"' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>')
                || QUOTES.contains(&c)
        })
        .take(MAX_QUOTES + 1)
        .count()
}

/// The paragraph separators of `text` as sentencex finds them: `\n`, any `\r`, `\n`.
fn separators(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(i) = bytes[at..].iter().position(|&b| b == b'\n') {
            let start = at + i;
            let mut end = start + 1;
            while bytes.get(end) == Some(&b'\r') {
                end += 1;
            }
            if bytes.get(end) == Some(&b'\n') {
                at = end + 1;
                return Some((start, end + 1));
            }
            at = start + 1;
        }
        None
    })
}

/// The starts sentencex finds in `text[read]` that lie in `keep`, excluding 0. The first
/// byte read starts a sentence (a paragraph, or the separator after one).
fn starts_in(text: &str, read: Range<usize>, keep: Range<usize>) -> Vec<usize> {
    let mut out = Vec::new();
    if read.start > 0 && keep.contains(&read.start) {
        out.push(read.start);
    }
    for b in sentencex::get_sentence_boundaries("en", &text[read.clone()]) {
        let start = read.start + b.start_byte;
        if start > 0 && start < text.len() && text.is_char_boundary(start) && keep.contains(&start) {
            out.push(start);
        }
    }
    out
}

/// A long paragraph read in windows of at most `window` bytes, each keeping the starts in
/// its middle, `margin` bytes from either end.
fn windows(text: &str, paragraph: Range<usize>, (window, margin): (usize, usize), out: &mut Vec<usize>) {
    let stride = window - 2 * margin;
    let mut keep_from = paragraph.start;
    while keep_from < paragraph.end {
        let keep_to = if paragraph.end - keep_from <= stride + margin {
            paragraph.end
        } else {
            floor_char(text, keep_from + stride)
        };
        let from =
            if keep_from == paragraph.start { keep_from } else { floor_char(text, keep_from - margin) };
        let to = if keep_to == paragraph.end { keep_to } else { floor_char(text, keep_to + margin) };
        out.extend(starts_in(text, from..to, keep_from..keep_to));
        keep_from = keep_to;
    }
}

/// The largest char boundary at or before `at`.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Sentence spans tiling `span` of `text`: the pieces, joined, give back the span.
pub fn sentences(text: &str, span: Span) -> Vec<Span> {
    let local = &text[span.start..span.end];
    let mut spans = Vec::new();
    let mut at = 0;
    for s in sentence_starts(local) {
        if s > at {
            spans.push(Span::new(span.start + at, span.start + s));
            at = s;
        }
    }
    if at < local.len() {
        spans.push(Span::new(span.start + at, span.end));
    }
    spans
}

#[cfg(test)]
#[path = "sentence_tests.rs"]
mod tests;
