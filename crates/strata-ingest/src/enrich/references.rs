//! Cross-references: `Section 203(a)(1)`, `§§ 1–3`, `subsection (b)`, `Appendix A`,
//! `Section 4.2 of [RFC9110]`, `section 1498 of title 28`, `35 U.S.C. 102`.
//!
//! One regex finds the head of every reference (`section`, `§`, `subsection`, a unit word such
//! as `chapter`, or `NN U.S.C.`); the number, a list of numbers (`sections 3, 4, and 5`,
//! `sections 101 through 105`), the `of …` tail and the text just before the head are then
//! read at that position. A reference that names another document (`of title 28`,
//! `[RFC9110], Section 4.2`, `Pub. L. 112–29, §3`, `of the Internal Revenue Code`) is external
//! and left unresolved; the others are resolved against the document's own section numbers:
//! the exact key first, then its parents (`203(a)(1)` → `203(a)` → `203`, `exact = false`).
//!
//! Everything is linear in the text: the key → nodes map is built once per document, and the
//! checks around a reference look at a few dozen bytes.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use strata_core::{floor_char_boundary, Document, NodeId, Reference, SectionNumber, Span};
use strata_text::number;

/// Integer ranges (`sections 101 through 105`) up to this many items are expanded.
pub const MAX_RANGE: u64 = 50;

/// How far back the lead-in and the citation before a reference are looked for, in bytes.
const LOOK_BACK: usize = 80;

/// How far ahead numbers, lists and `of …` tails are read, in bytes.
const LOOK_AHEAD: usize = 240;

/// The head of a reference. Unit words are case-insensitive; their numbers are not.
static HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?:§§?|(?-u:\b)(?i:sections?|secs?)(?-u:\b)\.?)
        |(?:(?-u:\b)(?i:subsections?|subsecs?\.|paragraphs?|pars?\.|subparagraphs?|subpars?\.|clauses?|subclauses?)(?-u:\b))
        |(?:(?-u:\b)(?i:articles?|chapters?|subchapters?|parts?|subparts?|titles?|subtitles?|divisions?|appendix|appendices|appendixes|annex|annexes|schedules?|books?|exhibits?|rules?)(?-u:\b))
        |(?:(?-u:\b)\d{1,2}\s+U\.\s?S\.\s?C\.(?:\s?A\.)?(?:\s*§§?)?)
        ",
    )
    .unwrap()
});

/// One parenthesized designation: `(b)`, `(2)`, `(A)`, `(iv)`.
const PAREN: &str = r"\((?:[a-z]{1,2}|[A-Z]{1,2}|\d{1,3}|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})\)";

/// A section number: `102`, `203(a)(1)`, `4.2.1`, `2000e-2`, `A.1`.
static SECT_NUM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:\d+[A-Za-z]{{0,3}}(?:[.\-]\d+[A-Za-z]{{0,3}})*|[A-Z](?:\.\d+)+)(?-u:\b)(?:\s?{PAREN})*"
    ))
    .unwrap()
});

/// A relative designation: `(b)`, `(b)(2)`.
static REL_NUM: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!(r"^(?:{PAREN})+")).unwrap());

/// A unit number: `V`, `10`, `A`, `B.1`, `12(b)`.
static UNIT_NUM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:[A-Z](?:\.\d+)+|[IVXLCDM]+|\d+[A-Za-z]?(?:[.\-]\d+)*|[A-Z])(?-u:\b)(?:{PAREN})*"
    ))
    .unwrap()
});

/// Between two items of a list. `range` marks `through`, `to`, `–`.
static LIST_SEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s+(?P<range>through|thru|to)\s+|\s*(?P<dash>[–—]|-)\s*)(?:§\s*)?",
    )
    .unwrap()
});

/// `and`/`or` between two numbers after a singular head (`section 102 or 103`).
static AND_OR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s+(?:and|or)\s+(?:§\s*)?").unwrap());

