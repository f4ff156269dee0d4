//! Headings recovered from the text when a PDF has no outline.
//!
//! A paragraph's first line is a heading when:
//!
//! - it is **numbered** (`1.`, `1.2`, `2.3.4`, `Appendix A`, `Appendix B—Gaps`, `B.4.5`, `SEC. 101.`, `Chapter 3`), the
//!   title after the number starts with a capital or a digit, the line is short and does not
//!   read as a sentence, and its font says heading: larger than the body text, bold (or, for
//!   a heading run into its paragraph, its first word bold), or in capitals. The level is the depth of the number (`3.1.7` is level 3; appendices and
//!   chapters are level 1);
//! - or it is **unnumbered** but set at least [`BIG`] times the body size, short, and alone
//!   in its paragraph; its level comes after the numbered ones' (sizes ranked). In a
//!   document with numbered headings, the first page's unnumbered ones are its title block,
//!   not headings (see [`title`]).
//!
//! Contents pages never reach this stage (`contents.rs` leaves their leader lines out).
//! Rows of numbered tables (`1 @type …`) are body font, so the font condition keeps them
//! out.

use std::sync::OnceLock;

use regex::Regex;
use strata_core::Span;

use super::form::{self, Form};
use super::page_text::{LineRef, PageText};
use crate::read::HeadingMark;

/// Size ratio to the body text from which an unnumbered line is a heading.
const BIG: f32 = 1.3;
/// Size ratio to the body text from which a numbered line's font says heading.
const LARGER: f32 = 1.08;
/// Numbered headings from which a document's first page counts as its title block.
const MIN_NUMBERED: usize = 5;
/// Longest heading, in characters.
const MAX_CHARS: usize = 120;
/// Words from which a numbered line that opens a paragraph of three lines or more is its
/// first line, not a heading.
const LONG_WORDS: usize = 10;

fn numbered() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?:(?P<kw>Appendix|APPENDIX|Annex|ANNEX|Chapter|CHAPTER|Part|PART)\s+(?P<kn>[A-Z]|[0-9]+|[IVX]+)\b[.:]?|(?:SEC\.|Sec\.|§)\s*(?P<sec>[0-9]+[A-Za-z]?)\.|(?P<num>[0-9]{1,2}(?:\.[0-9]{1,3}){0,5})\.?|(?P<app>[A-Z](?:\.[0-9]{1,3}){1,5})\.?)(?:\s*[—–]\s*|\s+|$)(?P<title>.*)$",
        )
        .unwrap()
    })
}

/// A candidate heading line: its level if numbered.
fn classify(line: &str) -> Option<Option<u32>> {
    let c = numbered().captures(line)?;
    let title = c.name("title").map_or("", |m| m.as_str()).trim();
    let level = if c.name("kw").is_some() || c.name("sec").is_some() {
        1
    } else if let Some(app) = c.name("app") {
        // `B.4.5`: an appendix's section, below the appendix's own level.
        app.as_str().split('.').count() as u32
    } else {
        c.name("num").map_or(1, |m| m.as_str().split('.').count() as u32)
    };
    if c.name("num").is_some() || c.name("app").is_some() {
        let first = title.chars().next()?;
        if !(first.is_uppercase() || first.is_ascii_digit()) || tabular(title) {
            return None;
        }
    }
    Some(Some(level))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Whether the title after a number reads as a table row or a date, not a title: two
/// numbers or more (`Weeks Ended 52 Weeks Ended`, `December 2019 2.50:1.00`,
/// `Registration Statement Number 333-150447 on Form S- 8`) or a month first
/// (`5 October 2020`).
fn tabular(title: &str) -> bool {
    let numbers = title
        .split_whitespace()
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit())
                && w.chars().all(|c| c.is_ascii_digit() || ",.%:()/$-".contains(c))
        })
        .count();
    let first = title.split_whitespace().next().unwrap_or("").to_lowercase();
    numbers >= 2 || MONTHS.contains(&first.as_str())
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

/// A recovered heading, and its kind when it is a form heading (whose level is its own,
/// see [`super::nest`]).
#[derive(Debug, Clone)]
pub(crate) struct Recovered {
    pub mark: HeadingMark,
    pub form: Option<Form>,
}

/// A heading found: span, level if numbered, size, page, form kind.
type Found = (Span, Option<u32>, f32, usize, Option<Form>);

/// Where a numbered heading run into its paragraph ends (`1.2. Components of Compensation.`
/// in `1.2. Components of Compensation. Each nonemployee member of the Board …`, or
/// `3.1 Participation:` in `3.1 Participation: An Employee shall be …`): the byte after the
/// first period or colon that a capitalized sentence of three words or more follows.
fn run_in(line: &str) -> Option<usize> {
    let lead = line.len() - line.trim_start().len();
    let title = numbered().captures(line.trim_start())?.name("title")?;
    let at = title.as_str().find(". ").or_else(|| title.as_str().find(": "))?;
    let rest = &title.as_str()[at + 2..];
    let capital = rest.chars().next().is_some_and(char::is_uppercase);
    (capital && rest.split_whitespace().count() >= 3).then_some(lead + title.start() + at + 1)
}

/// The depth of a dotted section number that starts `title` (`1.5.2.1 Namespaces` is 4).
pub(crate) fn depth(title: &str) -> Option<u32> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"^[0-9]{1,2}(?:\.[0-9]{1,3}){0,5}\.?\s").unwrap());
    let number = re.find(title)?.as_str().trim().trim_end_matches('.');
    Some(number.split('.').count() as u32)
}

