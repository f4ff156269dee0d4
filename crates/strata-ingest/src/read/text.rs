//! Plain text: pages from form feeds, headings from numbering and layout.
//!
//! Plain text has no markup, so structure is inferred in two steps:
//!
//! 1. **Paginate.** Form feeds split pages. Running headers and footers (the RFC Editor's
//!    `Author  Standards Track  [Page 12]` / `RFC 3261  SIP ...  June 2002`, or any line that
//!    starts or ends most pages) are removed with the blank padding around them, so that the
//!    normalized text reads as one flow. A paragraph that runs over a page break is joined
//!    with a single newline; a break between paragraphs keeps one blank line. Where the
//!    printed page number differs from the physical one it is kept as a page label.
//! 2. **Scan lines** once for headings and blocks. Numbered headings (`4.2.1.  Title`,
//!    `20.1 Accept`, `Appendix A.`, `A.1.`) must start at column 0 after a blank line and
//!    continue the numbering plausibly, which keeps stray numbers, numbered lists and table
//!    of contents entries out. Legal headings (`SEC. 101.`, `ARTICLE V`), unnumbered
//!    column-0 headings of indented documents (`Abstract`) and short all-caps lines complete
//!    the outline.
//!
//! Both steps are linear in the input and never index outside a line.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use strata_core::{Block, BlockKind, Format, SectionNumber, Span};

use super::{decode::decode, HeadingMark, Parsed, ReadError, Reader};

/// Plain text (`.txt`), with RFC-style pagination and numbered, legal and layout headings.
pub struct TextReader;

impl Reader for TextReader {
    fn format(&self) -> Format {
        Format::Text
    }

    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        let (source, warnings) = decode(bytes)?;
        let paged = paginate(source);
        let indented = paged.indented;
        if paged.text.trim().is_empty() {
            return Err(ReadError::Empty);
        }
        let mut parsed = Parsed {
            text: paged.text,
            page_breaks: paged.breaks,
            page_labels: paged.labels,
            warnings,
            ..Parsed::default()
        };
        parsed.title = title(&parsed.text);
        let mut scan = Scan::new(&parsed.text, &parsed.page_breaks, indented);
        scan.run();
        parsed.headings = scan.headings;
        parsed.blocks = scan.blocks;
        Ok(parsed)
    }
}

// ---------------------------------------------------------------------------------------
// Lines

/// The line starting at `start`: its end (before `\n`) and where the next line starts.
fn line_at(text: &str, start: usize) -> (usize, usize) {
    match text[start..].find('\n') {
        Some(i) => (start + i, start + i + 1),
        None => (text.len(), text.len()),
    }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn indent(line: &str) -> usize {
    line.bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

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

// ---------------------------------------------------------------------------------------
// Paginate

static RFC_FOOTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[Page \d+\]\s*$").unwrap());
static RFC_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^RFC \d+ {2,}\S.*\S {2,}\S").unwrap());

/// Text with page furniture removed.
struct Paged {
    text: String,
    breaks: Vec<usize>,
    labels: Vec<Option<String>>,
    /// Most content lines are indented.
    indented: bool,
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
        let (mut heads, mut foots) = (
            HashMap::<String, usize>::new(),
            HashMap::<String, usize>::new(),
        );
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
            m.into_iter()
                .filter(|(_, n)| *n >= 3 && n * 2 >= pages)
                .map(|(k, _)| k)
                .collect()
        };
        Furniture {
            headers: keep(heads),
            footers: keep(foots),
        }
    }

    fn is_header(&self, line: &str) -> bool {
        (line.starts_with("RFC ") && RFC_HEADER.is_match(line))
            || (!self.headers.is_empty()
                && furniture_key(line).is_some_and(|k| self.headers.contains(&k)))
    }

    fn is_footer(&self, line: &str) -> bool {
        (line.trim_end().ends_with(']') && RFC_FOOTER.is_match(line))
            || (!self.footers.is_empty()
                && furniture_key(line).is_some_and(|k| self.footers.contains(&k)))
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
            _ => Parts {
                content: 0..0,
                lead: 0,
                trail: 0,
                header,
                footer,
            },
        }
    }
}

/// The printed page number in a footer: its last number or roman numeral.
fn footer_label(footer: &str) -> Option<String> {
    let t = footer.trim_end_matches(|c: char| !c.is_alphanumeric());
    let token = t
        .rsplit(|c: char| c.is_whitespace() || c == '[' || c == '-')
        .next()?;
    let roman = !token.is_empty() && token.chars().all(|c| "ivxlcdm".contains(c));
    (token.chars().all(|c| c.is_ascii_digit()) && !token.is_empty() || roman)
        .then(|| token.to_string())
}

/// Records the printed label of page `index` (0-based) where it differs from the physical
/// number; the list stays empty while none differs.
fn note_label(labels: &mut Vec<Option<String>>, index: usize, label: Option<String>) {
    let differs = label
        .as_deref()
        .is_some_and(|l| l.parse::<usize>().ok() != Some(index + 1));
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
fn paginate(source: String) -> Paged {
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
    Paged {
        text,
        breaks,
        labels,
        indented,
    }
}

// ---------------------------------------------------------------------------------------
// Title

static RFC_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Request for Comments:\s*(\d+)").unwrap());

/// `RFC 3261: SIP: Session Initiation Protocol` for RFCs, else the first line when short.
fn title(text: &str) -> Option<String> {
    let mut pos = 0;
    let mut first = None;
    for _ in 0..80 {
        if pos >= text.len() {
            break;
        }
        let (end, next) = line_at(text, pos);
        let line = &text[pos..end];
        if first.is_none() && !is_blank(line) {
            first = Some(line.trim());
        }
        if let Some(c) = RFC_NUMBER.captures(line) {
            // The title is the centred line(s) after the header block.
            let mut p = next;
            while p < text.len() && !is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            while p < text.len() && is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            let mut words = Vec::new();
            while p < text.len() {
                let (e, n) = line_at(text, p);
                let l = &text[p..e];
                if is_blank(l) || indent(l) < 3 {
                    break;
                }
                words.push(squash(l));
                p = n;
            }
            return Some(match words.is_empty() {
                true => format!("RFC {}", &c[1]),
                false => format!("RFC {}: {}", &c[1], words.join(" ")),
            });
        }
        pos = next;
    }
    first.filter(|t| t.chars().count() <= 120).map(squash)
}

// ---------------------------------------------------------------------------------------
// Headings

/// A dotted section number: `4.2.1`, or `A.1` (`letter`, A = 1).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Num {
    letter: bool,
    parts: Vec<u32>,
}

