//! Contents entries onto physical pages. A contents page cites printed page numbers, and a
//! filing's cover and contents pages are seldom numbered, so `Business 2` may sit on the
//! fourth page of the file.
//!
//! An entry's page is the physical page that printed its number (the furniture's page
//! numbers, else `/PageLabels`) after the contents page. Where no page printed it, one
//! offset serves the whole document: the one under which most entries' titles are found on
//! the lines of their pages. An entry whose title that offset misses is looked for under
//! the offsets nearest the last placed entry's (unnumbered pages inside the document shift
//! the ones after them). Placing then looks on that page, the next and the one before
//! (`outline::place`), so a contents page that is off by one still finds its headings.

use std::collections::HashMap;

use super::contents::Listed;
use super::outline::{self, Entry};
use super::page_text::PageText;

/// Largest offset tried between printed and physical pages.
const MAX_OFFSET: usize = 60;
/// Share of entries that must be found on their pages for the contents to be the outline.
const MIN_PLACED: f64 = 0.5;
/// Farthest an entry's own offset may be from the last placed entry's.
const MAX_SHIFT: usize = 12;
/// Entries that vote on the offset at most (a long contents page costs no more).
const MAX_VOTERS: usize = 200;

/// The entries of `listed` as outline entries on physical pages, or `None` when too few of
/// them are found where the contents says (a misread contents page, or one of another
/// document bound into this file).
pub(crate) fn entries(listed: &[Listed], numbers: &[Option<String>], text: &PageText) -> Option<Vec<Entry>> {
    let last = listed.iter().map(|l| l.page).max()?;
    let pages = text.page_breaks.len() + 1;
    let mut by_label: HashMap<String, usize> = HashMap::new();
    for (page, label) in numbers.iter().enumerate().skip(last + 1) {
        if let Some(label) = label {
            by_label.entry(label.to_ascii_lowercase()).or_insert(page);
        }
    }
    let offset = best_offset(listed, text, pages);
    let physical = |l: &Listed| -> Option<usize> {
        let printed = l.printed.as_deref()?;
        by_label.get(&printed.to_ascii_lowercase()).copied().or_else(|| {
            let n: usize = printed.parse().ok()?;
            Some(n.checked_sub(1)? + offset?)
        })
    };
    let mut out: Vec<Entry> = Vec::with_capacity(listed.len());
    let mut found = 0;
    let mut cursor = Cursor { near: offset, floor: last + 1, pages };
    let mut unnumbered: Vec<bool> = Vec::with_capacity(listed.len());
    for (i, l) in listed.iter().enumerate() {
        // A part without a number starts where the next numbered entry does.
        let Some(mut page) = physical(l).or_else(|| listed[i + 1..].iter().find_map(physical)) else {
            continue;
        };
        let printed =
            l.printed.as_deref().and_then(|p| p.parse::<usize>().ok()).and_then(|n| n.checked_sub(1));
        let labelled = l.printed.as_deref().is_some_and(|p| by_label.contains_key(&p.to_ascii_lowercase()));
        if let (Some(printed), false) = (printed, labelled) {
            page = cursor.follow(text, &l.title, printed, page);
        }
        if page <= last || page >= pages {
            continue;
        }
        found += usize::from(on_page(text, page, &l.title));
        out.push(Entry { level: l.level, title: l.title.clone(), page });
        unnumbered.push(printed.is_none());
    }
    // A part without a number starts where the entry after it was placed.
    for i in (0..out.len().saturating_sub(1)).rev() {
        if unnumbered[i] && !on_page(text, out[i].page, &out[i].title) {
            out[i].page = out[i + 1].page;
        }
    }
    (!out.is_empty() && found as f64 >= MIN_PLACED * listed.len() as f64).then_some(out)
}

/// Where the entries found so far leave the next one.
struct Cursor {
    /// The offset of the last entry found on its page (at first the document's), where the
    /// next one is looked for when the document's offset misses it.
    near: Option<usize>,
    /// The page of the last entry found there: the next one is not looked for before it.
    floor: usize,
    pages: usize,
}

impl Cursor {
    /// The page of the entry titled `title`, printed on (0-based) page `printed` and put on
    /// `page` by the document's offset: that page when placing finds the title around it,
    /// else the page under the offset nearest the last entry's that has it ([`shifted`]).
    fn follow(&mut self, text: &PageText, title: &str, printed: usize, page: usize) -> usize {
        let Some(near) = self.near else { return page };
        let page = if around(text, page, title) {
            page
        } else {
            shifted(text, title, printed, near, self.floor, self.pages).unwrap_or(page)
        };
        if on_page(text, page, title) {
            self.near = Some(page.saturating_sub(printed));
            self.floor = page;
        }
        page
    }
}

/// The offset (physical page minus printed page) under which most titles are found on
/// their pages; `None` when no offset finds any.
fn best_offset(listed: &[Listed], text: &PageText, pages: usize) -> Option<usize> {
    let numbered: Vec<(&str, usize)> = listed
        .iter()
        .take(MAX_VOTERS)
        .filter_map(|l| {
            Some((l.title.as_str(), l.printed.as_deref()?.parse::<usize>().ok()?.checked_sub(1)?))
        })
        .collect();
    (0..=MAX_OFFSET.min(pages))
        .map(|d| (d, numbered.iter().filter(|(t, p)| p + d < pages && on_page(text, p + d, t)).count()))
        .filter(|(_, n)| *n > 0)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(d, _)| d)
}

/// Whether `title` heads a line of `page`, the page after or the one before (where placing
/// looks).
fn around(text: &PageText, page: usize, title: &str) -> bool {
    [Some(page), Some(page + 1), page.checked_sub(1)].into_iter().flatten().any(|p| on_page(text, p, title))
}

/// The page of an entry printed on (0-based) page `printed` that the document's offset
/// misses: the nearest offset to `near` (the last placed entry's) under which its title
/// heads a line, no earlier than page `floor`. Pages left unnumbered inside a filing (a
/// full-page chart, a divider) make the offset grow along it: Walmart's 2020 10-K cites
/// `Business 7` on the seventh page and `Item 9 … 78` on the 84th.
fn shifted(
    text: &PageText,
    title: &str,
    printed: usize,
    near: usize,
    floor: usize,
    pages: usize,
) -> Option<usize> {
    (0..=MAX_SHIFT).find_map(|delta| {
        [near.checked_sub(delta), Some(near + delta).filter(|_| delta > 0)]
            .into_iter()
            .flatten()
            .filter(|d| *d <= MAX_OFFSET)
            .map(|d| printed + d)
            .find(|&p| p >= floor && p < pages && on_page(text, p, title))
    })
}

/// Whether a line of page `page` starts with `title`.
fn on_page(text: &PageText, page: usize, title: &str) -> bool {
    let start = text.lines.partition_point(|l| l.page < page);
    text.lines[start..]
        .iter()
        .take_while(|l| l.page == page)
        .any(|l| outline::matches(&text.text, l.span, title).is_some())
}
