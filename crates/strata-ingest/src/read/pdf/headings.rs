//! Headings recovered from the text when a PDF has no outline.
//!
//! A paragraph's first line is a heading when:
//!
//! - it is **numbered** (`1.`, `1.2`, `2.3.4`, `Appendix A`, `SEC. 101.`, `Chapter 3`), the
//!   title after the number starts with a capital or a digit, the line is short and does not
//!   read as a sentence, and its font says heading: larger than the body text, bold, or in
//!   capitals. The level is the depth of the number (`3.1.7` is level 3; appendices and
//!   chapters are level 1);
//! - or it is **unnumbered** but set at least [`BIG`] times the body size, short, and alone
//!   in its paragraph; its level comes after the numbered ones' (sizes ranked).
//!
//! Table-of-contents pages (at least [`TOC_LINES`] lines ending in dotted leaders or a page
//! number after a gap) are recognized and no heading is taken from them; their text stays.
//! Rows of numbered tables (`1 @type …`) are body font, so the font condition keeps them
//! out.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;
use strata_core::Span;

use super::page_text::{LineRef, PageText};
use crate::read::HeadingMark;

/// Size ratio to the body text from which an unnumbered line is a heading.
const BIG: f32 = 1.3;
/// Size ratio to the body text from which a numbered line's font says heading.
const LARGER: f32 = 1.08;
/// Longest heading, in characters.
const MAX_CHARS: usize = 120;
/// Lines with leaders that make a page a table of contents.
const TOC_LINES: usize = 5;

fn numbered() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?:(?P<kw>Appendix|APPENDIX|Annex|ANNEX|Chapter|CHAPTER|Part|PART)\s+(?P<kn>[A-Z]|[0-9]+|[IVX]+)\b[.:]?|(?:SEC\.|Sec\.|§)\s*(?P<sec>[0-9]+[A-Za-z]?)\.|(?P<num>[0-9]{1,2}(?:\.[0-9]{1,3}){0,5})\.?)(?:\s+|$)(?P<title>.*)$",
        )
        .unwrap()
    })
}

fn leaders() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:\.\s*){4,}\s*[0-9ivxlc]+\s*$|\S\s{3,}[0-9]{1,4}\s*$").unwrap())
}

/// Pages (0-based) that are tables of contents.
pub(crate) fn toc_pages(text: &PageText) -> BTreeSet<usize> {
    let mut count = std::collections::BTreeMap::<usize, usize>::new();
    for l in &text.lines {
        if leaders().is_match(text.line_text(l)) {
            *count.entry(l.page).or_default() += 1;
        }
    }
    count.into_iter().filter(|(_, n)| *n >= TOC_LINES).map(|(p, _)| p).collect()
}

/// A candidate heading line: its level if numbered.
fn classify(line: &str) -> Option<Option<u32>> {
    let c = numbered().captures(line)?;
    let title = c.name("title").map_or("", |m| m.as_str()).trim();
    let level = if c.name("kw").is_some() || c.name("sec").is_some() {
        1
    } else {
        c.name("num").map_or(1, |m| m.as_str().split('.').count() as u32)
    };
    if c.name("num").is_some() {
        let first = title.chars().next()?;
        if !(first.is_uppercase() || first.is_ascii_digit()) {
            return None;
        }
    }
    Some(Some(level))
}

/// Whether a line reads like a sentence rather than a title.
fn sentence_like(title: &str) -> bool {
    let t = title.trim_end();
    let words = t.split_whitespace().count();
    (t.ends_with('.') || t.ends_with(',') || t.ends_with(';')) && words > 8 || words > 18
}

fn capitals(s: &str) -> bool {
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase())
}

/// The headings of `text`, in order.
pub(crate) fn recover(text: &PageText) -> Vec<HeadingMark> {
    let toc = toc_pages(text);
    let body = text.body_size.max(1.0);
    let mut found: Vec<(Span, Option<u32>, f32)> = Vec::new();
    for (p, _) in text.paragraphs.iter().enumerate() {
        let lines: Vec<&LineRef> = text.lines_of(p).collect();
        let Some(first) = lines.first() else { continue };
        if toc.contains(&first.page) {
            continue;
        }
        let line = text.line_text(first).trim();
        if line.chars().count() > MAX_CHARS || !line.chars().any(char::is_alphabetic) || sentence_like(line) {
            continue;
        }
        let font =
            first.size >= LARGER * body || first.bold || capitals(line) || first.font != text.body_font;
        match classify(line) {
            Some(Some(level)) if font => {
                // A title wrapped onto a second line of the same font joins it.
                let mut span = first.span;
                if let Some(second) = lines.get(1) {
                    let same = (second.size - first.size).abs() < 0.1
                        && second.bold == first.bold
                        && second.font == first.font;
                    if same && lines.len() == 2 && text.line_text(second).chars().count() < MAX_CHARS / 2 {
                        span.end = second.span.end;
                    }
                }
                found.push((span, Some(level), first.size));
            }
            _ if first.size >= BIG * body && lines.len() <= 2 && line.split_whitespace().count() <= 12 => {
                let end = lines.last().map_or(first.span.end, |l| l.span.end);
                found.push((Span::new(first.span.start, end), None, first.size));
            }
            _ => {}
        }
    }
    // Unnumbered headings: ranked by size, the largest level 1; below the numbered depth
    // when both kinds occur and the unnumbered ones are not larger than the numbered ones.
    let mut sizes: Vec<i32> =
        found.iter().filter(|f| f.1.is_none()).map(|f| (f.2 * 2.0).round() as i32).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    let numbered_max = found.iter().filter(|f| f.1.is_some()).map(|f| f.2).fold(0.0, f32::max);
    found
        .into_iter()
        .map(|(span, level, size)| {
            let level = level.unwrap_or_else(|| {
                let rank = sizes.iter().position(|s| *s == (size * 2.0).round() as i32).unwrap_or(0) as u32;
                if numbered_max > 0.0 && size <= numbered_max {
                    2 + rank
                } else {
                    1 + rank
                }
            });
            let title = text.text[span.start..span.end].split_whitespace().collect::<Vec<_>>().join(" ");
            HeadingMark { level, title, span, number: None }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_gives_levels() {
        assert_eq!(classify("3.1.7. Applications Extending Readline"), Some(Some(3)));
        assert_eq!(classify("1 USLM SCHEMA"), Some(Some(1)));
        assert_eq!(classify("16.2.1 Some Title"), Some(Some(3)));
        assert_eq!(classify("Appendix A: Acronyms"), Some(Some(1)));
        assert_eq!(classify("SEC. 101. SHORT TITLE."), Some(Some(1)));
        assert_eq!(classify("2 apples and pears"), None);
        assert_eq!(classify("Bash is a shell"), None);
    }

    #[test]
    fn leaders_mark_contents_lines() {
        assert!(leaders().is_match("1.1 Overview ........................ 6"));
        assert!(leaders().is_match("Executive Summary . . . . . . . iv"));
        assert!(!leaders().is_match("The shell reads 3 lines."));
    }
}
