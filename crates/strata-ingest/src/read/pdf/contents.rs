//! Table-of-contents pages: their entries read as an outline, their lines left out of the
//! body text.
//!
//! A contents line is a title, then dot leaders or a gap, then the page number printed in
//! the contents: `1.1 Overview ........ 6`, `Executive Summary . . . . iv`,
//! `Item 7. Management’s Discussion and Analysis … 29`, `Report of Independent Auditors F-2`.
//! A page is a contents page when at least [`MIN_LINES`] of its lines are entries, entries
//! make up at least half of its lines, and their page numbers mostly run forward (a table
//! whose rows end in small numbers does not). A title wrapped onto the next line joins it,
//! and a `PART II` line without a number is an entry too.
//!
//! Only the first run of consecutive contents pages is read; later contents pages (of an
//! exhibit bound into a filing) only lose their leader lines.
//!
//! Levels: parts 1 and items 2 (1 without parts), as in [`super::form`]; other entries by
//! their indentation, one level below the entry they are indented under.
//!
//! The entry lines leave the body text, like running headers (so an exact search for a
//! section title finds the section, not its contents line, and heading recovery does not
//! take them for headings); the calibration onto physical pages is in `calibrate`. Pages
//! with [`MIN_LINES`] dot-leader lines that are no contents page by these rules (an index)
//! lose their leader lines all the same.

use std::sync::OnceLock;

use regex::Regex;

use super::form::{self, Form};
use super::headings;
use super::PageLines;

/// Entry lines that make a page a contents page.
const MIN_LINES: usize = 5;
/// Share of consecutive page numbers that must run forward.
const FORWARD: f64 = 0.75;
/// Indentations closer than this (in points) are one level.
const INDENT: f32 = 2.0;
/// Lines of a wrapped title joined at most.
const MAX_WRAP: usize = 2;

/// One entry of a contents page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub title: String,
    /// The page number as printed (`28`, `iv`, `F-3`); `None` for a part without one.
    pub printed: Option<String>,
    pub level: u32,
    /// The 0-based page of the contents it was read from.
    pub page: usize,
}

fn leaders() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:\.\s*){4,}\s*[0-9ivxlcIVXLC]+\s*$").unwrap())
}

fn entry() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?P<title>.*?\S)(?:\s*(?:\.\s*){3,}|\s*…\s*|\s+)(?P<page>[0-9]{1,4}|[ivxlc]{1,7}|[A-Z]{1,2}-[0-9]{1,3})$",
        )
        .unwrap()
    })
}

/// A contents line's title and printed page number, if it is one: the title has a letter
/// and does not end in a number (a table row such as `Revenue 2018 2017` is no entry).
fn parse_entry(line: &str) -> Option<(String, String)> {
    let c = entry().captures(line.trim())?;
    let title = c["title"].trim_end_matches(['.', ' ', '…']).trim();
    let last = title.split_whitespace().last()?;
    let numeric = last.chars().all(|c| c.is_ascii_digit() || ",.$%()-".contains(c));
    if numeric || !title.chars().any(char::is_alphabetic) {
        return None;
    }
    Some((title.to_string(), c["page"].to_string()))
}

/// Column headers of contents pages, which no entry wraps from.
fn header(line: &str) -> bool {
    let l = line.trim().to_ascii_lowercase();
    matches!(l.as_str(), "page" | "pages" | "page no." | "page no" | "page number")
}

/// An entry before its level is known.
struct Draft {
    title: String,
    printed: Option<String>,
    x0: f32,
    form: Option<Form>,
    page: usize,
}

/// Reads the contents pages' entries and leaves their lines out of `pages`.
pub(crate) fn take(pages: &mut [PageLines]) -> Vec<Listed> {
    let mut drafts: Vec<Draft> = Vec::new();
    for (n, p) in pages.iter_mut().enumerate() {
        // Only the first run of contents pages is the document's; later ones belong to
        // documents bound in after it (a plan's own contents in an exhibit).
        let ended = drafts.last().is_some_and(|d| d.page + 1 < n);
        match if ended { None } else { read_page(p, n) } {
            Some((mut found, used)) => {
                drafts.append(&mut found);
                let mut i = 0;
                p.lines.retain(|_| {
                    i += 1;
                    // `used` is in line order.
                    used.binary_search(&(i - 1)).is_err()
                });
            }
            None => strip_page_leaders(p),
        }
    }
    levels(drafts)
}

