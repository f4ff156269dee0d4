//! Tables: runs of lines laid out as rows of a grid become table rows, cells joined by
//! ` | `, with their header rows marked.
//!
//! A PDF has no tables, only text placed on a page. A financial statement is a label
//! column and columns of numbers: each of its lines has two cells or more (runs of text
//! apart by a gap of an em or more, see `layout`) with a number after the first one. So:
//!
//! 1. **Rows.** A line is a *data row* when a cell after its first is a number that is not a
//!    year (`8,978`, `(3,321)`, `—`, `12.5 %`); a `$` alone is the next cell's, a `)` or `%`
//!    alone the previous one's.
//! 2. **Body.** A table runs from a data row down through the lines that follow it closely
//!    in the same column: more data rows, other lines of several cells, and lines of one
//!    cell (group labels: `Investing Activities`) that a data row follows within
//!    [`MAX_LABELS`] lines. A form heading, a line set larger than the rows, or a sentence
//!    ends it. It needs [`MIN_DATA`] data rows, or two under a header.
//! 3. **Header.** Above the body, up to [`MAX_HEADER`] lines are its header when they hold
//!    years or the unit (`(in millions)`), or sit over the number columns (`Year Ended
//!    December 31,`); a group label or two may sit between the header and the first data
//!    row.
//!
//! A row label wrapped onto a second line (`Acquisitions, net of cash acquired, … purchases
//! of` / `intangible and other assets (873) (61)`) is joined into one row, so that no chunk
//! boundary can part a label from its numbers.

use std::sync::OnceLock;

use regex::Regex;

use super::form;
use super::layout::{Line, Row};
use super::PageLines;

/// Data rows a table needs (two are enough under a header).
const MIN_DATA: usize = 3;
/// Group labels in a row that a data row must follow.
const MAX_LABELS: usize = 2;
/// Header lines taken at most above a table's first data row.
const MAX_HEADER: usize = 5;
/// Widest gap between two rows, in units of the line size.
const MAX_ROW_GAP: f32 = 3.2;
/// Words from which a line of one cell is prose, not a label (`Adjustments to reconcile net
/// income to net cash provided by operating activities:` has 12).
const PROSE_WORDS: usize = 16;

/// A cell of a row: its left edge and its text.
#[derive(Debug, Clone, PartialEq)]
struct Cell<'a> {
    x0: f32,
    text: &'a str,
    /// For merged cells (`$` and its number), the text as joined.
    joined: Option<String>,
}

impl Cell<'_> {
    fn text(&self) -> &str {
        self.joined.as_deref().unwrap_or(self.text)
    }
}

/// What a line is to a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A label and numbers.
    Data,
    /// Several cells, none a number other than a year.
    Cells,
    /// One cell.
    Single,
}

/// A table found on a page: lines `start..end`, of which `start..header_end` are its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    start: usize,
    header_end: usize,
    end: usize,
}

/// Finds the tables of every page and rewrites their lines as rows. Returns how many
/// tables were found.
pub(crate) fn mark(pages: &mut [PageLines]) -> usize {
    let mut next = 0u32;
    for page in pages {
        let found = find(&page.lines);
        // Back to front, so that joining wrapped labels leaves earlier indices alone.
        for (i, f) in found.iter().enumerate().rev() {
            rewrite(&mut page.lines, *f, next + i as u32);
        }
        next += found.len() as u32;
    }
    next as usize
}