/// The `of …` tail that names where the target is.
static OF_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^(?:\s*\[[^\]\n]{0,80}\])?(?:\s+et\s+seq\.)?\s*,?\s*of\s+(?:
          (?P<this>(?i:this|the\s+same)\s+(?i:title|chapter|subchapter|part|subpart|subtitle|act|document|specification|agreement|code|article|regulation|rule))(?-u:\b)
        | \[\[?!?(?P<bracket>[^\]|\n]{1,40})(?:\|[^\]\n]{0,40})?\]\]?(?:\([^)\s]*\))?
        | (?P<rfc>RFC\s?\d{1,5})(?-u:\b)
        | (?P<draft>draft-[\w\-]+)
        | (?P<former>(?i:former)\s+)?(?i:title)\s+(?P<title>\d+)(?-u:\b)(?:,\s+United\s+States\s+Code)?
        | (?P<publ>(?:Pub\.\s?L\.|Public\s+Law)\s*\d+[–-]\d+)
        | (?P<such>(?i:such|that)\s+(?:Act|title|law|Code))(?-u:\b)
        | the\s+(?P<named>(?:[A-Z][A-Za-z0-9'’.\-]*\s+(?:(?:of|and|for|the|on|to|in|&)\s+)*){0,10}?(?:Act|Code|Convention|Treaty|Constitution|Rules|Regulations)(?:\s+of\s+\d{4})?)(?-u:\b)
        )",
    )
    .unwrap()
});

/// `of subsection (b)` / `of paragraph (2)` after a relative designation.
static OF_REL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^\s*,?\s*of\s+(?P<kw>(?i:subsection|paragraph|subparagraph|clause|subclause))\s*(?P<num>(?:{PAREN})+)"
    ))
    .unwrap()
});

/// `of section 102` after a relative designation.
static OF_SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^\s*,?\s*of\s+(?:(?i:section)\s+|§\s*)(?P<num>\d+[A-Za-z]{{0,3}}(?:[.\-]\d+[A-Za-z]{{0,3}})*(?:{PAREN})*)"
    ))
    .unwrap()
});

/// A citation of another document right before the head.
static BEFORE_EXTERNAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)(?:
          \[\[?!?(?P<bracket>[^\]|\n]{1,40})(?:\|[^\]\n]{0,40})?\]\]?(?:\([^)\s]*\))?,?\s*\[?
        | \[?(?P<rfc>RFC\s?\d{1,5}),?\s*
        | (?P<publ>(?:Pub\.\s?L\.|Public\s+Law)\s*\d+[–-]\d+),\s*(?:(?:div|title|subtitle|ch|chapter|part)\.?\s+[A-Za-z0-9]+,\s*)*
        | (?P<ch>ch\.\s*\d+),\s*(?:(?:title|subtitle|part|div)\.?\s+[A-Za-z0-9]+,\s*)*
        | (?P<rs>R\.\s?S\.),?\s*
        | T\.\s?(?P<t>\d{1,2})(?:\s+App\.)?\s*
        )$",
    )
    .unwrap()
});

/// A public law cited earlier in the same citation run (`Pub. L. 106–113, div. B,
/// §1000(a)(9) [title IV, §4507(1)]`).
static PUBL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:Pub\.\s?L\.|Public\s+Law)\s*\d+[–-]\d+").unwrap());

/// The lead-in phrase right before the head.
static VIA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)(?:see\s+also|see|pursuant\s+to|as\s+defined\s+in|defined\s+in|as\s+described\s+in|described\s+in|as\s+specified\s+in|specified\s+in|in\s+accordance\s+with|subject\s+to|as\s+provided\s+in|provided\s+in|referred\s+to\s+in|as\s+set\s+forth\s+in|set\s+forth\s+in|under)\s*[(\[]?\s*$",
    )
    .unwrap()
});

/// What kind of head started a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Head {
    /// `section`, `§`: an absolute section number.
    Section,
    /// `subsection`, `paragraph`, …: a designation inside the current section.
    Relative,
    /// `chapter`, `article`, `appendix`, …
    Unit,
    /// `35 U.S.C.`: a section of a US Code title.
    Usc,
}

/// One target of a reference before resolution.
struct Target {
    /// The key (`102(b)`, `chapter 10`).
    key: String,
    /// Where it is written.
    span: Span,
}

