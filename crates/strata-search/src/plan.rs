//! The plan stage: what a query asks for before anything is retrieved.
//!
//! A query is read for section identifiers (`Section 102(b)`, `§ 4.2`, `Article V`, a bare
//! `4.2.1`), quoted phrases, and defined terms of the indexed documents. Identifiers make the
//! exact leg decisive: their hits are ranked first.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;
use strata_core::normalize_term;
use strata_text::number;

/// A section identifier found in a query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Identifier {
    /// As written in the query.
    pub raw: String,
    /// Normalized key (`102(b)`, `article v`).
    pub key: String,
}

/// What a query asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Plan {
    /// The query as given.
    pub query: String,
    /// Section identifiers.
    pub identifiers: Vec<Identifier>,
    /// Quoted phrases.
    pub phrases: Vec<String>,
    /// Quoted phrases that are a document's own name (its title): they name the document
    /// for the documents stage and are not searched as phrases ([`Plan::set_titles`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub titles: Vec<String>,
    /// Normalized defined terms that occur in the query.
    pub terms: Vec<String>,
}

static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?:§§?|\bsec(?:tion)?s?\b\.?)\s*({})", number::SECTION_ID)).unwrap()
});

static SECTION_LETTER: LazyLock<Regex> = LazyLock::new(|| {
    // `Section A.1`, `§ C.4.2`; a single capital letter (`Section C`) only at the end of the
    // query or before punctuation, so that "section a of" is not read as a number.
    Regex::new(r"(?:§§?|\b(?i:sec(?:tion)?s?)\b\.?)\s*((?i:[a-z](?:\.\d+)+)|[A-Z](?:$|[.,;:)]))").unwrap()
});

static UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b({})\s+((?-i:[IVXLCDM]+)|[ivxlcdm]{{1,4}}|\d+[a-z]?(?:\.\d+)*|[a-z](?:\.\d+)*)\b",
        number::UNITS.join("|")
    ))
    .unwrap()
});

static BARE: LazyLock<Regex> = LazyLock::new(|| {
    // A query that is only a number like `4.2.1`, `A.3` or `102(b)`.
    Regex::new(r"(?i)^\s*((?:\d+|[a-z])(?:\.\d+)+\.?|\d+[a-z]?(?:\s?\([a-z0-9]{1,5}\))+)\s*$").unwrap()
});

static USC: LazyLock<Regex> = LazyLock::new(|| {
    // `35 U.S.C. 102(b)`, `35 USC § 102`
    Regex::new(&format!(r"(?i)\b\d+\s+U\.?\s?S\.?\s?C\.?\s*(?:§+\s*)?({})", number::SECTION_ID)).unwrap()
});

static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"["“]([^"”]{2,1000})["”]"#).unwrap());

/// True for a well-formed Roman numeral (case-insensitive), e.g. `iv`, `XLII`; not `mid`.
fn is_roman(s: &str) -> bool {
    static ROMAN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$").unwrap()
    });
    !s.is_empty() && ROMAN.is_match(s)
}

impl Plan {
    /// Reads a query. `defined_terms` are the normalized terms of the index.
    pub fn read(query: &str, defined_terms: &[String]) -> Plan {
        let mut plan = Plan { query: query.to_string(), ..Plan::default() };
        let mut push = |raw: &str, key: String| {
            if !key.is_empty() && !plan.identifiers.iter().any(|i| i.key == key) {
                plan.identifiers.push(Identifier { raw: raw.trim().to_string(), key });
            }
        };
        for c in SECTION.captures_iter(query) {
            push(&c[0], number::normalize(&c[1]));
        }
        for c in USC.captures_iter(query) {
            push(&c[0], number::normalize(&c[1]));
        }
        for c in SECTION_LETTER.captures_iter(query) {
            let number = c[1].trim_end_matches(['.', ',', ';', ':', ')']);
            push(&c[0], number::normalize(number));
        }
        for c in UNIT.captures_iter(query) {
            let unit = c[1].to_ascii_lowercase();
            // Lowercase letters count as a numeral only when they form one ("article iv"),
            // so that "part civil procedure" or "part mid" names no part.
            let n = &c[2];
            if n.len() > 1 && n.chars().all(|ch| "ivxlcdm".contains(ch)) && !is_roman(n) {
                continue;
            }
            // "title 35" in "35 U.S.C." style text is a unit too; keep it.
            push(&c[0], format!("{unit} {}", number::normalize(&c[2])));
        }
        if let Some(c) = BARE.captures(query) {
            push(&c[0], number::normalize(&c[1]));
        }
        for c in QUOTED.captures_iter(query) {
            plan.phrases.push(c[1].trim().to_string());
        }
        plan.terms = defined_terms_asked(query, defined_terms);
        plan
    }