/// The cells of a line, with a `$` alone joined to the number after it and a `)` or `%`
/// alone to the number before it.
fn cells(line: &Line) -> Vec<Cell<'_>> {
    let mut out: Vec<Cell<'_>> = Vec::with_capacity(line.cells.len());
    let mut sign: Option<&str> = None;
    for c in &line.cells {
        let Some(mut text) = line.text.get(c.start..c.end).map(str::trim) else { continue };
        // The next column's `$` set close after a number (`8,978 $`) is the next cell's.
        let mut next_sign = None;
        if let Some((head, sign)) = text.rsplit_once(' ').filter(|(_, s)| currency(s)) {
            text = head.trim_end();
            next_sign = Some(sign);
        }
        if text.is_empty() {
            continue;
        }
        if currency(text) {
            sign = Some(text);
            continue;
        }
        if matches!(text, ")" | "%" | ")%" | "%)") {
            if let Some(last) = out.last_mut() {
                let joined = format!("{}{text}", last.text());
                last.joined = Some(joined);
                continue;
            }
        }
        let joined = sign.take().map(|sign| format!("{sign} {text}"));
        out.push(Cell { x0: c.x0, text, joined });
        sign = next_sign;
    }
    if let Some(sign) = sign {
        // A `$` with nothing after it on the line stays a cell of its own.
        out.push(Cell { x0: line.x0, text: sign, joined: None });
    }
    out
}

fn currency(text: &str) -> bool {
    matches!(text, "$" | "€" | "£" | "¥")
}

fn number() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?:[$€£¥]\s*)?\(?[-–—]?\s*[$€£¥]?\s*(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?\s*\)?\s*(?:%|x|bps|pts)?\)?$|^[-–—]+$")
            .unwrap()
    })
}

fn year(text: &str) -> bool {
    let t = text.trim_end_matches([',', '*']);
    t.len() == 4 && (t.starts_with("19") || t.starts_with("20")) && t.bytes().all(|b| b.is_ascii_digit())
}

/// A number other than a year.
fn amount(text: &str) -> bool {
    number().is_match(text) && !year(text)
}

fn units(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:in\s+)?(?:millions|thousands|billions|except\s+per\s+share)\b").unwrap()
    });
    text.split_whitespace().count() <= 10 && re.is_match(text)
}

fn kind(cells: &[Cell<'_>]) -> Kind {
    match cells {
        [] | [_] => Kind::Single,
        [_, rest @ ..] if rest.iter().any(|c| amount(c.text())) => Kind::Data,
        _ => Kind::Cells,
    }
}

/// Whether line `b` follows line `a` closely enough to be the next row of a table.
fn follows(a: &Line, b: &Line) -> bool {
    let gap = a.y - b.y;
    a.column == b.column && gap > 0.0 && gap <= MAX_ROW_GAP * a.size.max(b.size).max(1.0)
}

/// The tables of one page's lines, in order.
fn find(lines: &[Line]) -> Vec<Found> {
    let cells: Vec<Vec<Cell<'_>>> = lines.iter().map(cells).collect();
    let kinds: Vec<Kind> = cells.iter().map(|c| kind(c)).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if kinds[i] != Kind::Data {
            i += 1;
            continue;
        }
        let (end, data) = body(lines, &kinds, i);
        let label_x =
            (i..end).filter(|&r| kinds[r] == Kind::Data).map(|r| cells[r][0].x0).fold(f32::MAX, f32::min);
        let value_x = (i..end)
            .filter(|&r| kinds[r] == Kind::Data)
            .filter_map(|r| cells[r].get(1).map(|c| c.x0))
            .fold(f32::MAX, f32::min);
        let (start, header_end) = header(lines, &kinds, i, label_x, value_x);
        let floor = out.last().map_or(0, |f: &Found| f.end);
        let (start, header_end) = if start < floor { (i, i) } else { (start, header_end) };
        if data >= MIN_DATA || (data >= 2 && header_end > start) {
            out.push(Found { start, header_end, end });
        }
        i = end;
    }
    out
}

/// Where the body that starts with data row `first` ends, and its data rows.
fn body(lines: &[Line], kinds: &[Kind], first: usize) -> (usize, usize) {
    let mut last_data = first;
    let mut data = 1;
    let size = lines[first].size.max(1.0);
    let mut j = first + 1;
    while j < lines.len() && follows(&lines[j - 1], &lines[j]) {
        let line = &lines[j];
        match kinds[j] {
            Kind::Data => {
                last_data = j;
                data += 1;
            }
            Kind::Cells => {}
            Kind::Single => {
                let ends = line.size > 1.15 * size
                    || form::classify(line.text.trim()).is_some()
                    || prose(&line.text);
                if ends || j - last_data > MAX_LABELS {
                    break;
                }
            }
        }
        j += 1;
    }
    (last_data + 1, data)
}

