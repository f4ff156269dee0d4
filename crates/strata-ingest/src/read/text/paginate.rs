//! Step 1, paginate: split pages at form feeds, learn and remove running headers and
//! footers (RFC Editor furniture or lines repeated on most pages), keep printed page
//! numbers as labels, and join the pages into one flow of text.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::block::list_marker;
use super::line::is_blank;

/// Counts non-blank lines and those that start with whitespace (RFCs indent their body by
/// 3): `(indented, total)`.
fn count_indented(text: &str) -> (usize, usize) {
    let (mut indented, mut total) = (0usize, 0usize);
    for line in text.split('\n') {
        if is_blank(line) {
            continue;
        }
        total += 1;
        if line.starts_with([' ', '\t']) {
            indented += 1;
        }
    }
    (indented, total)
}

static RFC_FOOTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[Page \d+\]\s*$").unwrap());
static RFC_HEADER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^RFC \d+ {2,}\S.*\S {2,}\S").unwrap());

/// Text with page furniture removed.
pub(super) struct Paged {
    pub(super) text: String,
    pub(super) breaks: Vec<usize>,
    pub(super) labels: Vec<Option<String>>,
    /// Most content lines are indented.
    pub(super) indented: bool,
}

/// Running headers and footers, learned from the first and last lines of the pages.
struct Furniture {
    headers: HashSet<String>,
    footers: HashSet<String>,
}

/// One raw page (between form feeds) taken apart.
struct Parts {
    /// Content: first to last non-blank line, header and footer excluded.
    content: Range<usize>,
    /// Newlines between the header (or page start) and the content.
    lead: usize,
    /// Newlines between the content and the footer (or page end).
    trail: usize,
    header: bool,
    footer: Option<Range<usize>>,
}