    /// Moves the quoted phrases that `is_title` says are a document's name from `phrases`
    /// to `titles`.
    pub fn set_titles(&mut self, is_title: impl Fn(&str) -> bool) {
        let (titles, phrases) = std::mem::take(&mut self.phrases).into_iter().partition(|p| is_title(p));
        (self.titles, self.phrases) = (titles, phrases);
    }

    /// True when the query names a section: exact hits then rank first.
    pub fn is_identifier_query(&self) -> bool {
        !self.identifiers.is_empty()
    }
}

static DEFINITION_INTENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:define|definition of|meaning of|what\s+(?:is|are|does)|what's|who\s+is)\s+(?:an?\s+|the\s+)?(.+?)(?:\s+mean)?\s*\??\s*$",
    )
    .unwrap()
});

/// The defined terms a query asks about. A single-word term counts only when the query is
/// that term or asks for its definition ("define X", "what is X", "definition of X"): common
/// words that one document defines ("request", "client") would otherwise pull its glossary
/// into every query. A term of two or more words counts wherever it occurs.
fn defined_terms_asked(query: &str, defined_terms: &[String]) -> Vec<String> {
    let clean = |s: &str| normalize_term(s.trim().trim_matches(|c: char| !c.is_alphanumeric()));
    let whole = clean(query);
    let asked = DEFINITION_INTENT.captures(query).map(|c| clean(&c[1]));
    let padded = format!(" {whole} ");
    let mut terms = Vec::new();
    for term in defined_terms {
        let multi_word = term.contains(' ');
        let hit = *term == whole
            || asked.as_deref() == Some(term.as_str())
            || (multi_word && contains_words(&padded, term));
        if hit && term.len() > 1 {
            terms.push(term.clone());
        }
    }
    terms
}

/// True when `needle` occurs in `hay` (padded with spaces) on word boundaries.
fn contains_words(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let start = from + i;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = hay[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before && after {
            return true;
        }
        from = strata_core::ceil_char_boundary(hay, start + needle.len().max(1));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(q: &str) -> Vec<String> {
        Plan::read(q, &[]).identifiers.into_iter().map(|i| i.key).collect()
    }

    #[test]
    fn section_forms_normalize_alike() {
        for q in ["section 102(b)", "Section 102(b)", "§ 102(b)", "102(b)", "sec. 102 (b)", "§102(b)"] {
            assert_eq!(keys(q), ["102(b)"], "{q}");
        }
    }

    #[test]
    fn units_and_dotted_numbers() {
        assert_eq!(keys("35 U.S.C. 102(b)"), ["102(b)"]);
        assert_eq!(keys("35 USC § 271"), ["271"]);
        assert_eq!(keys("Article V"), ["article v"]);
        assert_eq!(keys("article iv"), ["article iv"]);
        assert!(keys("part civil procedure").is_empty());
        assert!(keys("part mid-term review").is_empty());
        assert_eq!(keys("4.2.1"), ["4.2.1"]);
        assert_eq!(keys("see section 4.2 of the spec"), ["4.2"]);
        assert_eq!(keys("section C.4.2"), ["c.4.2"]);
        assert_eq!(keys("Section C"), ["c"]);
        assert!(keys("section a of the code").is_empty());
        assert!(keys("how do retries work").is_empty());
    }

    #[test]
    fn phrases_and_terms() {
        let terms = ["invention".to_string(), "patent".to_string(), "effective filing date".to_string()];
        let p = Plan::read("when is the \"effective filing date\" of an invention", &terms);
        assert_eq!(p.phrases, ["effective filing date"]);
        assert_eq!(p.terms, ["effective filing date"], "single words inside a longer query are not terms");
        assert_eq!(Plan::read("What is an invention?", &terms).terms, ["invention"]);
        assert_eq!(Plan::read("definition of patent", &terms).terms, ["patent"]);
        assert_eq!(Plan::read("Invention", &terms).terms, ["invention"]);
    }
}