/// Finds and resolves the cross-references of a document, in document order.
pub fn find_references(doc: &Document) -> Vec<Reference> {
    let index = NumberIndex::new(doc);
    let text = doc.text.as_str();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        // `find_at`, not `captures_at`: the head's kind is read from its text, which is
        // several times cheaper than capture groups over the whole document.
        let Some(head) = HEAD.find_at(text, pos) else { break };
        let end = read_reference(doc, &index, head, &mut out);
        pos = end.max(head.end());
    }
    out.sort_by_key(|r| r.span.start);
    out
}

/// Reads the reference whose head is `head`, pushes what it finds and returns where it ends.
fn read_reference(
    doc: &Document,
    index: &NumberIndex,
    head: regex::Match,
    out: &mut Vec<Reference>,
) -> usize {
    let text = doc.text.as_str();
    let word = head.as_str();
    let (kind, unit) = head_kind(word);
    let plural = is_plural(word);
    let at = skip_space(text, head.end());
    let grammar: &Regex = match kind {
        Head::Section | Head::Usc => &SECT_NUM,
        Head::Relative => &REL_NUM,
        Head::Unit => &UNIT_NUM,
    };
    let Some(items) = read_list(text, at, grammar, plural, kind == Head::Relative) else {
        return head.end();
    };
    let mut end = items.last().map_or(head.end(), |i| i.span.end);
    let (mut external, via) = lead_in(text, head.start());
    let prefix = match kind {
        Head::Relative => match relative_prefix(doc, word, head.start(), &mut end) {
            Some(prefix) => Some(prefix),
            // `paragraph (2)` alone: its subsection is not known from the tree.
            None => return end,
        },
        _ => None,
    };
    let internal_title = read_tail(text, index, &mut end, &mut external);
    // `title 28` in a US Code title other than 28 is another document.
    if kind == Head::Unit && unit.as_deref() == Some("title") && external.is_none() {
        if let (Some(own), Some(first)) = (&index.self_title, items.first()) {
            if first.number.bytes().all(|b| b.is_ascii_digit()) && first.number != *own {
                external = Some(format!("title {}", first.number));
            }
        }
    }
    if kind == Head::Usc {
        let title = &word[..word.bytes().take_while(u8::is_ascii_digit).count()];
        if index.self_title.as_deref() != Some(title) && !internal_title {
            external.get_or_insert_with(|| format!("title {title}"));
        }
    }
    let cited = Cited { kind, unit, prefix, via, external };
    for (i, item) in items.iter().enumerate() {
        // The first item carries the head.
        let start = if i == 0 { head.start() } else { item.span.start };
        for target in cited.targets(item, start) {
            out.push(resolve(doc, index, target, cited.via.clone(), cited.external.clone()));
        }
    }
    end
}

/// What precedes a head starting at `head_start`, in its clause: the document it cites
/// (`of the Social Security Act`, `Pub. L. 106–113`), and the lead-in (`pursuant to`).
fn lead_in(text: &str, head_start: usize) -> (Option<String>, Option<String>) {
    let before_start = floor_char_boundary(text, head_start.saturating_sub(LOOK_BACK));
    let before = &text[before_start..head_start];
    // Only the current clause: nothing before a `;` or a blank line.
    let cut = [before.rfind(';').map(|i| i + 1), before.rfind("\n\n").map(|i| i + 2)];
    let before = &before[cut.into_iter().flatten().max().unwrap_or(0)..];
    let mut external: Option<String> = None;
    let mut via_scope = before;
    if let Some(b) = BEFORE_EXTERNAL.is_match(before).then(|| BEFORE_EXTERNAL.captures(before)).flatten() {
        external = Some(external_name(&b));
        via_scope = &before[..b.get(0).unwrap().start()];
    } else if let Some(m) = PUBL.find_iter(before).last() {
        if !before[m.end()..].contains('.') || before[m.end()..].contains(['§', '[']) {
            external = Some(squash(m.as_str()));
        }
    }
    let via = VIA.find(via_scope).map(|v| {
        squash(
            &v.as_str().trim_end_matches(|c: char| c.is_whitespace() || c == '(' || c == '[').to_lowercase(),
        )
    });
    (external, via)
}

