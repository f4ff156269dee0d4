//! The outline (bookmarks) as the heading tree: each entry is placed on the line of its
//! heading on its page.
//!
//! Titles and lines are compared on their letters and digits only, lower-cased, so spacing,
//! punctuation, ligatures and line wraps do not matter. A line may carry a number the entry
//! lacks (`2.1. Value.` for the entry `Value`) or the other way round, and a heading may run
//! into its paragraph (the heading span then ends where the title does). The search starts
//! after the previous entry's heading on the page, then tries the next page (bookmarks
//! that point at the top of the page before); an entry whose title is not found is placed,
//! with an empty span, at the start of its page, so its pages stay right. A placed heading's
//! title is the heading as printed (`3.1 Shell Syntax` for the bookmark `Shell Syntax`), so
//! the section number is kept.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use lopdf::{Document, Object, ObjectId};
use regex::Regex;
use strata_core::Span;

use super::deref;
use super::page_text::PageText;
use crate::read::HeadingMark;

/// One bookmark: level (1 = top), title, 0-based page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub level: u32,
    pub title: String,
    pub page: usize,
}

/// Entries read at most, and outline depth followed at most.
const MAX_ENTRIES: usize = 20_000;
const MAX_DEPTH: u32 = 16;

/// The outline entries, in outline order; empty when the file has none. The walk is ours,
/// not lopdf's `get_toc`: an item whose `/Next` leads back to itself is read once, and an
/// item whose destination cannot be resolved is skipped instead of losing the outline.
pub(crate) fn entries(doc: &Document, pages: &BTreeMap<u32, ObjectId>) -> Vec<Entry> {
    let page_of: HashMap<ObjectId, usize> = pages.iter().map(|(n, id)| (*id, *n as usize - 1)).collect();
    let catalog = doc.catalog().ok();
    let Some(root) = catalog
        .and_then(|c| c.get(b"Outlines").ok())
        .and_then(|o| deref(doc, o))
        .and_then(|o| o.as_dict().ok())
    else {
        return Vec::new();
    };
    let mut walk = Walk { doc, page_of, named: None, seen: HashSet::new(), out: Vec::new() };
    walk.items(root.get(b"First").ok(), 1);
    walk.out
}

struct Walk<'d> {
    doc: &'d Document,
    page_of: HashMap<ObjectId, usize>,
    /// Named destinations, read when the first name is met.
    named: Option<HashMap<Vec<u8>, &'d Object>>,
    seen: HashSet<ObjectId>,
    out: Vec<Entry>,
}

impl<'d> Walk<'d> {
    fn items(&mut self, first: Option<&'d Object>, level: u32) {
        let mut next = first.and_then(|o| o.as_reference().ok());
        while let Some(id) = next {
            if level > MAX_DEPTH || self.out.len() >= MAX_ENTRIES || !self.seen.insert(id) {
                return;
            }
            let Ok(item) = self.doc.get_dictionary(id) else { return };
            let title = item
                .get(b"Title")
                .ok()
                .and_then(|o| deref(self.doc, o))
                .and_then(|o| lopdf::decode_text_string(o).ok())
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            if let Some(page) = self.page(item) {
                if !title.is_empty() {
                    self.out.push(Entry { level, title, page });
                }
            }
            self.items(item.get(b"First").ok(), level + 1);
            next = item.get(b"Next").ok().and_then(|o| o.as_reference().ok());
        }
    }

    /// The 0-based page an item points at: its `/Dest`, or the `/D` of a `GoTo` action.
    fn page(&mut self, item: &'d lopdf::Dictionary) -> Option<usize> {
        let doc = self.doc;
        let dest = match item.get(b"Dest").ok().and_then(|o| deref(doc, o)) {
            Some(d) => d,
            None => {
                let action = item.get(b"A").ok().and_then(|o| deref(doc, o))?.as_dict().ok()?;
                deref(doc, action.get(b"D").ok()?)?
            }
        };
        self.dest_page(dest, 0)
    }

    fn dest_page(&mut self, dest: &'d Object, depth: usize) -> Option<usize> {
        let doc = self.doc;
        match dest {
            Object::Array(a) => match a.first()? {
                Object::Reference(id) => self.page_of.get(id).copied(),
                Object::Integer(n) => usize::try_from(*n).ok().filter(|n| *n < self.page_of.len()),
                _ => None,
            },
            Object::Dictionary(d) if depth < 2 => {
                let d = deref(doc, d.get(b"D").ok()?)?;
                self.dest_page(d, depth + 1)
            }
            Object::Name(n) | Object::String(n, _) if depth < 2 => {
                let target = *self.named().get(n.as_slice())?;
                self.dest_page(target, depth + 1)
            }
            _ => None,
        }
    }

    /// Named destinations: the catalog's `/Dests` dictionary and its `/Names /Dests` tree.
    fn named(&mut self) -> &HashMap<Vec<u8>, &'d Object> {
        let doc = self.doc;
        self.named.get_or_insert_with(|| {
            let mut map = HashMap::new();
            let Ok(catalog) = doc.catalog() else { return map };
            if let Some(d) =
                catalog.get(b"Dests").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_dict().ok())
            {
                for (k, v) in d.iter() {
                    if let Some(v) = deref(doc, v) {
                        map.insert(k.clone(), v);
                    }
                }
            }
            let tree = catalog
                .get(b"Names")
                .ok()
                .and_then(|o| deref(doc, o))
                .and_then(|o| o.as_dict().ok())
                .and_then(|n| n.get(b"Dests").ok())
                .and_then(|o| deref(doc, o));
            let mut seen = HashSet::new();
            let mut stack: Vec<&Object> = tree.into_iter().collect();
            while let Some(node) = stack.pop() {
                let Ok(node) = node.as_dict() else { continue };
                if !seen.insert(node as *const lopdf::Dictionary) || seen.len() > 100_000 {
                    continue;
                }
                if let Some(names) =
                    node.get(b"Names").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok())
                {
                    for pair in names.chunks(2) {
                        if let [Object::String(k, _), v] = pair {
                            if let Some(v) = deref(doc, v) {
                                map.insert(k.clone(), v);
                            }
                        }
                    }
                }
                if let Some(kids) =
                    node.get(b"Kids").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_array().ok())
                {
                    stack.extend(kids.iter().filter_map(|k| deref(doc, k)));
                }
            }
            map
        })
    }
}