/// The first line of the table whose first data row is `first`, and the end of its header
/// rows (the start when it has none). Walking up from `first`: group labels, then header
/// lines; the header rows run from the highest header line through the lowest. Without
/// header lines, the group labels still open the table.
fn header(lines: &[Line], kinds: &[Kind], first: usize, label_x: f32, value_x: f32) -> (usize, usize) {
    let mut lowest: Option<usize> = None;
    let mut top = first;
    let mut label_top = first;
    let mut labels = 0;
    let mut k = first;
    while k > 0 && first - k < MAX_HEADER && follows(&lines[k - 1], &lines[k]) {
        let u = k - 1;
        let line = &lines[u];
        let text = line.text.trim();
        let over_values = line.x0 >= label_x + 0.5 * (value_x - label_x).max(0.0);
        let wrapped = u + 1 == first && wraps_into(lines, first);
        let heads = form::classify(text).is_none()
            && match kinds[u] {
                Kind::Cells => true,
                Kind::Data => false,
                Kind::Single => over_values || units(text) || text.split_whitespace().all(year),
            };
        if heads {
            top = u;
            lowest.get_or_insert(u);
        } else if kinds[u] == Kind::Single
            && lowest.is_none()
            && labels < MAX_LABELS
            && (label(text) || wrapped)
        {
            labels += 1;
            label_top = u;
        } else {
            break;
        }
        k = u;
    }
    match lowest {
        Some(l) => (top, l + 1),
        // No header: the group labels (or the first line of a wrapped label) are rows.
        None => (label_top, label_top),
    }
}

/// A line of prose inside a table's span: a long one, or a sentence of ten words or more.
fn prose(text: &str) -> bool {
    let words = text.split_whitespace().count();
    words >= PROSE_WORDS || (words >= 10 && text.trim_end().ends_with('.'))
}

/// Whether the line above row `first` is the first line of its label: a line of one cell
/// and no prose, and a row that goes on in lower case.
fn wraps_into(lines: &[Line], first: usize) -> bool {
    let above = &lines[first - 1];
    above.cells.len() == 1 && !prose(&above.text) && starts_lower(&lines[first].text)
}

fn starts_lower(text: &str) -> bool {
    text.trim_start().chars().next().is_some_and(char::is_lowercase)
}

/// A group label: a short line that is no sentence (`Operating Activities`, `Change in
/// assets and liabilities:`).
fn label(text: &str) -> bool {
    text.split_whitespace().count() <= 8 && !text.ends_with('.')
}

/// Rewrites the lines of a found table as its rows: cells joined by ` | `, wrapped labels
/// joined to their row, each line marked with its table and whether it heads it.
fn rewrite(lines: &mut Vec<Line>, f: Found, table: u32) {
    let mut rows: Vec<Line> = lines.drain(f.start..f.end).collect();
    let mut out: Vec<Line> = Vec::with_capacity(rows.len());
    let header_rows = f.header_end - f.start;
    for (i, mut line) in rows.drain(..).enumerate() {
        let joined = cells(&line).iter().map(Cell::text).collect::<Vec<_>>().join(" | ");
        let header = i < header_rows;
        if let Some(prev) = out.last_mut().filter(|p| wraps(p, &line, header)) {
            prev.text = format!("{} {joined}", prev.text.trim_end());
            continue;
        }
        line.text = joined;
        line.row = Some(Row { table, header });
        out.push(line);
    }
    lines.splice(f.start..f.start, out);
}

/// Whether `next` continues the label of row `prev` (a label of one cell, and a line that
/// starts with a lower-case word).
fn wraps(prev: &Line, next: &Line, header: bool) -> bool {
    let single = !prev.text.contains(" | ");
    !header && !prev.row.is_some_and(|r| r.header) && single && starts_lower(&next.text)
}