impl Num {
    fn key(&self) -> String {
        let mut out = String::new();
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            match (i, self.letter) {
                (0, true) => out.push(char::from(b'A' + (*p as u8 - 1))),
                _ => out.push_str(&p.to_string()),
            }
        }
        out
    }
}

/// A line that looks like a numbered heading.
struct Numbered<'a> {
    num: Num,
    title: &'a str,
    appendix: bool,
}

/// One to three digits not followed by another digit.
fn digits(b: &[u8]) -> Option<(u32, usize)> {
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || n > 3 {
        return None;
    }
    let v = b[..n]
        .iter()
        .fold(0u32, |v, c| v * 10 + u32::from(c - b'0'));
    Some((v, n))
}

/// `4.2.1.  Title`, `20.1 Accept`, `A.1.  Title`, `A.  Title`, `Appendix A.  Title`.
fn parse_numbered(line: &str) -> Option<Numbered<'_>> {
    for word in ["Appendix ", "APPENDIX "] {
        if let Some(rest) = line.strip_prefix(word) {
            let rb = rest.as_bytes();
            let letter = *rb.first()?;
            if !letter.is_ascii_uppercase() || rb.get(1).is_some_and(|c| c.is_ascii_alphanumeric())
            {
                return None;
            }
            let skip = if matches!(rb.get(1), Some(b'.' | b':')) {
                2
            } else {
                1
            };
            let title = &rest[skip..];
            if !title.is_empty() && !title.starts_with([' ', '\t']) {
                return None;
            }
            let num = Num {
                letter: true,
                parts: vec![u32::from(letter - b'A' + 1)],
            };
            return Some(Numbered {
                num,
                title: title.trim(),
                appendix: true,
            });
        }
    }
    let b = line.as_bytes();
    let mut parts = Vec::new();
    let letter = b.first()?.is_ascii_uppercase();
    let mut i = if letter {
        if b.get(1) != Some(&b'.') {
            return None;
        }
        parts.push(u32::from(b[0] - b'A' + 1));
        1
    } else {
        let (v, n) = digits(b)?;
        parts.push(v);
        n
    };
    while b.get(i) == Some(&b'.') && parts.len() < 8 {
        let Some((v, n)) = digits(&b[i + 1..]) else {
            break;
        };
        parts.push(v);
        i += 1 + n;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
    }
    if !matches!(b.get(i), Some(b' ' | b'\t')) {
        return None;
    }
    Some(Numbered {
        num: Num { letter, parts },
        title: line[i..].trim(),
        appendix: false,
    })
}

static TOC_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\.{4,}|(?:\. ){3,}|\s{3,}\d+\s*$").unwrap());

/// A numbered heading candidate that has a heading's shape (not a TOC line or a sentence).
fn numbered_candidate(line: &str) -> Option<Numbered<'_>> {
    let n = parse_numbered(line)?;
    if line.trim_end().len() > 100 || TOC_LINE.is_match(line) {
        return None;
    }
    if n.title.is_empty() {
        return n.appendix.then_some(n);
    }
    // A title may end with a dot (`27.5 The "message/sip" MIME type.`) when it is short.
    let sentence = n.title.ends_with('.') && n.title.split_whitespace().count() > 8;
    let shaped = n.title.chars().any(char::is_alphabetic)
        && !n.title.starts_with(char::is_lowercase)
        && !n.title.ends_with([',', ';'])
        && !sentence;
    shaped.then_some(n)
}

/// True when `c` can follow `prev`: next sibling, first child, or the next number at a
/// shallower depth (possibly with its first children, `4.2.3` → `5.1`). Appendix letters
/// start at `A` after the numbers.
fn follows(prev: Option<&Num>, c: &Num, strict_start: bool) -> bool {
    let ones = |s: &[u32]| s.iter().all(|&v| v == 1);
    match prev {
        None if c.letter => ones(&c.parts),
        None if strict_start => c.parts.iter().all(|&v| v <= 1),
        None => c.parts.len() == 1,
        Some(p) if p.letter != c.letter => !p.letter && ones(&c.parts),
        Some(p) => {
            let (pp, cp) = (&p.parts, &c.parts);
            if cp.len() > pp.len() && cp.starts_with(pp) && ones(&cp[pp.len()..]) {
                return true;
            }
            (0..pp.len().min(cp.len()))
                .any(|j| cp[..j] == pp[..j] && cp[j] == pp[j] + 1 && ones(&cp[j + 1..]))
        }
    }
}

/// True when `c` would follow `prev` had one number been skipped (`27.4` → `27.6`): a lost
/// heading must not stop the numbering, so the next number after `c` is accepted.
fn skips_one(prev: Option<&Num>, c: &Num) -> bool {
    let Some(p) = prev else { return false };
    let ones = |s: &[u32]| s.iter().all(|&v| v == 1);
    let (pp, cp) = (&p.parts, &c.parts);
    if p.letter != c.letter {
        return false;
    }
    if cp.len() > pp.len() && cp.starts_with(pp) && cp[pp.len()] == 2 && ones(&cp[pp.len() + 1..]) {
        return true;
    }
    (0..pp.len().min(cp.len()))
        .any(|j| cp[..j] == pp[..j] && cp[j] == pp[j] + 2 && ones(&cp[j + 1..]))
}

static LEGAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:(?:(?P<sec>SECTION|Section|SEC\.|Sec\.)\s+|(?P<par>§§?)\s*)",
        r"(?P<sn>\d+[A-Za-z]{0,2}(?:[.\-]\d+[A-Za-z]?)*(?:\([A-Za-z0-9]{1,4}\))*)",
        r"|(?P<unit>ARTICLE|Article|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|SUBPART|Subpart",
        r"|TITLE|Title|SUBTITLE|Subtitle|DIVISION|Division|SCHEDULE|Schedule|ANNEX|Annex",
        r"|EXHIBIT|Exhibit|BOOK|Book)\s+(?P<un>[IVXLCDM]+|\d+[A-Za-z]?(?:[.\-]\d+)*|[A-Z]))",
        r"(?P<rest>.*)$"
    ))
    .unwrap()
});

/// A legal heading: kind (for its level), number, and whether a title follows the number.
struct Legal {
    kind: String,
    number: SectionNumber,
    titled: bool,
}

/// `Section 203.`, `SEC. 101. SHORT TITLE.`, `§ 102 Conditions`, `ARTICLE V`, `PART II`.
fn legal(t: &str) -> Option<Legal> {
    if t.len() > 120
        || t.ends_with([',', ';'])
        || !t.starts_with(['S', 'A', 'C', 'P', 'T', 'D', 'E', 'B', '§'])
    {
        return None;
    }
    let c = LEGAL.captures(t)?;
    let rest = c.name("rest").map_or("", |m| m.as_str());
    let word = c.name("sec").or(c.name("unit")).map_or("§", |m| m.as_str());
    let caps = !word.chars().any(char::is_lowercase);
    let after = rest.trim_start().chars().next();
    let separated = rest.trim().is_empty()
        || rest.starts_with(['.', ':', '—', '–'])
        || rest.starts_with("  ")
        || [" —", " –", " - "].iter().any(|s| rest.starts_with(s))
        || (rest.starts_with(' ')
            && after.is_some_and(char::is_uppercase)
            && (caps || (t.len() < 60 && !t.ends_with('.'))));
    if !separated {
        return None;
    }
    let titled = !rest
        .trim_start_matches(['.', ':', '—', '–', '-', ' ', '\t'])
        .is_empty();
    let legal = match (c.name("sn"), c.name("un")) {
        (Some(n), _) => Legal {
            kind: "section".into(),
            number: SectionNumber {
                number: n.as_str().to_string(),
                unit: None,
            },
            titled,
        },
        (None, Some(n)) => {
            let unit = word.to_lowercase();
            Legal {
                kind: unit.clone(),
                number: SectionNumber {
                    number: n.as_str().to_string(),
                    unit: Some(unit),
                },
                titled,
            }
        }
        (None, None) => return None,
    };
    Some(legal)
}

/// A short line that could be a title: capitalised, no sentence or clause end, no layout.
fn title_like(t: &str, max: usize) -> bool {
    t.len() >= 2
        && t.len() < max
        && t.starts_with(char::is_uppercase)
        && !t.ends_with(['.', ',', ';', ':'])
        && !t.contains("   ")
        && !t.contains(['=', '|', '<', '>', '{', '}'])
}

/// `DEFINITIONS`, `GENERAL PROVISIONS`: short, all capitals, mostly letters.
fn all_caps(t: &str) -> bool {
    if t.len() < 3 || t.len() >= 70 || t.ends_with(['.', ',', ';', ':']) || t.contains("   ") {
        return false;
    }
    if t.contains([
        '=', '|', '<', '>', '[', ']', '{', '}', '"', '_', '/', '\\', '*', '+',
    ]) {
        return false;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    letters >= 3 && letters * 10 >= visible * 7 && !t.chars().any(char::is_lowercase)
}

// ---------------------------------------------------------------------------------------
// Blocks

/// The indentation of a list item's marker (`o`, `-`, `*`, `•`, `1.`, `a)`, `(iv)`).
fn list_marker(line: &str) -> Option<usize> {
    let ind = indent(line);
    let t = &line[ind..];
    let b = t.as_bytes();
    let rest = match *b.first()? {
        b'o' | b'-' | b'*' | b'+' => &t[1..],
        c if c.is_ascii_digit() => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 3 {
                return None;
            }
            t[n..]
                .strip_prefix('.')
                .or_else(|| t[n..].strip_prefix(')'))?
        }
        b'(' => {
            let close = t.find(')')?;
            if !(2..=5).contains(&close) || !t[1..close].bytes().all(|c| c.is_ascii_alphanumeric())
            {
                return None;
            }
            &t[close + 1..]
        }
        c if c.is_ascii_lowercase() && matches!(b.get(1), Some(b'.' | b')')) => &t[2..],
        _ => t.strip_prefix('•')?,
    };
    (rest.starts_with([' ', '\t']) && !is_blank(rest)).then_some(ind)
}

const BOX: &[char] = &[
    '─', '│', '┌', '┐', '└', '┘', '├', '┤', '┬', '┴', '┼', '═', '║',
];

/// A line of a figure, table, diagram or ABNF rule.
fn code_like(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || TOC_LINE.is_match(line) {
        return false;
    }
    if ["+-", "-+", "|", "---", "===", "<-", "->", "~~~"]
        .iter()
        .any(|p| t.contains(p))
        || t.contains(BOX)
        || t.contains("   ")
    {
        return true;
    }
    // ABNF: `name = rule` or `name =/ rule`.
    let eq = t.find(" = ").or_else(|| t.find(" =/ "));
    eq.is_some_and(|i| {
        let name = t[..i].trim();
        !name.is_empty()
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    })
}

// ---------------------------------------------------------------------------------------
// The scan