/// Leaves out the leader lines of pages with [`MIN_LINES`] of them, reading no entries
/// (for documents whose bookmarks are the outline). Returns no entries.
pub(crate) fn strip_leaders(pages: &mut [PageLines]) -> Vec<Listed> {
    pages.iter_mut().for_each(strip_page_leaders);
    Vec::new()
}

fn strip_page_leaders(p: &mut PageLines) {
    if p.lines.iter().filter(|l| leaders().is_match(&l.text)).count() >= MIN_LINES {
        p.lines.retain(|l| !leaders().is_match(&l.text));
    }
}

/// The title of a contents page (`Table of Contents`, `CONTENTS`, `Index`), which leaves
/// with its entries: it heads no section of the text.
fn contents_title(line: &str) -> bool {
    let l = line.trim().trim_end_matches(':').to_lowercase();
    let l = l.split_whitespace().collect::<Vec<_>>().join(" ");
    matches!(l.as_str(), "contents" | "table of contents" | "index" | "i n d e x" | "c o n t e n t s")
}

/// The entries of page `n` and the indexes of the lines they used, when it is a contents
/// page.
fn read_page(p: &PageLines, n: usize) -> Option<(Vec<Draft>, Vec<usize>)> {
    let parsed: Vec<Option<(String, String)>> = p.lines.iter().map(|l| parse_entry(&l.text)).collect();
    let numbers: Vec<u32> = parsed.iter().flatten().filter_map(|(_, page)| page.parse().ok()).collect();
    if parsed.iter().flatten().count() < MIN_LINES {
        return None;
    }
    let pairs = numbers.len().saturating_sub(1).max(1);
    let forward = numbers.windows(2).filter(|w| w[1] >= w[0]).count();
    if (forward as f64) < FORWARD * pairs as f64 {
        return None;
    }
    let (mut drafts, mut used, mut pending) = (Vec::new(), Vec::new(), Vec::<usize>::new());
    for (i, line) in p.lines.iter().enumerate() {
        let text = line.text.trim();
        if let Some((title, page)) = &parsed[i] {
            let mut full: Vec<&str> = pending.iter().map(|&j| p.lines[j].text.trim()).collect();
            full.push(title);
            let x0 = pending.first().map_or(line.x0, |&j| p.lines[j].x0);
            let title = full.join(" ");
            used.append(&mut pending);
            used.push(i);
            drafts.push(Draft {
                form: form::classify(&title),
                title,
                printed: Some(page.clone()),
                x0,
                page: n,
            });
        } else if form::classify(text) == Some(Form::Part) {
            pending.clear();
            used.push(i);
            drafts.push(Draft {
                title: text.to_string(),
                printed: None,
                x0: line.x0,
                form: Some(Form::Part),
                page: n,
            });
        } else if contents_title(text) {
            used.push(i);
        } else if !drafts.is_empty() && !header(text) {
            if pending.len() == MAX_WRAP {
                pending.remove(0);
            }
            pending.push(i);
        }
    }
    (used.len() * 2 >= p.lines.len()).then_some((drafts, used))
}

/// Gives every draft its level: parts and items theirs, other entries by indentation.
fn levels(drafts: Vec<Draft>) -> Vec<Listed> {
    let parts = drafts.iter().any(|d| d.form == Some(Form::Part));
    let mut stack: Vec<(f32, u32)> = Vec::new();
    drafts
        .into_iter()
        .map(|d| {
            let level = match d.form {
                Some(Form::Part) => Some(1),
                Some(Form::Item) => Some(if parts { 2 } else { 1 }),
                _ => headings::depth(&d.title),
            };
            let level = match level {
                Some(level) => {
                    stack.retain(|s| s.1 < level);
                    stack.push((d.x0, level));
                    level
                }
                None => indented(&mut stack, d.x0),
            };
            Listed { title: d.title, printed: d.printed, level, page: d.page }
        })
        .collect()
}