/// Heading marks for `entries` in `text`. With `behind`, a title not found on its page or
/// the next is looked for on the page before (a contents page's print may be off by one;
/// bookmarks are not).
pub(crate) fn place(entries: &[Entry], text: &PageText, behind: bool) -> Vec<HeadingMark> {
    let page_start =
        |p: usize| if p == 0 { 0 } else { text.page_breaks.get(p - 1).copied().unwrap_or(text.text.len()) };
    // Placed in page order (stable: outline order within a page), so one bookmark out of
    // order does not push the ones after it off their pages.
    let mut entries: Vec<&Entry> = entries.iter().collect();
    entries.sort_by_key(|e| e.page);
    let mut out: Vec<HeadingMark> = Vec::with_capacity(entries.len());
    let mut cursor = 0usize;
    for e in entries {
        let before = if behind { e.page.checked_sub(1) } else { None };
        let found = [Some(e.page), Some(e.page + 1), before].into_iter().flatten().find_map(|page| {
            text.lines
                .iter()
                .filter(|l| l.page == page && l.span.start >= cursor)
                .find_map(|l| matches(&text.text, l.span, &e.title))
        });
        let span = match found {
            Some(span) => span,
            None => {
                let at = page_start(e.page).max(cursor).min(text.text.len());
                Span::new(at, at)
            }
        };
        cursor = span.end;
        // The heading as printed carries the number the bookmark often leaves out.
        let printed = text.text[span.start..span.end].split_whitespace().collect::<Vec<_>>().join(" ");
        let title = if printed.is_empty() { e.title.clone() } else { printed };
        out.push(HeadingMark { level: e.level, title, span, number: None });
    }
    out
}

/// Where `title` starts at `line`: the heading's span, or `None`.
pub(crate) fn matches(text: &str, line: Span, title: &str) -> Option<Span> {
    let from = &text[line.start..];
    let stripped = strip_number(title);
    let end = prefix_end(from, title)
        .or_else(|| number_len(from).and_then(|n| prefix_end(&from[n..], stripped).map(|e| n + e)))
        .or_else(|| (stripped.len() < title.len()).then(|| prefix_end(from, stripped)).flatten())?;
    let mut end = line.start + end;
    // A heading that fills its line takes the whole line.
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    if text[end..line_end].chars().all(|c| !c.is_alphanumeric()) {
        end = line_end;
    }
    Some(Span::new(line.start, end))
}

/// Bytes of `hay` that spell `needle`'s letters and digits in order (others skipped), up to
/// the last one; `None` when they differ. At least three letters or digits must match.
fn prefix_end(hay: &str, needle: &str) -> Option<usize> {
    let mut want = needle.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).peekable();
    let mut matched = 0;
    let mut end = 0;
    for (i, c) in hay.char_indices() {
        if want.peek().is_none() {
            break;
        }
        if !c.is_alphanumeric() {
            if i > 4 * needle.len() + 16 {
                return None;
            }
            continue;
        }
        for lc in c.to_lowercase() {
            if want.next() != Some(lc) {
                return None;
            }
        }
        matched += 1;
        end = i + c.len_utf8();
    }
    (want.peek().is_none() && matched >= 3.min(needle.len())).then_some(end)
}

fn number_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*(?:(?:Chapter|CHAPTER|Section|SECTION|Appendix|APPENDIX|Part|PART|SEC\.)\s+)?(?:[0-9]+|[A-Z])(?:\.[0-9]+)*\.?[\s:]+").unwrap()
    })
}

fn number_len(s: &str) -> Option<usize> {
    number_re().find(s).map(|m| m.end())
}

fn strip_number(title: &str) -> &str {
    number_len(title).map_or(title, |n| &title[n..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, title: &str) -> Option<String> {
        matches(text, Span::new(0, text.find('\n').unwrap_or(text.len())), title)
            .map(|s| text[s.start..s.end].to_string())
    }

    #[test]
    fn titles_match_lines_loosely() {
        assert_eq!(
            at(
                "3.1 Device Agent/Gateway-Based Deployment\nbody",
                "3.1 Device Agent/Gateway-Based Deployment"
            )
            .as_deref(),
            Some("3.1 Device Agent/Gateway-Based Deployment")
        );
        assert_eq!(at("2.1. Value. In order to incentivise", "Value").as_deref(), Some("2.1. Value"));
        assert_eq!(at("Introduction\nbody", "1 Introduction").as_deref(), Some("Introduction"));
        assert_eq!(at("Executive  Summary", "Executive Summary").as_deref(), Some("Executive  Summary"));
        assert_eq!(
            at("Zero Trust Basics\nand more", "Zero trust basics and more").as_deref(),
            Some("Zero Trust Basics\nand more")
        );
        assert_eq!(at("Something else", "Value"), None);
    }
}