/// One pass over the normalized text: headings and blocks.
struct Scan<'a> {
    text: &'a str,
    breaks: &'a [usize],
    indented: bool,
    /// The first numbered heading must be `1`/`0`/`1.1` when the document has one.
    strict_start: bool,
    last: Option<Num>,
    /// A refused number that skipped one (see [`skips_one`]); its successor is accepted.
    missed: Option<Num>,
    /// The last non-blank line was body text at column 0 (message dumps in RFCs).
    prev_col0_body: bool,
    /// Legal heading kinds in order of first appearance; the position is the level.
    kinds: Vec<String>,
    headings: Vec<HeadingMark>,
    blocks: Vec<Block>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str, breaks: &'a [usize], indented: bool) -> Scan<'a> {
        let mut strict_start = false;
        let (mut pos, mut prev_blank) = (0, true);
        while pos < text.len() {
            let (end, next) = line_at(text, pos);
            let line = &text[pos..end];
            if prev_blank && !line.starts_with(char::is_whitespace) {
                if let Some(n) = numbered_candidate(line) {
                    if !n.num.letter && n.num.parts.iter().all(|&v| v <= 1) {
                        strict_start = true;
                        break;
                    }
                }
            }
            prev_blank = is_blank(line);
            pos = next;
        }
        Scan {
            text,
            breaks,
            indented,
            strict_start,
            last: None,
            missed: None,
            prev_col0_body: false,
            kinds: Vec::new(),
            headings: Vec::new(),
            blocks: Vec::new(),
        }
    }

    fn run(&mut self) {
        let text = self.text;
        let (mut pos, mut prev_blank, mut brk) = (0, true, 0);
        let mut para: Option<(usize, usize)> = None;
        while pos < text.len() {
            let (end, next) = line_at(text, pos);
            let line = &text[pos..end];
            while brk < self.breaks.len() && self.breaks[brk] < pos {
                brk += 1;
            }
            let page_start = self.breaks.get(brk) == Some(&pos);
            if is_blank(line) {
                self.flush(para.take());
                prev_blank = true;
                pos = next;
                continue;
            }
            if prev_blank || page_start {
                if let Some((mark, after)) = self.heading(pos, end, next) {
                    self.flush(para.take());
                    self.blocks.push(Block {
                        kind: BlockKind::Heading,
                        span: mark.span,
                    });
                    self.headings.push(mark);
                    self.prev_col0_body = false;
                    prev_blank = false;
                    pos = after;
                    continue;
                }
            }
            para = Some((para.map_or(pos, |p| p.0), end));
            self.prev_col0_body = !line.starts_with(char::is_whitespace);
            prev_blank = false;
            pos = next;
        }
        self.flush(para);
    }

    /// The heading at the line `pos..end`, with where the scan continues.
    fn heading(&mut self, pos: usize, end: usize, next: usize) -> Option<(HeadingMark, usize)> {
        let line = &self.text[pos..end];
        if line.len() > 200 {
            return None;
        }
        let col0 = !line.starts_with(char::is_whitespace);
        let t = line.trim();
        if col0 {
            if let Some(n) = numbered_candidate(line) {
                let resync = self
                    .missed
                    .as_ref()
                    .is_some_and(|m| follows(Some(m), &n.num, false));
                if !resync && !follows(self.last.as_ref(), &n.num, self.strict_start) {
                    if skips_one(self.last.as_ref(), &n.num) {
                        self.missed = Some(n.num);
                    }
                    return None;
                }
                self.missed = None;
                let level = if n.appendix {
                    1
                } else {
                    n.num.parts.len() as u32
                };
                let unit = n.appendix.then(|| "appendix".to_string());
                let number = SectionNumber {
                    number: n.num.key(),
                    unit,
                };
                self.last = Some(n.num);
                return Some(self.finish(pos, end, next, level, Some(number), false));
            }
        }
        if col0 || !self.indented {
            if let Some(l) = legal(t) {
                let rank = match self.kinds.iter().position(|k| *k == l.kind) {
                    Some(i) => i + 1,
                    None => {
                        self.kinds.push(l.kind);
                        self.kinds.len()
                    }
                };
                return Some(self.finish(pos, end, next, rank as u32, Some(l.number), !l.titled));
            }
        }
        let unnumbered = col0
            && self.indented
            && !self.prev_col0_body
            && title_like(t, 70)
            && self.next_nonblank_indented(next);
        let caps = (col0 || !self.indented) && all_caps(t) && self.blank_at(next);
        (unnumbered || caps).then(|| self.finish(pos, end, next, 1, None, false))
    }

    /// The heading mark; joins an indented continuation line of a long title, or the title
    /// line under a bare `ARTICLE V` (`merge`).
    fn finish(
        &self,
        pos: usize,
        end: usize,
        next: usize,
        level: u32,
        number: Option<SectionNumber>,
        merge: bool,
    ) -> (HeadingMark, usize) {
        let text = self.text;
        let line = &text[pos..end];
        let mut title = squash(line);
        let (mut span_end, mut after) = (end, next);
        let numbered = number.is_some();
        if numbered && !merge && line.len() >= 50 && after < text.len() {
            let (e2, n2) = line_at(text, after);
            let l2 = &text[after..e2];
            let t2 = l2.trim();
            if !t2.is_empty()
                && indent(l2) > indent(line)
                && t2.len() < 70
                && !t2.ends_with(['.', ',', ';'])
                && list_marker(l2).is_none()
                && self.blank_at(n2)
            {
                title = format!("{title} {}", squash(t2));
                (span_end, after) = (e2, n2);
            }
        }
        if merge {
            let mut p = after;
            if p < text.len() && is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            if p < text.len() {
                let (e2, n2) = line_at(text, p);
                let t2 = text[p..e2].trim();
                let heading_like = (all_caps(t2) || title_like(t2, 70))
                    && legal(t2).is_none()
                    && parse_numbered(t2).is_none();
                if heading_like && self.blank_at(n2) {
                    title = format!("{title} {}", squash(t2));
                    (span_end, after) = (e2, n2);
                }
            }
        }
        let mark = HeadingMark {
            level,
            title,
            span: Span::new(pos, span_end),
            number,
        };
        (mark, after)
    }

    /// True when the line at `pos` is blank or the text ends there.
    fn blank_at(&self, pos: usize) -> bool {
        pos >= self.text.len() || is_blank(&self.text[pos..line_at(self.text, pos).0])
    }

    /// True when the next non-blank line from `pos` is indented (or there is none).
    fn next_nonblank_indented(&self, mut pos: usize) -> bool {
        while pos < self.text.len() {
            let (end, next) = line_at(self.text, pos);
            let line = &self.text[pos..end];
            if !is_blank(line) {
                return line.starts_with(char::is_whitespace);
            }
            pos = next;
        }
        true
    }

    /// Classifies the paragraph `start..end` (non-blank lines): code, list items, prose.
    fn flush(&mut self, para: Option<(usize, usize)>) {
        let Some((start, end)) = para else { return };
        let body = &self.text[start..end];
        let first_marker = list_marker(body.split('\n').next().unwrap_or(""));
        if first_marker.is_none() {
            let (mut code, mut lines) = (0usize, 0usize);
            for line in body.split('\n') {
                lines += 1;
                code += usize::from(code_like(line));
            }
            if code * 2 > lines {
                self.blocks.push(Block {
                    kind: BlockKind::Code,
                    span: Span::new(start, end),
                });
                return;
            }
        }
        // Split before each list marker at the indentation of the first one.
        let mut marker = first_marker;
        let (mut cur, mut kind) = (
            start,
            if marker.is_some() {
                BlockKind::ListItem
            } else {
                BlockKind::Paragraph
            },
        );
        let mut pos = start;
        while pos < end {
            let line_end = self.text[pos..end].find('\n').map_or(end, |i| pos + i);
            let line = &self.text[pos..line_end];
            if pos > cur {
                if let Some(ind) = list_marker(line) {
                    if marker.is_none() || marker == Some(ind) {
                        self.blocks.push(Block {
                            kind,
                            span: Span::new(cur, pos - 1),
                        });
                        (cur, kind, marker) = (pos, BlockKind::ListItem, Some(ind));
                    }
                }
            }
            pos = line_end + 1;
        }
        self.blocks.push(Block {
            kind,
            span: Span::new(cur, end),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn read(s: &str) -> Parsed {
        TextReader.read(s.as_bytes()).expect("readable")
    }

    fn titles(p: &Parsed) -> Vec<&str> {
        p.headings.iter().map(|h| h.title.as_str()).collect()
    }

    fn number(h: &HeadingMark) -> &str {
        h.number.as_ref().map_or("", |n| n.number.as_str())
    }

    /// The reader contract: spans in bounds on char boundaries, blocks sorted and disjoint,
    /// headings in order and disjoint, page breaks inside the text.
    fn check_invariants(p: &Parsed) {
        let len = p.text.len();
        let mut last = 0;
        for b in &p.blocks {
            assert!(
                b.span.start >= last && b.span.start <= b.span.end && b.span.end <= len,
                "{b:?}"
            );
            assert!(p.text.is_char_boundary(b.span.start) && p.text.is_char_boundary(b.span.end));
            last = b.span.end;
        }
        let mut last = 0;
        for h in &p.headings {
            assert!(h.span.start >= last && h.span.end <= len, "{h:?}");
            assert!(p.text.is_char_boundary(h.span.start) && p.text.is_char_boundary(h.span.end));
            last = h.span.end;
        }
        let mut last = 0;
        for &b in &p.page_breaks {
            assert!(b > 0 && b < len && b >= last, "break {b} of {len}");
            assert!(p.text.is_char_boundary(b));
            last = b;
        }
        assert!(p.page_labels.is_empty() || p.page_labels.len() == p.page_breaks.len() + 1);
    }

    #[test]
    fn rfc_numbered_forms() {
        let p = read(concat!(
            "1.  Introduction\n\n   Body text here.\n\n",
            "1.1.  Scope\n\n   More.\n\n",
            "2 Overview\n\n   Body.\n\n",
            "2.1 Accept\n\n   Body.\n\n",
            "2.1.1 Detail\n\n   Body.\n\n",
            "3.  Next\n\n   Body.\n\n",
            "Appendix A.  Extra\n\n   Body.\n\n",
            "A.1.  Sub\n\n   Body.\n\n",
            "Appendix B.  More\n\n   Body.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p.headings.iter().map(|h| (h.level, number(h))).collect();
        assert_eq!(
            got,
            [
                (1, "1"),
                (2, "1.1"),
                (1, "2"),
                (2, "2.1"),
                (3, "2.1.1"),
                (1, "3"),
                (1, "A"),
                (2, "A.1"),
                (1, "B")
            ]
        );
        assert_eq!(
            p.headings[6].number.as_ref().unwrap().unit.as_deref(),
            Some("appendix")
        );
        assert_eq!(p.headings[3].span.slice(&p.text), "2.1 Accept");
        assert_eq!(p.blocks[0].kind, BlockKind::Heading);
        assert_eq!(p.blocks[1].kind, BlockKind::Paragraph);
    }

    #[test]
    fn legal_forms() {
        let p = read(concat!(
            "ARTICLE I\n\nDEFINITIONS\n\n",
            "Section 1.  Terms.\n\nThe terms below apply.\n\n",
            "SEC. 101. SHORT TITLE.\n\nThis Act may be cited as the Act.\n\n",
            "Section 203 of the Act is amended.\n\n",
            "PART II\n\nGENERAL PROVISIONS\n\n",
            "CHAPTER 3\n\nBody text continues here.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p
            .headings
            .iter()
            .map(|h| {
                (
                    h.level,
                    h.title.as_str(),
                    number(h),
                    h.number.as_ref().and_then(|n| n.unit.as_deref()),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "ARTICLE I DEFINITIONS", "I", Some("article")),
                (2, "Section 1. Terms.", "1", None),
                (2, "SEC. 101. SHORT TITLE.", "101", None),
                (3, "PART II GENERAL PROVISIONS", "II", Some("part")),
                (4, "CHAPTER 3", "3", Some("chapter")),
            ]
        );
        assert_eq!(
            p.headings[0].span.slice(&p.text),
            "ARTICLE I\n\nDEFINITIONS"
        );
    }

    #[test]
    fn unnumbered_and_caps_headings() {
        let p = read(concat!(
            "Abstract\n\n   This memo describes things.\n\n",
            "Status of This Memo\n\n   Indented body.\n\n",
            "Example:\n\n   Indented body.\n\n",
            "F1 INVITE Alice -> Bob\n\nINVITE sip:bob SIP/2.0\n\n",
            "   Indented words\n\n   o  a bullet\n   o  another\n\n",
            "DEFINITIONS\n\n   Body.\n\n",
            "Authors' Addresses\n\n   Someone\n",
        ));
        check_invariants(&p);
        assert_eq!(
            titles(&p),
            [
                "Abstract",
                "Status of This Memo",
                "DEFINITIONS",
                "Authors' Addresses"
            ]
        );
        assert!(p
            .headings
            .iter()
            .all(|h| h.level == 1 && h.number.is_none()));
        let lists = p
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ListItem)
            .count();
        assert_eq!(lists, 2);
    }

    #[test]
    fn caps_line_needs_blank_lines_around() {
        let p = read("Some prose line\nNOT A HEADING\nmore prose\n\nGENERAL PROVISIONS\n\nText.\n");
        assert_eq!(titles(&p), ["GENERAL PROVISIONS"]);
    }

    #[test]
    fn toc_lines_are_not_headings() {
        let p = read(concat!(
            "Table of Contents\n\n",
            "   1. Introduction ....................................6\n",
            "      1.1. Scope ......................................7\n",
            "   2. Resources .......................................8\n\n",
            "1.  Introduction\n\n   Text.\n\n",
            "1.1.  Scope\n\n   Text.\n\n",
            "2.  Resources\n\n   Text.\n",
        ));
        check_invariants(&p);
        assert_eq!(
            titles(&p),
            [
                "Table of Contents",
                "1. Introduction",
                "1.1. Scope",
                "2. Resources"
            ]
        );
        // Unindented TOC lines with leaders are refused too.
        let p = read(
            "1 Introduction ........ 3\n\n2 Overview .......... 5\n\n1 Introduction\n\nText.\n",
        );
        assert_eq!(titles(&p), ["1 Introduction"]);
    }

    #[test]
    fn successor_guard_refuses_jumps() {
        let p = read(concat!(
            "1.  One\n\n   Text.\n\n",
            "3 stray line that is not a heading\n\n   Text.\n\n",
            "7 Also Not A Heading\n\n   Text.\n\n",
            "1.2.  Skipped first child\n\n   Text.\n\n",
            "1.1.  Child\n\n   Text.\n\n",
            "1.1.1.  Grandchild\n\n   Text.\n\n",
            "2.1.  Uncle's first child without 2\n\n   Text.\n\n",
            "B.1.  Appendix B before A\n\n   Text.\n\n",
            "A.1.  First appendix\n\n   Text.\n\n",
            "4.  Numbers after letters\n\n   Text.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p.headings.iter().map(number).collect();
        assert_eq!(got, ["1", "1.1", "1.1.1", "2.1", "A.1"]);
    }

    #[test]
    fn numbering_resyncs_after_a_lost_heading() {
        let p = read(concat!(
            "1.  One\n\n   Text.\n\n",
            "1.1.  A\n\n   Text.\n\n",
            "1.2.  This title is a long sentence that ends with a dot, so it is refused.\n\n   Text.\n\n",
            "1.3.  C\n\n   Text.\n\n",
            "1.4.  D\n\n   Text.\n\n",
            "2.  Two\n\n   Text.\n",
        ));
        let got: Vec<_> = p.headings.iter().map(number).collect();
        assert_eq!(got, ["1", "1.1", "1.4", "2"]);
    }

    #[test]
    fn numbered_list_in_body_is_not_heading() {
        let p = read("1.  Intro\n\n   Text:\n\n   1.  first item\n   2.  second item\n\n2.  Next\n\n   Text.\n");
        assert_eq!(titles(&p), ["1. Intro", "2. Next"]);
        let kinds: Vec<_> = p.blocks.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(
            kinds,
            [Heading, Paragraph, ListItem, ListItem, Heading, Paragraph]
        );
    }

    #[test]
    fn multi_line_title_is_joined() {
        let p = read(concat!(
            "1 Security Considerations: Threat Model and Security Usage\n",
            "   Recommendations\n\n   Body.\n",
        ));
        let h = &p.headings[0];
        assert_eq!(
            h.title,
            "1 Security Considerations: Threat Model and Security Usage Recommendations"
        );
        assert!(h.span.slice(&p.text).ends_with("Recommendations"));
    }

    #[test]
    fn figures_are_code() {
        let p = read(concat!(
            "   Prose paragraph that explains\n   the figure below.\n\n",
            "      +--------+          +--------+\n      | Alice  |--------->|  Bob   |\n      +--------+          +--------+\n\n",
            "   token  =  1*alphanum\n   other  =  token / DIGIT\n",
        ));
        let kinds: Vec<_> = p.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [BlockKind::Paragraph, BlockKind::Code, BlockKind::Code]
        );
    }

    fn rfc_page(n: u32, body: &str) -> String {
        let mut s = String::new();
        if n > 1 {
            s.push_str(
                "\nRFC 9999            Test Protocol                         June 2002\n\n\n",
            );
        }
        s.push_str(body);
        s.push_str(&format!("\n\n\n\nAuthor                      Standards Track                    [Page {n}]\n\x0c"));
        s
    }

    #[test]
    fn page_furniture_is_removed_and_paragraphs_joined() {
        let src = [
            rfc_page(
                1,
                "1.  Intro\n\n   A paragraph that runs over the\n   page break and",
            ),
            rfc_page(
                2,
                "   continues here.  It ends on this page.\n\n   Another paragraph ends here.",
            ),
            rfc_page(3, "   New paragraph on page three.\n\n2.  Next\n\n   Text"),
            rfc_page(4, "3.  Heading at page top\n\n   Text."),
        ]
        .concat();
        let p = read(&src);
        check_invariants(&p);
        assert!(
            !p.text.contains("[Page") && !p.text.contains('\x0c') && !p.text.contains("RFC 9999")
        );
        assert!(
            p.text.contains("page break and\n   continues here."),
            "{}",
            p.text
        );
        assert!(
            p.text.contains("ends here.\n\n   New paragraph"),
            "{}",
            p.text
        );
        assert!(
            p.text.contains("   Text\n\n3.  Heading at page top"),
            "{}",
            p.text
        );
        assert_eq!(p.page_breaks.len(), 3);
        assert!(p.text[p.page_breaks[0]..].starts_with("   continues here."));
        assert!(p.text[p.page_breaks[2]..].starts_with("3.  Heading"));
        assert!(p.page_labels.is_empty());
        assert_eq!(
            titles(&p),
            ["1. Intro", "2. Next", "3. Heading at page top"]
        );
        let para = p
            .blocks
            .iter()
            .find(|b| b.span.slice(&p.text).starts_with("   A paragraph"))
            .unwrap();
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

    #[test]
    fn titles_from_rfc_header_or_first_line() {
        let p = read(concat!(
            "Network Working Group                                       J. Doe\n",
            "Request for Comments: 1234                                  Example\n\n",
            "                    FOO: A Test Protocol\n\n",
            "Abstract\n\n   Text.\n",
        ));
        assert_eq!(p.title.as_deref(), Some("RFC 1234: FOO: A Test Protocol"));
        assert_eq!(
            read("\n\n  My   Report \n\nBody.\n").title.as_deref(),
            Some("My Report")
        );
    }

    #[test]
    fn empty_and_odd_inputs() {
        assert_eq!(TextReader.read(b"").unwrap_err(), ReadError::Empty);
        assert_eq!(
            TextReader.read(b"\x0c\x0c\n").unwrap_err(),
            ReadError::Empty
        );
        for s in [
            "x",
            "\x0cx",
            "x\x0c",
            "1 A",
            "A.",
            "Appendix",
            "Appendix Z",
            "§",
            "ARTICLE",
            "é\x0cé\n\x0c",
            "1.  A\n   b\n",
            "SECTION 1\n\n\n",
            "\n\n\n1 X\x0c\n2 Y\x0c\x0c\x0c3 Z",
        ] {
            let p = read(s);
            check_invariants(&p);
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in r"[ \n\x0cA-Za-z0-9.§é|+\-\[\]]{0,300}") {
            if let Ok(p) = TextReader.read(s.as_bytes()) {
                check_invariants(&p);
            }
        }
    }

    // ---- corpus -------------------------------------------------------------------------

    const CORPUS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/corpus/txt/"
    );

    fn corpus(name: &str) -> Option<(Parsed, f64)> {
        let path = format!("{CORPUS}{name}");
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipping: {path} not found");
            return None;
        };
        let t = Instant::now();
        let p = TextReader.read(&bytes).expect("corpus file reads");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        check_invariants(&p);
        let numbered = p.headings.iter().filter(|h| h.number.is_some()).count();
        eprintln!(
            "{name}: {} headings ({numbered} numbered), {} pages, {} bytes of text, {} blocks, {ms:.1} ms",
            p.headings.len(),
            p.page_breaks.len() + 1,
            p.text.len(),
            p.blocks.len()
        );
        Some((p, ms))
    }

    /// Numbered (non-appendix) headings per depth, and appendix headings.
    fn depths(p: &Parsed) -> (Vec<usize>, usize) {
        let mut d = vec![0; 4];
        let mut appendix = 0;
        for h in &p.headings {
            let Some(n) = &h.number else { continue };
            if n.number.starts_with(|c: char| c.is_ascii_uppercase()) {
                appendix += 1;
            } else {
                let depth = n.number.split('.').count();
                if depth > d.len() {
                    d.resize(depth, 0);
                }
                d[depth - 1] += 1;
            }
        }
        (d, appendix)
    }

    #[test]
    fn corpus_rfc3261() {
        let Some((p, _)) = corpus("rfc3261-sip.txt") else {
            return;
        };
        assert_eq!(
            p.title.as_deref(),
            Some("RFC 3261: SIP: Session Initiation Protocol")
        );
        assert!(!p.text.contains("[Page") && !p.text.contains('\x0c'));
        assert_eq!(p.page_breaks.len() + 1, 269);
        assert!(
            p.page_labels.is_empty(),
            "printed page numbers equal physical ones"
        );
        let (d, _) = depths(&p);
        eprintln!("rfc3261 depths {d:?}");
        assert!(d.iter().sum::<usize>() >= 300);
        let accept = p
            .headings
            .iter()
            .find(|h| h.title == "20.1 Accept")
            .expect("20.1 Accept");
        assert_eq!((accept.level, number(accept)), (2, "20.1"));
        assert_eq!(accept.span.slice(&p.text), "20.1 Accept");
        for t in [
            "Abstract",
            "Table of Contents",
            "Status of this Memo",
            "Full Copyright Statement",
        ] {
            let h = p
                .headings
                .iter()
                .find(|h| h.title == t)
                .unwrap_or_else(|| panic!("{t}"));
            assert_eq!(h.level, 1);
        }
        let unnumbered: Vec<_> = p
            .headings
            .iter()
            .filter(|h| h.number.is_none())
            .map(|h| &h.title)
            .collect();
        eprintln!("rfc3261 unnumbered: {unnumbered:?}");
        assert!(unnumbered.len() <= 12, "{unnumbered:?}");
        // Section 9.1 starts on page 53 (per the table of contents).
        let h = p
            .headings
            .iter()
            .find(|h| h.title.starts_with("9.1 "))
            .unwrap();
        assert_eq!(
            p.page_breaks.partition_point(|&b| b <= h.span.start) + 1,
            53
        );
    }

    #[test]
    fn corpus_rfc7231() {
        let Some((p, _)) = corpus("rfc7231-http11-semantics.txt") else {
            return;
        };
        assert!(p
            .title
            .as_deref()
            .unwrap()
            .starts_with("RFC 7231: Hypertext Transfer Protocol (HTTP/1.1)"));
        assert!(!p.text.contains("[Page") && !p.text.contains('\x0c'));
        assert_eq!(p.page_breaks.len() + 1, 101);
        let (d, appendix) = depths(&p);
        eprintln!("rfc7231 depths {d:?}, appendix {appendix}");
        assert!((137..=143).contains(&d.iter().sum::<usize>()));
        assert_eq!(appendix, 10);
        let h = p
            .headings
            .iter()
            .find(|h| h.span.slice(&p.text) == "6.5.1.  400 Bad Request")
            .unwrap();
        assert_eq!(
            (number(h), h.level, h.title.as_str()),
            ("6.5.1", 3, "6.5.1. 400 Bad Request")
        );
        // Section 6.5.1 is on page 58 (per the table of contents).
        assert_eq!(
            p.page_breaks.partition_point(|&b| b <= h.span.start) + 1,
            58
        );
    }

    #[test]
    fn corpus_rfc9000() {
        let Some((p, _)) = corpus("rfc9000-quic-unpaginated.txt") else {
            return;
        };
        assert_eq!(
            p.title.as_deref(),
            Some("RFC 9000: QUIC: A UDP-Based Multiplexed and Secure Transport")
        );
        assert!(p.page_breaks.is_empty());
        let (d, appendix) = depths(&p);
        eprintln!("rfc9000 depths {d:?}, appendix {appendix}");
        assert!((203..=209).contains(&d.iter().sum::<usize>()));
        assert_eq!(appendix, 5);
    }

    /// `headings_sections` in MANIFEST.tsv, e.g. `313 numbered section headings (depth1:29 …)`.
    #[test]
    fn corpus_matches_manifest() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/corpus/MANIFEST.tsv"
        );
        let Ok(manifest) = std::fs::read_to_string(path) else {
            eprintln!("skipping: {path} not found");
            return;
        };
        let mut lines = manifest.lines();
        let header: Vec<_> = lines.next().unwrap_or("").split('\t').collect();
        let col = header
            .iter()
            .position(|h| *h == "headings_sections")
            .expect("headings_sections column");
        let count =
            Regex::new(r"^(\d+) numbered section headings.*?(?:, (\d+) appendix headings)?$")
                .unwrap();
        let depth = Regex::new(r"depth(\d+):(\d+)").unwrap();
        for row in lines {
            let fields: Vec<_> = row.split('\t').collect();
            let (Some(path), Some(cell)) = (fields.first(), fields.get(col)) else {
                continue;
            };
            let Some(name) = path.strip_prefix("txt/") else {
                continue;
            };
            let Some(c) = count.captures(cell) else {
                continue;
            };
            let Some((p, _)) = corpus(name) else { continue };
            let (got, appendix) = depths(&p);
            let want: usize = c[1].parse().unwrap();
            let total: usize = got.iter().sum();
            assert!(
                total.abs_diff(want) <= 3,
                "{name}: {total} numbered, manifest {want}"
            );
            let want_app: usize = c.get(2).map_or(0, |m| m.as_str().parse().unwrap());
            assert!(
                appendix.abs_diff(want_app) <= 3,
                "{name}: {appendix} appendix, manifest {want_app}"
            );
            for d in depth.captures_iter(cell) {
                let (level, n): (usize, usize) = (d[1].parse().unwrap(), d[2].parse().unwrap());
                let have = got.get(level - 1).copied().unwrap_or(0);
                assert!(
                    have.abs_diff(n) <= 3,
                    "{name}: depth {level}: {have}, manifest {n}"
                );
            }
        }
    }

    /// Run with `--release --ignored`: ~60 MB texts, real and degenerate, read in linear time.
    #[test]
    #[ignore]
    fn large_input_is_linear() {
        let path = format!("{CORPUS}rfc3261-sip.txt");
        let Ok(one) = std::fs::read(&path) else {
            eprintln!("skipping: {path} not found");
            return;
        };
        let mut big = Vec::with_capacity(one.len() * 95);
        while big.len() < 60_000_000 {
            big.extend_from_slice(&one);
        }
        let t = Instant::now();
        let p = TextReader.read(&big).unwrap();
        eprintln!(
            "{} MB: {:.2} s, {} headings, {} pages, {} blocks",
            big.len() / 1_000_000,
            t.elapsed().as_secs_f64(),
            p.headings.len(),
            p.page_breaks.len() + 1,
            p.blocks.len()
        );
        check_invariants(&p);
        let degenerate: [(&str, Vec<u8>); 4] = [
            ("one line", vec![b'x'; 60_000_000]),
            ("form feeds", b"a\x0c".repeat(20_000_000)),
            (
                "newlines",
                [vec![b'\n'; 60_000_000], b"x".to_vec()].concat(),
            ),
            ("heading lines", b"1 A\n\n".repeat(10_000_000)),
        ];
        for (name, bytes) in degenerate {
            let t = Instant::now();
            let p = TextReader.read(&bytes).unwrap();
            eprintln!(
                "{name}: {:.2} s, {} pages, {} blocks",
                t.elapsed().as_secs_f64(),
                p.page_breaks.len() + 1,
                p.blocks.len()
            );
        }
    }
}