#[cfg(test)]
mod tests {
    use super::super::layout::Cell as LineCell;
    use super::*;

    /// A line from `(x0, text)` cells at baseline `y`.
    fn line(y: f32, parts: &[(f32, &str)]) -> Line {
        let mut text = String::new();
        let mut cells = Vec::new();
        for (x0, t) in parts {
            if !text.is_empty() {
                text.push(' ');
            }
            let start = text.len();
            text.push_str(t);
            cells.push(LineCell { x0: *x0, start, end: text.len() });
        }
        Line {
            text,
            y,
            x0: parts[0].0,
            size: 10.0,
            bold: false,
            lead_bold: false,
            font: 0,
            column: 0,
            cells,
            row: None,
        }
    }

    fn statement() -> Vec<Line> {
        vec![
            line(700.0, &[(72.0, "Consolidated Statement of Cash Flows")]),
            line(686.0, &[(72.0, "(in millions)")]),
            line(672.0, &[(380.0, "2022"), (440.0, "2021"), (500.0, "2020")]),
            line(658.0, &[(72.0, "Operating Activities")]),
            line(644.0, &[(72.0, "Net income"), (370.0, "$"), (380.0, "8,978 $"), (440.0, "7,679"), (500.0, "7,175")]),
            line(630.0, &[(72.0, "Depreciation and amortization"), (380.0, "2,763"), (440.0, "2,710"), (500.0, "2,548")]),
            line(616.0, &[(72.0, "Acquisitions, net of cash acquired, and purchases of")]),
            line(602.0, &[(80.0, "intangible and other assets"), (380.0, "(873)"), (440.0, "(61)"), (500.0, "—")]),
            line(588.0, &[(72.0, "Net Cash Used for Investing Activities"), (380.0, "(2,430)"), (440.0, "(3,269)"), (500.0, "(11,619)")]),
            line(560.0, &[(72.0, "See accompanying notes to the consolidated financial statements, which are an integral part of these statements and should be read with them.")]),
        ]
    }

    #[test]
    fn a_statement_becomes_rows_under_its_header() {
        let mut lines = statement();
        let found = find(&lines);
        assert_eq!(found, [Found { start: 1, header_end: 3, end: 9 }]);
        rewrite(&mut lines, found[0], 0);
        let rows: Vec<(&str, bool)> =
            lines.iter().filter_map(|l| l.row.map(|r| (l.text.as_str(), r.header))).collect();
        assert_eq!(
            rows,
            [
                ("(in millions)", true),
                ("2022 | 2021 | 2020", true),
                ("Operating Activities", false),
                ("Net income | $ 8,978 | $ 7,679 | 7,175", false),
                ("Depreciation and amortization | 2,763 | 2,710 | 2,548", false),
                (
                    "Acquisitions, net of cash acquired, and purchases of intangible and other assets | (873) | (61) | —",
                    false
                ),
                ("Net Cash Used for Investing Activities | (2,430) | (3,269) | (11,619)", false),
            ]
        );
        assert!(lines[0].row.is_none() && lines.last().unwrap().row.is_none());
    }

    #[test]
    fn prose_with_a_number_is_no_table() {
        let lines = vec![
            line(700.0, &[(72.0, "Revenue grew in every segment this year, led by"), (400.0, "12")]),
            line(686.0, &[(72.0, "the beverage business, which is our largest.")]),
            line(672.0, &[(72.0, "We expect this to continue."), (400.0, "3")]),
        ];
        assert!(find(&lines).is_empty());
    }

    #[test]
    fn numbers_and_years() {
        for n in ["8,978", "(3,321)", "—", "12.5%", "$ 7,679", "(0.4)", "1.2x", "-"] {
            assert!(amount(n), "{n}");
        }
        for n in ["2022", "2021,", "Net", "Q4", "1A."] {
            assert!(!amount(n), "{n}");
        }
    }
}
