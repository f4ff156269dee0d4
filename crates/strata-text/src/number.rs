//! Section numbers: found in headings, normalized for the exact leg.
//!
//! The same section is written many ways: `Section 102(b)`, `§ 102(b)`, `102(b)`,
//! `sec. 102 (b)`. [`normalize`] maps all of them to one key, `102(b)`, so that the exact leg
//! can match a query against the numbers found in headings; [`key`] is a heading's
//! [`SectionNumber`] so normalized, and [`find`] the nodes of a tree that carry one.

use std::sync::LazyLock;

use regex::Regex;

use strata_core::{Node, SectionNumber, Tree};

/// Named units whose number is kept with the unit (`Article V`, `Chapter 10`).
pub const UNITS: &[&str] = &[
    "article",
    "chapter",
    "subchapter",
    "part",
    "subpart",
    "title",
    "subtitle",
    "division",
    "appendix",
    "annex",
    "schedule",
    "book",
    "exhibit",
    "rule",
];

/// The grammar of a section identifier after `§` or `Section`: digits with an optional letter
/// suffix, dotted or dashed parts, and parenthesized subsections (`102`, `4.2.1`, `1201A`,
/// `203(a)(1)`, `sec. 102 (b)`). Headings ([`from_heading`]) and queries (the search
/// planner) read section numbers with this one pattern, so that any number a heading can
/// carry can also be asked for.
pub const SECTION_ID: &str = r"\d+[A-Za-z]{0,3}(?:[.\-–]\d+[A-Za-z]?)*(?:\s?\([A-Za-z0-9]{1,5}\))*";

static SECTION_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:§§?|sec(?:tion)?s?\.?)\s*").unwrap());

static HEADING_SECTION: LazyLock<Regex> = LazyLock::new(|| {
    // `§102. Title`, `SEC. 101. Title`, `Section 203(a) Title`
    Regex::new(&format!(r"(?i)^(?:§§?\s*|sec(?:tion)?\.?\s+)({SECTION_ID})\.?(?:\s|$|[:—–-])")).unwrap()
});

static HEADING_DOTTED: LazyLock<Regex> = LazyLock::new(|| {
    // `4.2.1.  Title`, `20.1 Accept`, `A.1.  Title`, `1 Introduction`
    Regex::new(r"^((?:\d{1,3}|[A-Z])(?:\.\d{1,3})*)\.?(?:\s+|$)").unwrap()
});

static HEADING_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    let units = UNITS.join("|");
    Regex::new(&format!(r"(?i)^({units})\s+([IVXLCDM]+|\d+[A-Za-z]?(?:[.\-]\d+)*|[A-Z](?:\.\d+)*)\b\.?"))
        .unwrap()
});

/// Finds the section number at the start of a heading title.
///
/// ```
/// use strata_text::number::from_heading;
/// assert_eq!(from_heading("§102. Conditions for patentability").unwrap().number, "102");
/// assert_eq!(from_heading("4.2.1.  Title").unwrap().number, "4.2.1");
/// let article = from_heading("ARTICLE V").unwrap();
/// assert_eq!((article.number.as_str(), article.unit.as_deref()), ("V", Some("article")));
/// assert!(from_heading("Introduction").is_none());
/// ```
pub fn from_heading(title: &str) -> Option<SectionNumber> {
    let title = title.trim();
    if let Some(c) = HEADING_SECTION.captures(title) {
        return Some(SectionNumber { number: squash(&c[1]), unit: None });
    }
    if let Some(c) = HEADING_UNIT.captures(title) {
        return Some(SectionNumber { number: c[2].to_string(), unit: Some(c[1].to_ascii_lowercase()) });
    }
    if let Some(c) = HEADING_DOTTED.captures(title) {
        let number = &c[1];
        // A lone letter is a number only in dotted form (`A.1`) or followed by a title
        // after a dot (`A.  Title`): "A Guide" is not section A.
        let lone_letter = number.len() == 1 && number.chars().all(|c| c.is_ascii_alphabetic());
        if lone_letter && !title[1..].starts_with('.') {
            return None;
        }
        // "2019 Annual Report": a plain number of 4+ digits is a year, not a section.
        if number.len() >= 4 && !number.contains('.') {
            return None;
        }
        return Some(SectionNumber { number: number.to_string(), unit: None });
    }
    None
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect::<String>().replace('–', "-")
}

/// Normalizes a section identifier: lowercase, no `§`/`section` prefix, no spaces, no
/// trailing dot.
///
/// ```
/// use strata_text::number::normalize;
/// for s in ["Section 102(b)", "§ 102(b)", "102(b)", "sec. 102 (b)", "102(B)."] {
///     assert_eq!(normalize(s), "102(b)");
/// }
/// assert_eq!(normalize("4.2."), "4.2");
/// ```
pub fn normalize(s: &str) -> String {
    let s = s.trim();
    let s = SECTION_PREFIX.replace(s, "");
    let mut out: String = s.chars().filter(|c| !c.is_whitespace()).flat_map(|c| c.to_lowercase()).collect();
    out = out.replace('–', "-");
    while out.ends_with('.') || out.ends_with(',') {
        out.pop();
    }
    out
}

/// The normalized key the exact leg indexes for `number`: its [`normalize`]d identifier,
/// after its unit when it has one (`article v`, `102(b)`).
///
/// ```
/// use strata_core::SectionNumber;
/// use strata_text::number::key;
/// assert_eq!(key(&SectionNumber { number: "102(B).".into(), unit: None }), "102(b)");
/// assert_eq!(key(&SectionNumber { number: "V".into(), unit: Some("article".into()) }), "article v");
/// ```
pub fn key(number: &SectionNumber) -> String {
    match &number.unit {
        Some(unit) => format!("{unit} {}", normalize(&number.number)),
        None => normalize(&number.number),
    }
}

/// The nodes of `tree` whose number's [`key`] equals `key`.
pub fn find<'t>(tree: &'t Tree, key: &str) -> impl Iterator<Item = &'t Node> + 't {
    let wanted = key.to_string();
    tree.nodes().iter().filter(move |n| n.number.as_ref().is_some_and(|num| self::key(num) == wanted))
}

/// The parent keys of a normalized key, nearest first: `203(a)(1)` gives `203(a)`, `203`;
/// `4.2.1` gives `4.2`, `4`.
pub fn parents(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut k = key.to_string();
    loop {
        if k.ends_with(')') {
            if let Some(open) = k.rfind('(') {
                k.truncate(open);
                out.push(k.clone());
                continue;
            }
        }
        if let Some(dot) = k.rfind('.') {
            k.truncate(dot);
            if k.is_empty() {
                break;
            }
            out.push(k.clone());
            continue;
        }
        break;
    }
    out
}