/// A line with digits folded and spaces squashed, so `[Page 7]` and `[Page 8]` compare equal.
fn furniture_key(line: &str) -> Option<String> {
    let t = line.trim();
    if t.len() > 200 {
        return None;
    }
    let mut key = String::with_capacity(t.len());
    let mut last = ' ';
    for c in t.chars() {
        let c = match c {
            '0'..='9' => '#',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        if !(c == last && (c == '#' || c == ' ')) {
            key.push(c);
        }
        last = c;
    }
    Some(key)
}

/// First non-blank line of `page[lo..hi]` (`lo` at a line start).
fn first_nonblank(page: &str, lo: usize, hi: usize) -> Option<Range<usize>> {
    let mut pos = lo;
    while pos < hi {
        let end = page[pos..hi].find('\n').map_or(hi, |i| pos + i);
        if !is_blank(&page[pos..end]) {
            return Some(pos..end);
        }
        pos = end + 1;
    }
    None
}

/// Last non-blank line of `page[lo..hi]`.
fn last_nonblank(page: &str, lo: usize, hi: usize) -> Option<Range<usize>> {
    let mut end = hi;
    loop {
        let start = page[lo..end].rfind('\n').map_or(lo, |i| lo + i + 1);
        if !is_blank(&page[start..end]) {
            return Some(start..end);
        }
        if start == lo {
            return None;
        }
        end = start - 1;
    }
}

impl Furniture {
    /// Lines that start (headers, pages 2…) or end (footers) at least half the pages, three
    /// times or more, are furniture; RFC Editor headers and footers always are.
    fn learn(source: &str) -> Furniture {
        let (mut heads, mut foots) = (HashMap::<String, usize>::new(), HashMap::<String, usize>::new());
        let mut pages = 0usize;
        for (i, page) in source.split('\x0c').enumerate() {
            let Some(first) = first_nonblank(page, 0, page.len()) else {
                continue;
            };
            pages += 1;
            // Furniture frames content: a page of one line has neither header nor footer.
            let Some(last) = last_nonblank(page, 0, page.len()).filter(|l| *l != first) else {
                continue;
            };
            if i > 0 {
                if let Some(k) = furniture_key(&page[first]) {
                    *heads.entry(k).or_default() += 1;
                }
            }
            if let Some(k) = furniture_key(&page[last]) {
                *foots.entry(k).or_default() += 1;
            }
        }
        let keep = |m: HashMap<String, usize>| {
            m.into_iter().filter(|(_, n)| *n >= 3 && n * 2 >= pages).map(|(k, _)| k).collect()
        };
        Furniture { headers: keep(heads), footers: keep(foots) }
    }

    fn is_header(&self, line: &str) -> bool {
        (line.starts_with("RFC ") && RFC_HEADER.is_match(line))
            || (!self.headers.is_empty() && furniture_key(line).is_some_and(|k| self.headers.contains(&k)))
    }

    fn is_footer(&self, line: &str) -> bool {
        (line.trim_end().ends_with(']') && RFC_FOOTER.is_match(line))
            || (!self.footers.is_empty() && furniture_key(line).is_some_and(|k| self.footers.contains(&k)))
    }

    fn parts(&self, page: &str) -> Parts {
        let (mut lo, mut hi) = (0, page.len());
        let mut header = false;
        if let Some(first) = first_nonblank(page, lo, hi) {
            if self.is_header(&page[first.clone()]) {
                header = true;
                lo = (first.end + 1).min(hi);
            }
        }
        let mut footer = None;
        if let Some(last) = last_nonblank(page, lo, hi) {
            if self.is_footer(&page[last.clone()]) {
                hi = last.start;
                footer = Some(last);
            }
        }
        match (first_nonblank(page, lo, hi), last_nonblank(page, lo, hi)) {
            (Some(first), Some(last)) => Parts {
                lead: page[lo..first.start].matches('\n').count(),
                trail: page[last.end..hi].matches('\n').count(),
                content: first.start..last.end,
                header,
                footer,
            },
            _ => Parts { content: 0..0, lead: 0, trail: 0, header, footer },
        }
    }
}

/// The printed page number in a footer: its last number or roman numeral.
fn footer_label(footer: &str) -> Option<String> {
    let t = footer.trim_end_matches(|c: char| !c.is_alphanumeric());
    let token = t.rsplit(|c: char| c.is_whitespace() || c == '[' || c == '-').next()?;
    let roman = !token.is_empty() && token.chars().all(|c| "ivxlcdm".contains(c));
    (token.chars().all(|c| c.is_ascii_digit()) && !token.is_empty() || roman).then(|| token.to_string())
}

/// Records the printed label of page `index` (0-based) where it differs from the physical
/// number; the list stays empty while none differs.
fn note_label(labels: &mut Vec<Option<String>>, index: usize, label: Option<String>) {
    let differs = label.as_deref().is_some_and(|l| l.parse::<usize>().ok() != Some(index + 1));
    if differs {
        labels.resize(index, None);
        labels.push(label);
    } else if !labels.is_empty() {
        labels.resize(index + 1, None);
    }
}

/// True when the last line of a page and the first of the next belong to one paragraph.
fn continues(last: &str, first: &str, indented: bool) -> bool {
    let (a, b) = (last.trim_end(), first.trim_start());
    if a.is_empty() || b.is_empty() || list_marker(first).is_some() {
        return false;
    }
    if indented && !first.starts_with([' ', '\t']) {
        return false;
    }
    !a.ends_with(['.', ':', '!', '?']) || b.starts_with(char::is_lowercase)
}

/// Removes page furniture and joins the pages. Without form feeds the text is untouched.
///
/// Pages with a header or footer but no content are blank pages: they keep their number
/// and have an empty span. Pages with nothing at all (a trailing form feed) are not pages.
pub(super) fn paginate(source: String) -> Paged {
    if !source.contains('\x0c') {
        let (indented, total) = count_indented(&source);
        return Paged {
            text: source,
            breaks: Vec::new(),
            labels: Vec::new(),
            indented: indented * 2 > total,
        };
    }
    let furniture = Furniture::learn(&source);
    // The usual padding: a page break with exactly this much padding may fall inside a
    // paragraph; more padding means the page ended early, at a paragraph end.
    let (mut min_trail, mut min_lead) = (usize::MAX, usize::MAX);
    let (mut indented, mut total) = (0, 0);
    for (i, page) in source.split('\x0c').enumerate() {
        let parts = furniture.parts(page);
        if !parts.content.is_empty() {
            let (a, b) = count_indented(&page[parts.content.clone()]);
            (indented, total) = (indented + a, total + b);
            min_trail = min_trail.min(parts.trail);
            if i > 0 {
                min_lead = min_lead.min(parts.lead);
            }
        }
    }
    let indented = indented * 2 > total;
    let mut text = String::with_capacity(source.len());
    let mut breaks = Vec::new();
    let mut labels: Vec<Option<String>> = Vec::new();
    let mut pending: Vec<Option<String>> = Vec::new();
    let mut prev: Option<(&str, usize)> = None;
    for page in source.split('\x0c') {
        let parts = furniture.parts(page);
        let label = parts.footer.clone().and_then(|f| footer_label(&page[f]));
        if parts.content.is_empty() {
            if prev.is_some() && (parts.header || parts.footer.is_some()) {
                pending.push(label);
            }
            continue;
        }
        let content = &page[parts.content.clone()];
        let first_line = content.split('\n').next().unwrap_or("");
        match prev {
            None => note_label(&mut labels, 0, label),
            Some((last_line, trail)) => {
                let join = pending.is_empty()
                    && trail == min_trail
                    && parts.lead == min_lead
                    && continues(last_line, first_line, indented);
                text.push_str(if join { "\n" } else { "\n\n" });
                for blank in pending.drain(..) {
                    breaks.push(text.len());
                    note_label(&mut labels, breaks.len(), blank);
                }
                breaks.push(text.len());
                note_label(&mut labels, breaks.len(), label);
            }
        }
        text.push_str(content);
        let last_line = content.rsplit('\n').next().unwrap_or("");
        prev = Some((last_line, parts.trail));
    }
    if !text.is_empty() {
        text.push('\n');
    }
    if !labels.is_empty() {
        labels.resize(breaks.len() + 1, None);
    }
    Paged { text, breaks, labels, indented }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_invariants, read, titles};

    fn rfc_page(n: u32, body: &str) -> String {
        let mut s = String::new();
        if n > 1 {
            s.push_str("\nRFC 9999            Test Protocol                         June 2002\n\n\n");
        }
        s.push_str(body);
        s.push_str(&format!(
            "\n\n\n\nAuthor                      Standards Track                    [Page {n}]\n\x0c"
        ));
        s
    }

    #[test]
    fn page_furniture_is_removed_and_paragraphs_joined() {
        let src = [
            rfc_page(1, "1.  Intro\n\n   A paragraph that runs over the\n   page break and"),
            rfc_page(2, "   continues here.  It ends on this page.\n\n   Another paragraph ends here."),
            rfc_page(3, "   New paragraph on page three.\n\n2.  Next\n\n   Text"),
            rfc_page(4, "3.  Heading at page top\n\n   Text."),
        ]
        .concat();
        let p = read(&src);
        check_invariants(&p);
        assert!(!p.text.contains("[Page") && !p.text.contains('\x0c') && !p.text.contains("RFC 9999"));
        assert!(p.text.contains("page break and\n   continues here."), "{}", p.text);
        assert!(p.text.contains("ends here.\n\n   New paragraph"), "{}", p.text);
        assert!(p.text.contains("   Text\n\n3.  Heading at page top"), "{}", p.text);
        assert_eq!(p.page_breaks.len(), 3);
        assert!(p.text[p.page_breaks[0]..].starts_with("   continues here."));
        assert!(p.text[p.page_breaks[2]..].starts_with("3.  Heading"));
        assert!(p.page_labels.is_empty());
        assert_eq!(titles(&p), ["1. Intro", "2. Next", "3. Heading at page top"]);
        let para = p.blocks.iter().find(|b| b.span.slice(&p.text).starts_with("   A paragraph")).unwrap();
        assert!(para.span.slice(&p.text).ends_with("It ends on this page."));
    }

    #[test]
    fn printed_page_numbers_become_labels_when_they_differ() {
        let page = |n: &str| {
            format!("   Body of a page that is long enough.\n\n   More text.\n\n\nReport                  Page {n}\n\x0c")
        };
        let p = read(&[page("7"), page("8"), page("9"), page("10")].concat());
        check_invariants(&p);
        assert!(!p.text.contains("Report"));
        assert_eq!(p.page_breaks.len(), 3);
        let labels: Vec<_> = p.page_labels.iter().map(|l| l.as_deref()).collect();
        assert_eq!(labels, [Some("7"), Some("8"), Some("9"), Some("10")]);
        let p = read(&[page("1"), page("2"), page("3")].concat());
        assert!(p.page_labels.is_empty());
    }

    #[test]
    fn generic_form_feeds_are_page_breaks() {
        let p = read("Page one text.\n\x0cPage two text.\n\x0c\n");
        check_invariants(&p);
        assert_eq!(p.text, "Page one text.\n\nPage two text.\n");
        assert_eq!(p.page_breaks, [16]);
        assert_eq!(p.title.as_deref(), Some("Page one text."));
    }
}