/// Whether an unnumbered line set large heads a section rather than being large body text
/// (an earnings release's bullets): short, alone or with one more line, and no sentence
/// (no final period, no hyphen or lower-case line going on), footnote, address or table
/// row.
fn display_heading(text: &PageText, lines: &[&LineRef], line: &str) -> bool {
    let goes_on = lines
        .get(1)
        .is_some_and(|l| text.line_text(l).trim_start().chars().next().is_some_and(char::is_lowercase));
    lines.len() <= 2
        && line.split_whitespace().count() <= 12
        && !line.ends_with(['.', '-'])
        && !line.starts_with('(')
        && !line.contains('@')
        && !tabular(line)
        && !goes_on
}

/// The headings of `text`, in order.
pub(crate) fn recover(text: &PageText) -> Vec<Recovered> {
    let body = text.body_size.max(1.0);
    let mut found: Vec<Found> = Vec::new();
    for (p, _) in text.paragraphs.iter().enumerate() {
        let lines: Vec<&LineRef> = text.lines_of(p).collect();
        let Some(first) = lines.first().filter(|l| !l.table) else { continue };
        let line = text.line_text(first).trim();
        if line.chars().count() > MAX_CHARS || !line.chars().any(char::is_alphabetic) || sentence_like(line) {
            continue;
        }
        let run_in_bold = first.lead_bold && run_in(text.line_text(first)).is_some();
        let font = first.size >= LARGER * body
            || first.bold
            || run_in_bold
            || capitals(line)
            || first.font != text.body_font;
        let form = form::classify(line).filter(|_| font || lines.len() == 1);
        let heading = form.map(|f| Some(f.level())).or_else(|| classify(line).filter(|_| font));
        match heading {
            Some(Some(level)) => {
                let mut span = first.span;
                let cut = if form.is_none() { run_in(text.line_text(first)) } else { None };
                if let Some(end) = cut {
                    span.end = first.span.start + end;
                } else if form.is_none() && lines.len() > 2 && line.split_whitespace().count() > LONG_WORDS {
                    // A long numbered line that a paragraph goes on from opens the paragraph.
                    continue;
                } else if let Some(second) = lines.get(1) {
                    // A title wrapped onto a second line of the same font joins it.
                    let same = (second.size - first.size).abs() < 0.1
                        && second.bold == first.bold
                        && second.font == first.font;
                    if same && lines.len() == 2 && text.line_text(second).chars().count() < MAX_CHARS / 2 {
                        span.end = second.span.end;
                    }
                }
                // The wrapped title is judged whole (`… on Form S-` + `8` is a list entry).
                let whole = text.text[span.start..span.end].split_whitespace().collect::<Vec<_>>().join(" ");
                if form.is_none() && classify(&whole).is_none() {
                    continue;
                }
                found.push((span, Some(level), first.size, first.page, form));
            }
            _ if first.size >= BIG * body && display_heading(text, &lines, line) => {
                let end = lines.last().map_or(first.span.end, |l| l.span.end);
                found.push((Span::new(first.span.start, end), None, first.size, first.page, None));
            }
            _ => {}
        }
    }
    // A numbered document's first page, when it has no numbered heading, is its title
    // block (title, author, date): no headings there.
    let numbered = found.iter().filter(|f| f.1.is_some()).count();
    if numbered >= MIN_NUMBERED && !found.iter().any(|f| f.1.is_some() && f.3 == 0) {
        found.retain(|f| f.1.is_some() || f.3 > 0);
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
        .map(|(span, level, size, _, form)| {
            let level = level.unwrap_or_else(|| {
                let rank = sizes.iter().position(|s| *s == (size * 2.0).round() as i32).unwrap_or(0) as u32;
                if numbered_max > 0.0 && size <= numbered_max {
                    2 + rank
                } else {
                    1 + rank
                }
            });
            let title = text.text[span.start..span.end].split_whitespace().collect::<Vec<_>>().join(" ");
            Recovered { mark: HeadingMark { level, title, span, number: None }, form }
        })
        .collect()
}

/// The title of a document from its first page with text: the largest line there, with the
/// line after it when that is set the same (a title in two lines), when it is at least
/// [`BIG`] times the body size.
pub(crate) fn title(text: &PageText) -> Option<String> {
    let page = text.lines.first()?.page;
    let lines: Vec<&LineRef> = text.lines.iter().take_while(|l| l.page == page).collect();
    let (i, top) =
        lines.iter().enumerate().max_by(|a, b| a.1.size.total_cmp(&b.1.size).then(b.0.cmp(&a.0)))?;
    if top.size < BIG * text.body_size.max(1.0) {
        return None;
    }
    let mut title = text.line_text(top).trim().to_string();
    if let Some(next) =
        lines.get(i + 1).filter(|n| (n.size - top.size).abs() < 0.1 && n.paragraph == top.paragraph)
    {
        title.push(' ');
        title.push_str(text.line_text(next).trim());
    }
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (title.chars().any(char::is_alphabetic) && title.chars().count() <= 200).then_some(title)
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
        assert_eq!(classify("5 October 2020"), None);
        assert_eq!(classify("31 December 2019 2.50:1.00"), None);
        assert_eq!(classify("8. Registration Statement Number 333-150447 on Form S- 8"), None);
        assert_eq!(classify("4. Balance Sheet Components"), Some(Some(1)));
    }

    #[test]
    fn run_in_headings_end_at_their_period() {
        let line = "1.2. Components of Compensation. Each nonemployee member of the Board (each, a";
        assert_eq!(run_in(line).map(|e| &line[..e]), Some("1.2. Components of Compensation."));
        assert_eq!(run_in("3.1 Shell Syntax"), None);
        assert_eq!(run_in("2.1. Value. In order"), None);
        let colon = " 3.1 Participation: An Employee shall be";
        assert_eq!(run_in(colon).map(|e| &colon[..e]), Some(" 3.1 Participation:"));
    }
}
