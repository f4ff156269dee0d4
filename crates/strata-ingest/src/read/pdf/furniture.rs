//! Running headers, footers and page numbers: found across pages and left out of the text.
//!
//! Only the outermost [`EDGE_LINES`] lines at the top and at the bottom of a page are looked
//! at. One of them is furniture when it is a bare page number (`7`, `- 7 -`, `xii`,
//! `Page 7 of 40`), or when the same line, digits aside, stands at the same edge of at least
//! [`MIN_REPEATS`] pages and a tenth of them (running titles change per chapter, so
//! the count is per text, not per document).

use std::collections::HashMap;

use super::PageLines;

/// Lines looked at, at each edge of a page.
const EDGE_LINES: usize = 2;
/// Pages a line must repeat on to be a running header or footer.
const MIN_REPEATS: usize = 3;

/// Removes furniture lines from every page.
pub(crate) fn strip(pages: &mut [PageLines]) {
    let mut seen: HashMap<(bool, String), usize> = HashMap::new();
    for p in pages.iter() {
        for (top, i) in edges(p) {
            *seen.entry((top, shape(&p.lines[i].text))).or_default() += 1;
        }
    }
    let need = MIN_REPEATS.max(pages.len().div_ceil(10));
    for p in pages.iter_mut() {
        let drop: Vec<usize> = edges(p)
            .filter(|&(top, i)| {
                let text = &p.lines[i].text;
                page_number(text) || seen.get(&(top, shape(text))).is_some_and(|n| *n >= need)
            })
            .map(|(_, i)| i)
            .collect();
        let mut i = 0;
        p.lines.retain(|_| {
            i += 1;
            !drop.contains(&(i - 1))
        });
    }
}

/// The indexes of the lines at the top and bottom edges, with `true` for the top. Lines are
/// ranked by height on the page, not by reading order (a two-column page reads its footer
/// last but its running header may sit anywhere in the order).
fn edges(p: &PageLines) -> impl Iterator<Item = (bool, usize)> + '_ {
    let mut order: Vec<usize> = (0..p.lines.len()).collect();
    order.sort_by(|&a, &b| p.lines[b].y.total_cmp(&p.lines[a].y));
    let n = order.len();
    let top: Vec<(bool, usize)> = order.iter().take(EDGE_LINES.min(n)).map(|&i| (true, i)).collect();
    let bottom: Vec<(bool, usize)> =
        order.iter().rev().take(EDGE_LINES.min(n.saturating_sub(EDGE_LINES))).map(|&i| (false, i)).collect();
    let _ = p.height;
    top.into_iter().chain(bottom)
}

/// The line with digits folded, case and spacing normalized.
fn shape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digit = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !digit {
                out.push('#');
            }
            digit = true;
            continue;
        }
        digit = false;
        if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out.trim().to_string()
}

/// `7`, `- 7 -`, `[7]`, `xii`, `Page 7`, `Page 7 of 40`, `7 / 40`.
fn page_number(text: &str) -> bool {
    let t = text.trim().trim_matches(|c: char| matches!(c, '-' | '–' | '—' | '[' | ']' | '(' | ')' | ' '));
    let lower = t.to_ascii_lowercase();
    let t = lower.strip_prefix("page").map_or(lower.as_str(), str::trim_start);
    let words: Vec<&str> =
        t.split(|c: char| c.is_whitespace() || c == '/').filter(|w| !w.is_empty()).collect();
    let number =
        |w: &str| w.chars().all(|c| c.is_ascii_digit()) && w.len() <= 5 || super::labels::is_roman(w);
    match words.as_slice() {
        [n] => number(n),
        [n, m] => number(n) && number(m),
        [n, "of", m] => number(n) && number(m),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_are_recognized() {
        for t in ["7", "- 7 -", "xii", "Page 7", "Page 7 of 40", "7 / 40", "[12]"] {
            assert!(page_number(t), "{t}");
        }
        for t in ["7 Principles", "Section 7", "civil", "vix", "1.2"] {
            assert!(!page_number(t), "{t}");
        }
    }

    #[test]
    fn shapes_fold_digits() {
        assert_eq!(shape("Chapter 3:  Basic Shell Features   41"), "chapter #: basic shell features #");
    }
}
