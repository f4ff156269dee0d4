//! Printed page labels from the catalog's `/PageLabels` number tree (PDF 32000-1, 12.4.2):
//! each range gives a style (`D` decimal, `r`/`R` roman, `a`/`A` letters), a prefix and a
//! start number, so front matter can be cited as `p. xii` while the body says `p. 12`.

use lopdf::{Document, Object};

use super::deref;
use crate::read::numerals::{letters, roman};

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
            let n = u32::try_from(first + page - start).unwrap_or(u32::MAX);
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