/// The section a relative designation (`paragraph (2) of subsection (b) of section 102`)
/// lies in, with the outer designations read past `end`: `102(b)`. A subsection alone is
/// of the section the head is in; `None` for a designation whose subsection is unknown.
fn relative_prefix(doc: &Document, word: &str, head_start: usize, end: &mut usize) -> Option<String> {
    let text = doc.text.as_str();
    let mut outer_kw = rel_kind(word);
    let mut outer = String::new();
    while let Some(r) = OF_REL.captures(ahead(text, *end)) {
        outer = format!("{}{}", &r["num"], outer);
        outer_kw = rel_kind(&r["kw"]);
        *end += r.get(0).unwrap().end();
    }
    if let Some(s) = OF_SECTION.captures(ahead(text, *end)) {
        *end += s.get(0).unwrap().end();
        Some(format!("{}{}", number::normalize(&s["num"]), outer))
    } else if outer_kw == "subsection" {
        let here = enclosing_section(doc, head_start).unwrap_or_default();
        Some(format!("{here}{outer}"))
    } else {
        None
    }
}

/// Reads the `of …` tail at `end` (`of this title`, `of title 42`, `of the Act`), moving
/// `end` past it and setting `external` as it says. Whether it names the document's own
/// title.
fn read_tail(text: &str, index: &NumberIndex, end: &mut usize, external: &mut Option<String>) -> bool {
    let tail = ahead(text, *end);
    let maybe_tail = tail.trim_start_matches([' ', ',', '\n']).starts_with(['o', '[', 'e']);
    let Some(t) = maybe_tail.then(|| OF_TAIL.captures(tail)).flatten() else { return false };
    *end += t.get(0).unwrap().end();
    if t.name("this").is_some() {
        *external = None;
    } else if let Some(n) = t.name("title") {
        if t.name("former").is_some() {
            *external = Some(format!("former title {}", n.as_str()));
        } else if index.self_title.as_deref() == Some(n.as_str()) {
            *external = None;
            return true;
        } else {
            *external = Some(format!("title {}", n.as_str()));
        }
    } else {
        *external = Some(external_name(&t));
    }
    false
}

/// What one reference cites, whatever its items: the kind of head, its unit, the section a
/// relative designation is in, the lead-in and the document cited.
struct Cited {
    kind: Head,
    unit: Option<String>,
    prefix: Option<String>,
    via: Option<String>,
    external: Option<String>,
}

impl Cited {
    /// The targets of one item starting at `start`: one, or one per number of a range, the
    /// first and last of which carry the range's ends.
    fn targets(&self, item: &Item, start: usize) -> Vec<Target> {
        let keys: Vec<String> = match &item.range {
            Some((lo, hi)) => expand(lo, hi),
            None => vec![item.number.clone()],
        };
        let last = keys.len().saturating_sub(1);
        let ranged = item.range.is_some() && keys.len() > 1;
        keys.iter()
            .enumerate()
            .map(|(k, number)| {
                let key = match self.kind {
                    Head::Relative => {
                        format!("{}{}", self.prefix.as_deref().unwrap_or(""), number::normalize(number))
                    }
                    Head::Unit => {
                        number::key(&SectionNumber { number: number.clone(), unit: self.unit.clone() })
                    }
                    _ => number::normalize(number),
                };
                let span = match k {
                    0 if ranged => Span::new(start, item.lo_end),
                    k if ranged && k == last => Span::new(item.hi_start, item.span.end),
                    _ => Span::new(start, item.span.end),
                };
                Target { key, span }
            })
            .collect()
    }
}

/// Turns a target into a [`Reference`], resolving it when it is internal.
fn resolve(
    doc: &Document,
    index: &NumberIndex,
    t: Target,
    via: Option<String>,
    external: Option<String>,
) -> Reference {
    let (resolved, exact) =
        if external.is_some() { (None, false) } else { index.lookup(&t.key, t.span.start) };
    Reference {
        raw: t.span.slice(&doc.text).to_string(),
        span: t.span,
        target: t.key,
        via,
        external,
        resolved,
        exact,
        from: doc.tree.node_at(t.span.start),
    }
}

/// One item of a list of numbers.
struct Item {
    /// The number as written, or the low end of a range.
    number: String,
    /// The item (the whole range for a range).
    span: Span,
    /// Low and high ends of a range.
    range: Option<(String, String)>,
    /// End of the low end, start of the high end (ranges only).
    lo_end: usize,
    hi_start: usize,
}