/// The level of an entry at indentation `x0` below the entries in `stack`.
fn indented(stack: &mut Vec<(f32, u32)>, x0: f32) -> u32 {
    while stack.len() > 1 && stack.last().is_some_and(|s| s.0 > x0 + INDENT) {
        stack.pop();
    }
    match stack.last().copied() {
        Some((x, level)) if (x - x0).abs() <= INDENT => level,
        Some((x, level)) if x < x0 => {
            stack.push((x0, level + 1));
            level + 1
        }
        Some((_, level)) => level,
        None => {
            stack.push((x0, 1));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::{self, Line};
    use super::*;

    fn line(text: &str, x0: f32) -> Line {
        let cells = vec![layout::Cell { x0, start: 0, end: text.len() }];
        Line {
            text: text.into(),
            y: 0.0,
            x0,
            size: 10.0,
            bold: false,
            lead_bold: false,
            font: 0,
            column: 0,
            cells,
            row: None,
        }
    }

    #[test]
    fn leaders_mark_contents_lines() {
        assert!(leaders().is_match("1.1 Overview ........................ 6"));
        assert!(leaders().is_match("Executive Summary . . . . . . . iv"));
        assert!(!leaders().is_match("The shell reads 3 lines."));
        assert!(!leaders().is_match("and so on... 12 more"));
    }

    #[test]
    fn entries_are_title_and_printed_page() {
        let e = |s: &str| parse_entry(s).map(|(t, p)| format!("{t}|{p}"));
        assert_eq!(e("Item 1A. Risk Factors 11").as_deref(), Some("Item 1A. Risk Factors|11"));
        assert_eq!(e("1.1 Overview ........ 6").as_deref(), Some("1.1 Overview|6"));
        assert_eq!(e("Executive Summary . . . . iv").as_deref(), Some("Executive Summary|iv"));
        assert_eq!(
            e("Report of Independent Auditors F-2").as_deref(),
            Some("Report of Independent Auditors|F-2")
        );
        assert_eq!(e("Item 1. Business. 1").as_deref(), Some("Item 1. Business|1"));
        assert_eq!(e("Net revenues 2018 2017"), None);
        assert_eq!(e("Total (1,577) 12"), None);
        assert_eq!(e("12 34"), None);
    }

    #[test]
    fn a_filing_contents_page_becomes_leveled_entries() {
        let mut pages = vec![PageLines {
            lines: vec![
                line("Table of Contents", 50.0),
                line("Page", 500.0),
                line("PART I", 50.0),
                line("Item 1. Business 2", 50.0),
                line("Item 1A. Risk Factors 11", 50.0),
                line("PART II", 50.0),
                line("Item 5. Market for Registrant’s Common Equity and Issuer Purchases of Equity", 50.0),
                line("Securities 28", 60.0),
                line("Item 7. Management’s Discussion and Analysis 29", 50.0),
                line("Results of Operations 35", 62.0),
                line("Signatures 120", 50.0),
            ],
            height: 792.0,
            width: 612.0,
        }];
        let listed = take(&mut pages);
        let got: Vec<(u32, &str, Option<&str>)> =
            listed.iter().map(|l| (l.level, l.title.as_str(), l.printed.as_deref())).collect();
        assert_eq!(
            got,
            vec![
                (1, "PART I", None),
                (2, "Item 1. Business", Some("2")),
                (2, "Item 1A. Risk Factors", Some("11")),
                (1, "PART II", None),
                (
                    2,
                    "Item 5. Market for Registrant’s Common Equity and Issuer Purchases of Equity Securities",
                    Some("28")
                ),
                (2, "Item 7. Management’s Discussion and Analysis", Some("29")),
                (3, "Results of Operations", Some("35")),
                (2, "Signatures", Some("120")),
            ]
        );
        let left: Vec<&str> = pages[0].lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(left, ["Page"]);
    }

    #[test]
    fn a_table_with_numbers_is_no_contents_page() {
        let mut pages = vec![PageLines {
            lines: ["Stores 120", "Employees 95", "Countries 14", "Warehouses 9", "Brands 3", "Segments 2"]
                .iter()
                .map(|t| line(t, 50.0))
                .collect(),
            height: 792.0,
            width: 612.0,
        }];
        assert!(take(&mut pages).is_empty());
        assert_eq!(pages[0].lines.len(), 6);
    }
}
