//! Running headers, footers and page numbers: found across pages and left out of the text.
//!
//! Only the outermost [`EDGE_LINES`] lines at the top and at the bottom of a page, inside
//! its top or bottom [`MARGIN`], are looked at. One of them is furniture when it is a bare page number (`7`, `- 7 -`, `xii`,
//! `Page 7 of 40`), or when the same line, digits aside, stands at the same edge of at least
//! [`MIN_REPEATS`] pages (running titles change per chapter, so a short chapter's title
//! repeats on a few pages only).
//!
//! The numbers these lines print are kept as the pages' printed labels when the file has no
//! `/PageLabels` (front matter numbered `i`, `ii`, … then the body from `1`).

use std::collections::HashMap;

use super::PageLines;
use crate::read::numerals::{is_roman, roman_value};

/// Lines looked at, at each edge of a page.
const EDGE_LINES: usize = 2;
/// Share of the page height, at the top and at the bottom, where furniture may stand.
const MARGIN: f32 = 0.1;
/// Pages a line must repeat on to be a running header or footer.
const MIN_REPEATS: usize = 3;

/// Removes furniture lines from every page, and returns the page numbers they printed: one
/// per page, `None` where none was printed or where it does not fit its neighbours (see
/// [`printed_numbers`]).
pub(crate) fn strip(pages: &mut [PageLines]) -> Vec<Option<String>> {
    let mut printed: Vec<Option<String>> = vec![None; pages.len()];
    let mut seen: HashMap<(bool, String), usize> = HashMap::new();
    for p in pages.iter() {
        for (top, i) in edges(p) {
            *seen.entry((top, shape(&p.lines[i].text))).or_default() += 1;
        }
    }
    for (n, p) in pages.iter_mut().enumerate() {
        let drop: Vec<usize> = edges(p)
            .filter(|&(top, i)| {
                let text = &p.lines[i].text;
                page_number(text) || seen.get(&(top, shape(text))).is_some_and(|n| *n >= MIN_REPEATS)
            })
            .map(|(_, i)| i)
            .collect();
        printed[n] = drop.iter().find_map(|&i| number_token(&p.lines[i].text));
        let mut i = 0;
        p.lines.retain(|_| {
            i += 1;
            !drop.contains(&(i - 1))
        });
    }
    printed_numbers(printed)
}

/// The page number a furniture line prints: the whole line (`7`, `Page 7 of 40`), or a
/// number at either end of a running header (`Chapter 3: Basic Shell Features 41`).
fn number_token(text: &str) -> Option<String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    if page_number(t) {
        let rest =
            lower.trim_start_matches(|c: char| !c.is_alphanumeric()).trim_start_matches("page").trim_start();
        return rest.split(|c: char| !c.is_alphanumeric()).find(|w| number_word(w)).map(str::to_string);
    }
    let found =
        [words.first(), words.last()].into_iter().flatten().find(|w| number_word(w) && w.len() < t.len());
    found.map(|w| w.to_string())
}

/// Keeps a printed number only where a neighbouring page printed the number before or after
/// it (`ii` beside `iii`, `12` beside `13`): one stray digit in a footer is no page label.
fn printed_numbers(printed: Vec<Option<String>>) -> Vec<Option<String>> {
    let value = |s: &Option<String>| -> Option<(bool, u32)> {
        let s = s.as_deref()?;
        match s.parse::<u32>() {
            Ok(n) => Some((false, n)),
            Err(_) => roman_value(s).map(|n| (true, n)),
        }
    };
    let values: Vec<Option<(bool, u32)>> = printed.iter().map(value).collect();
    let fits = |i: usize| -> bool {
        let Some((roman, n)) = values[i] else { return false };
        let before = i.checked_sub(1).and_then(|j| values[j]) == Some((roman, n.wrapping_sub(1)));
        let after = values.get(i + 1).copied().flatten() == Some((roman, n + 1));
        before || after
    };
    (0..printed.len()).map(|i| if fits(i) { printed[i].clone() } else { None }).collect()
}

/// The indexes of the lines at the top and bottom edges, with `true` for the top: the
/// outermost [`EDGE_LINES`] at each end that lie in the page's top or bottom [`MARGIN`]
/// share. Lines are ranked by height on the page, not by reading order (a two-column page
/// reads its footer last but its running header may sit anywhere in the order).
fn edges(p: &PageLines) -> impl Iterator<Item = (bool, usize)> + '_ {
    let mut order: Vec<usize> = (0..p.lines.len()).collect();
    order.sort_by(|&a, &b| p.lines[b].y.total_cmp(&p.lines[a].y));
    let (top_zone, bottom_zone) = ((1.0 - MARGIN) * p.height, MARGIN * p.height);
    let top: Vec<(bool, usize)> =
        order.iter().take(EDGE_LINES).filter(|&&i| p.lines[i].y >= top_zone).map(|&i| (true, i)).collect();
    let bottom: Vec<(bool, usize)> = order
        .iter()
        .rev()
        .take(EDGE_LINES)
        .filter(|&&i| p.lines[i].y <= bottom_zone && !top.iter().any(|t| t.1 == i))
        .map(|&i| (false, i))
        .collect();
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

/// A page number as a word: up to five digits, or a lower-case Roman numeral.
fn number_word(w: &str) -> bool {
    (w.chars().all(|c| c.is_ascii_digit()) && w.len() <= 5) || is_roman(w)
}

/// `7`, `- 7 -`, `[7]`, `xii`, `Page 7`, `Page 7 of 40`, `7 / 40`.
fn page_number(text: &str) -> bool {
    let t = text.trim().trim_matches(|c: char| matches!(c, '-' | '–' | '—' | '[' | ']' | '(' | ')' | ' '));
    let lower = t.to_ascii_lowercase();
    let t = lower.strip_prefix("page").map_or(lower.as_str(), str::trim_start);
    let words: Vec<&str> =
        t.split(|c: char| c.is_whitespace() || c == '/').filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [n] => number_word(n),
        [n, m] => number_word(n) && number_word(m),
        [n, "of", m] => number_word(n) && number_word(m),
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
    fn printed_numbers_must_fit_their_neighbours() {
        let got = printed_numbers(
            ["i", "ii", "7", "1", "2", "x", "4"].iter().map(|s| Some(s.to_string())).chain([None]).collect(),
        );
        let want: Vec<Option<&str>> =
            vec![Some("i"), Some("ii"), None, Some("1"), Some("2"), None, None, None];
        assert_eq!(got.iter().map(Option::as_deref).collect::<Vec<_>>(), want);
        assert_eq!(number_token("Chapter 3: Basic Shell Features 41").as_deref(), Some("41"));
        assert_eq!(number_token("Page 7 of 40").as_deref(), Some("7"));
        assert_eq!(number_token("Bash Reference Manual"), None);
    }

    #[test]
    fn shapes_fold_digits() {
        assert_eq!(shape("Chapter 3:  Basic Shell Features   41"), "chapter #: basic shell features #");
    }
}
