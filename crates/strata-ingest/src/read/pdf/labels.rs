//! Printed page labels from the catalog's `/PageLabels` number tree (PDF 32000-1, 12.4.2):
//! each range gives a style (`D` decimal, `r`/`R` roman, `a`/`A` letters), a prefix and a
//! start number, so front matter can be cited as `p. xii` while the body says `p. 12`.

use std::sync::OnceLock;

use lopdf::{Document, Object};
use regex::Regex;

use super::fonts::deref;

/// Nodes of a `/PageLabels` tree walked at most.
const MAX_NODES: usize = 10_000;

/// One label per physical page, `None` for pages without a label range or when the file has
/// no `/PageLabels` at all.
pub(crate) fn page_labels(doc: &Document, pages: usize) -> Vec<Option<String>> {
    let Some(root) = doc.catalog().ok().and_then(|c| c.get(b"PageLabels").ok()).and_then(|o| deref(doc, o))
    else {
        return Vec::new();
    };
    let mut ranges: Vec<(usize, &lopdf::Dictionary)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    collect(doc, root, &mut ranges, &mut seen, 0);
    if ranges.is_empty() {
        return Vec::new();
    }
    ranges.sort_by_key(|r| r.0);
    (0..pages)
        .map(|page| {
            let (start, dict) = ranges.iter().rev().find(|r| r.0 <= page)?;
            let prefix = dict
                .get(b"P")
                .ok()
                .and_then(|o| deref(doc, o))
                .and_then(|o| lopdf::decode_text_string(o).ok())
                .unwrap_or_default();
            let first = dict.get(b"St").ok().and_then(|o| o.as_i64().ok()).unwrap_or(1).max(1) as usize;
            let n = first + page - start;
            let number = match dict.get(b"S").ok().and_then(|o| o.as_name().ok()) {
                Some(b"D") => n.to_string(),
                Some(b"r") => roman(n),
                Some(b"R") => roman(n).to_uppercase(),
                Some(b"a") => letters(n),
                Some(b"A") => letters(n).to_uppercase(),
                _ => String::new(),
            };
            let label = format!("{prefix}{number}");
            (!label.is_empty()).then_some(label)
        })
        .collect()
}

/// Walks the number tree; `seen` holds the nodes visited (a tree that contains itself is
/// walked once), and at most [`MAX_NODES`] nodes are.
fn collect<'d>(
    doc: &'d Document,
    node: &'d Object,
    out: &mut Vec<(usize, &'d lopdf::Dictionary)>,
    seen: &mut std::collections::HashSet<*const lopdf::Dictionary>,
    depth: usize,
) {
    let Ok(node) = node.as_dict() else { return };
    if depth > 16 || out.len() > 100_000 || seen.len() >= MAX_NODES || !seen.insert(node as *const _) {
        return;
    }
    if let Some(nums) = node.get(b"Nums").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok()) {
        for pair in nums.chunks(2) {
            if let [key, value] = pair {
                if let (Ok(k), Some(Ok(d))) = (key.as_i64(), deref(doc, value).map(Object::as_dict)) {
                    out.push((k.max(0) as usize, d));
                }
            }
        }
    }
    if let Some(kids) = node.get(b"Kids").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok()) {
        for kid in kids {
            if let Some(k) = deref(doc, kid) {
                collect(doc, k, out, seen, depth + 1);
            }
        }
    }
}

/// Lower-case roman numeral (PDF labels go on past 3999 with more `m`s).
pub(crate) fn roman(mut n: usize) -> String {
    const DIGITS: [(usize, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut out = String::new();
    for (value, digits) in DIGITS {
        while n >= value && out.len() < 64 {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

/// `a`…`z`, then `aa`…`zz`, as PDF letter labels count.
fn letters(n: usize) -> String {
    let n = n.max(1) - 1;
    let letter = (b'a' + (n % 26) as u8) as char;
    std::iter::repeat_n(letter, (n / 26 + 1).min(64)).collect()
}

/// The value of a well-formed lower-case roman numeral.
pub(crate) fn roman_value(w: &str) -> Option<u32> {
    if !is_roman(w) {
        return None;
    }
    let digit = |c: char| match c {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        'l' => 50,
        'c' => 100,
        'd' => 500,
        _ => 1000,
    };
    let values: Vec<u32> = w.chars().map(digit).collect();
    let mut total = 0u32;
    for (i, v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|next| next > v) {
            total = total.wrapping_sub(*v);
        } else {
            total = total.wrapping_add(*v);
        }
    }
    Some(total)
}

/// Whether `w` (lower case) is a well-formed roman numeral.
pub(crate) fn is_roman(w: &str) -> bool {
    static ROMAN: OnceLock<Regex> = OnceLock::new();
    let re = ROMAN
        .get_or_init(|| Regex::new(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$").unwrap());
    !w.is_empty() && re.is_match(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerals_and_letters() {
        assert_eq!(roman(1), "i");
        assert_eq!(roman(12), "xii");
        assert_eq!(roman(1994), "mcmxciv");
        assert_eq!(letters(1), "a");
        assert_eq!(letters(27), "aa");
        assert!(is_roman("xii") && !is_roman("civil") && !is_roman(""));
        assert_eq!(roman_value("xiv"), Some(14));
        assert_eq!(roman_value("mcmxciv"), Some(1994));
    }
}