/// Reads `102`, `3, 4, and 5`, `101 through 105`, `(a) and (b)` at `at`. Lists and ranges
/// follow plural heads; a singular head takes `and`/`or` (`section 102 or 103`) and, for
/// relative designations, lists too.
fn read_list(text: &str, at: usize, grammar: &Regex, plural: bool, relative: bool) -> Option<Vec<Item>> {
    let first = grammar.find(ahead(text, at))?;
    let mut items = vec![item(text, at + first.start(), at + first.end(), plural)];
    let mut pos = at + first.end();
    loop {
        let rest = ahead(text, pos);
        let sep = if plural || relative {
            LIST_SEP.captures(rest)
        } else {
            AND_OR.captures(rest).or_else(|| {
                LIST_SEP.captures(rest).filter(|c| c.name("range").is_some() || c.name("dash").is_some())
            })
        };
        let Some(sep) = sep else { break };
        let sep_end = pos + sep.get(0).unwrap().end();
        let Some(next) = grammar.find(ahead(text, sep_end)) else { break };
        let (next_start, next_end) = (sep_end + next.start(), sep_end + next.end());
        let is_range = sep.name("range").is_some() || sep.name("dash").is_some();
        if is_range {
            // After a singular head only an unambiguous range (`Section 5.1.1 – 5.1.4`).
            let dash = sep.name("dash").map_or("", |m| m.as_str());
            let word = sep.name("range").map_or("", |m| m.as_str());
            if !plural && !matches!(dash, "–" | "—") && !matches!(word, "through" | "thru") {
                break;
            }
            let lo = items.pop().unwrap();
            if lo.range.is_some() {
                items.push(lo);
                break;
            }
            items.push(Item {
                range: Some((lo.number.clone(), text[next_start..next_end].to_string())),
                span: Span::new(lo.span.start, next_end),
                lo_end: lo.span.end,
                hi_start: next_start,
                number: lo.number,
            });
        } else {
            if sep.name("dash").is_some() {
                break;
            }
            items.push(item(text, next_start, next_end, plural));
        }
        pos = next_end;
    }
    Some(items)
}

/// One written number; after a plural head, `1-3` is a range.
fn item(text: &str, start: usize, end: usize, plural: bool) -> Item {
    let s = &text[start..end];
    if plural {
        if let Some((lo, hi)) = s.split_once('-') {
            if !lo.is_empty()
                && !hi.is_empty()
                && lo.bytes().all(|b| b.is_ascii_digit())
                && hi.bytes().all(|b| b.is_ascii_digit())
            {
                return Item {
                    number: lo.to_string(),
                    span: Span::new(start, end),
                    range: Some((lo.to_string(), hi.to_string())),
                    lo_end: start + lo.len(),
                    hi_start: start + lo.len() + 1,
                };
            }
        }
    }
    Item { number: s.to_string(), span: Span::new(start, end), range: None, lo_end: end, hi_start: start }
}

/// The numbers of a range: every integer when both ends are integers and there are at most
/// [`MAX_RANGE`], else the two ends.
fn expand(lo: &str, hi: &str) -> Vec<String> {
    if let (Ok(a), Ok(b)) = (lo.parse::<u64>(), hi.parse::<u64>()) {
        if a <= b && b - a < MAX_RANGE {
            return (a..=b).map(|n| n.to_string()).collect();
        }
    }
    vec![lo.to_string(), hi.to_string()]
}

/// Section numbers of the document's nodes, by key, in document order.
struct NumberIndex {
    by_key: HashMap<String, Vec<(NodeId, usize)>>,
    /// The US Code title the document is (`35` for `TITLE 35—PATENTS`), when it is one.
    self_title: Option<String>,
}

impl NumberIndex {
    fn new(doc: &Document) -> NumberIndex {
        let mut by_key: HashMap<String, Vec<(NodeId, usize)>> = HashMap::new();
        let mut self_title = None;
        for n in doc.tree.nodes() {
            let Some(num) = &n.number else { continue };
            by_key.entry(number::key(num)).or_default().push((n.id, n.heading.start));
            if self_title.is_none()
                && num.unit.as_deref() == Some("title")
                && n.parent == Some(NodeId::ROOT)
                && num.number.bytes().all(|b| b.is_ascii_digit())
            {
                self_title = Some(num.number.clone());
            }
        }
        NumberIndex { by_key, self_title }
    }

    /// The node for `key` as seen from `at`: the exact key, else a unit's bare number
    /// (`appendix b.1` → `b.1`), else the nearest parent key.
    fn lookup(&self, key: &str, at: usize) -> (Option<NodeId>, bool) {
        if let Some(id) = self.nearest(key, at) {
            return (Some(id), true);
        }
        let bare = ["appendix ", "annex "].iter().find_map(|u| key.strip_prefix(u));
        if let Some(id) = bare.and_then(|b| self.nearest(b, at)) {
            return (Some(id), true);
        }
        for parent in number::parents(key) {
            if let Some(id) = self.nearest(&parent, at) {
                return (Some(id), false);
            }
        }
        (None, false)
    }

    /// Of the nodes numbered `key`, the last one before `at`, else the first.
    fn nearest(&self, key: &str, at: usize) -> Option<NodeId> {
        let nodes = self.by_key.get(key)?;
        let i = nodes.partition_point(|(_, start)| *start <= at);
        Some(nodes[i.saturating_sub(1)].0)
    }
}

/// The number of the section that holds `offset` (the nearest numbered node without a unit).
fn enclosing_section(doc: &Document, offset: usize) -> Option<String> {
    let mut at = doc.tree.get(doc.tree.node_at(offset));
    while let Some(n) = at {
        if let Some(num) = n.number.as_ref().filter(|num| num.unit.is_none()) {
            return Some(number::key(num));
        }
        at = n.parent.and_then(|p| doc.tree.get(p));
    }
    None
}

/// The name of an external document from a capture of [`OF_TAIL`] or [`BEFORE_EXTERNAL`].
fn external_name(c: &regex::Captures) -> String {
    for name in ["bracket", "publ", "ch", "rs", "such", "named", "draft"] {
        if let Some(m) = c.name(name) {
            return squash(m.as_str().trim());
        }
    }
    if let Some(m) = c.name("t") {
        return format!("title {}", m.as_str());
    }
    if let Some(m) = c.name("rfc") {
        return m.as_str().replace(' ', "").to_uppercase();
    }
    squash(c.get(0).unwrap().as_str().trim())
}

/// The kind of a head, and its unit for unit heads, from its text.
fn head_kind(word: &str) -> (Head, Option<String>) {
    if word.starts_with('§') {
        return (Head::Section, None);
    }
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        return (Head::Usc, None);
    }
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.starts_with("sec") {
        (Head::Section, None)
    } else if w.starts_with("sub")
        && !w.starts_with("subch")
        && !w.starts_with("subpart")
        && !w.starts_with("subtitle")
        || w.starts_with("par") && !w.starts_with("part")
        || w.starts_with("clause")
    {
        (Head::Relative, None)
    } else {
        (Head::Unit, Some(unit_name(word)))
    }
}

fn unit_name(word: &str) -> String {
    let w = word.to_ascii_lowercase();
    match w.as_str() {
        "appendices" | "appendixes" => "appendix".into(),
        "annexes" => "annex".into(),
        _ => w.strip_suffix('s').map(str::to_string).unwrap_or(w),
    }
}

fn rel_kind(word: &str) -> &'static str {
    let w = word.to_ascii_lowercase();
    if w.starts_with("subsec") {
        "subsection"
    } else if w.starts_with("subpar") {
        "subparagraph"
    } else if w.starts_with("par") {
        "paragraph"
    } else {
        "clause"
    }
}

fn is_plural(word: &str) -> bool {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    w == "§§"
        || w.ends_with("§§")
        || (w.ends_with('s') && !matches!(w.as_str(), "annex" | "sec" | "subsec"))
        || w == "appendices"
        || w == "annexes"
}

/// The next [`LOOK_AHEAD`] bytes from `at`: every pattern read after a head is short, and a
/// bounded haystack keeps each regex call constant-time.
fn ahead(text: &str, at: usize) -> &str {
    &text[at..floor_char_boundary(text, at + LOOK_AHEAD)]
}

fn skip_space(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start_matches([' ', '\t', '\u{a0}']).len())
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[path = "references_tests.rs"]
mod tests;
