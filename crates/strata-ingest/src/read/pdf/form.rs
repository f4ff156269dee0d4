//! The headings of SEC forms (10-K, 10-Q, 8-K) and of financial statements: `PART II`,
//! `Item 7A.`, statement titles (`Consolidated Statements of Cash Flows`), the notes'
//! heading (`Notes to Consolidated Financial Statements`) and each note (`Note 12 — Debt`,
//! `NOTE 12. DEBT`).
//!
//! A title marked `(continued)` repeats a heading on the statement's next page and is none.
//! Each kind has its level, whatever the fonts say: parts 1, items 2, statements and the
//! notes' heading 3, notes 4. A line that starts like one of them but goes on as a sentence
//! (`Item 7 of this report discusses …`, `Note 12 provides …`) is not one.

use std::sync::OnceLock;

use regex::Regex;

/// Longest form heading line, in characters.
const MAX_CHARS: usize = 160;

/// A kind of form heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `PART I`, `Part II. Other Information`.
    Part,
    /// `Item 1A. Risk Factors`, `ITEM 7`.
    Item,
    /// A financial statement's title.
    Statement,
    /// `Notes to Consolidated Financial Statements`.
    Notes,
    /// `Note 12 — Debt`.
    Note,
}

impl Form {
    /// The heading level of the kind.
    pub fn level(self) -> u32 {
        match self {
            Form::Part => 1,
            Form::Item => 2,
            Form::Statement | Form::Notes => 3,
            Form::Note => 4,
        }
    }
}

fn part() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?i:part)\s+(?P<n>IV|I{1,3})\b\.?\s*(?:[-–—:]\s*)?(?P<rest>.*)$").unwrap()
    })
}

fn item() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?i:item)\s+(?P<n>[0-9]{1,2}[A-Da-d]?|X)(?:\.|:|\s*[-–—])?(?:\s+(?P<rest>.*))?$")
            .unwrap()
    })
}

fn note() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?i:note)\s+(?P<n>[0-9]{1,2})(?:\.|:|\s*[-–—])?(?:\s+(?P<rest>.*))?$").unwrap()
    })
}

fn statement() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)^(?:[\w.,&'\ ]+\ and\ subsidiaries\s+)?
            (?:(?:consolidated|condensed|combined)\s+)*
            (?:balance\s+sheets?
              |statements?\s+of\s+(?:consolidated\s+)?
                (?:income|operations|earnings|cash\s+flows?|financial\s+position
                  |comprehensive\s+(?:income|loss|earnings)(?:\s+\(loss\))?
                  |(?:changes\s+in\s+)?(?:stockholders|shareholders|shareowners|share\s*owners)[’']?\s+equity
                  |(?:changes\s+in\s+)?equity)
                (?:\s+and\s+comprehensive\s+(?:income|loss))?)
            \s*(?:\((?:unaudited|in\ [^)]*)\))?\s*$",
        )
        .unwrap()
    })
}

fn notes() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)^(?:condensed\s+)?notes\s+to\s+(?:the\s+)?(?:(?:consolidated|condensed|combined)\s+)*financial\s+statements\s*(?:\(unaudited\))?$",
        )
        .unwrap()
    })
}

/// The kind of form heading `line` is, if any.
pub(crate) fn classify(line: &str) -> Option<Form> {
    let line = line.trim();
    if line.chars().count() > MAX_CHARS || line.is_empty() {
        return None;
    }
    if let Some(c) = part().captures(line) {
        return titled(c.name("rest").map_or("", |m| m.as_str())).then_some(Form::Part);
    }
    if let Some(c) = item().captures(line) {
        return titled(c.name("rest").map_or("", |m| m.as_str())).then_some(Form::Item);
    }
    if let Some(c) = note().captures(line) {
        return titled(c.name("rest").map_or("", |m| m.as_str())).then_some(Form::Note);
    }
    if notes().is_match(line) {
        return Some(Form::Notes);
    }
    statement().is_match(line).then_some(Form::Statement)
}

/// Whether what follows a part, item or note number is a title (or nothing), not the rest
/// of a sentence: it starts with a capital, a digit or a quote, and does not run on.
fn titled(rest: &str) -> bool {
    let rest = rest.trim();
    let Some(first) = rest.chars().find(|c| !matches!(c, '"' | '“' | '(' | '‘' | '\'')) else {
        return true;
    };
    let words = rest.split_whitespace().count();
    (first.is_uppercase() || first.is_ascii_digit()) && words <= 24 && !rest.contains(". ")
}

/// What identifies a part, item or note whatever its title and case: `part ii`, `item 7a`,
/// `note 12`; `None` for other lines.
pub(crate) fn key(line: &str) -> Option<String> {
    let line = line.trim();
    let (kind, c) = if let Some(c) = part().captures(line) {
        ("part", c)
    } else if let Some(c) = item().captures(line) {
        ("item", c)
    } else {
        ("note", note().captures(line)?)
    };
    Some(format!("{kind} {}", c["n"].to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_items_and_notes_are_headings_and_sentences_are_not() {
        assert_eq!(classify("PART II"), Some(Form::Part));
        assert_eq!(classify("Part I. Financial Information"), Some(Form::Part));
        assert_eq!(classify("Item 1A. Risk Factors"), Some(Form::Item));
        assert_eq!(classify("ITEM 7. MANAGEMENT’S DISCUSSION AND ANALYSIS"), Some(Form::Item));
        assert_eq!(classify("Item 7"), Some(Form::Item));
        assert_eq!(classify("Item X. Executive Officers of the Company"), Some(Form::Item));
        assert_eq!(classify("Note 12 — Debt"), Some(Form::Note));
        assert_eq!(classify("NOTE 12. DEBT"), Some(Form::Note));
        assert_eq!(classify("Note 3: Revenue Recognition"), Some(Form::Note));
        assert_eq!(classify("Item 7 of this report discusses our results."), None);
        assert_eq!(classify("Note 12 provides more detail on our debt."), None);
        assert_eq!(classify("Part of our growth came from acquisitions"), None);
        assert_eq!(classify("Items 1 and 2. Business and Properties"), None);
    }

    #[test]
    fn statement_titles_are_headings() {
        for t in [
            "Consolidated Statements of Cash Flows",
            "CONSOLIDATED BALANCE SHEETS",
            "Condensed Consolidated Statements of Operations (Unaudited)",
            "Consolidated Statement of Comprehensive Income",
            "Consolidated Statements of Shareholders’ Equity",
            "Consolidated Statements of Changes in Equity",
            "PepsiCo, Inc. and Subsidiaries Consolidated Statement of Cash Flows",
        ] {
            assert_eq!(classify(t), Some(Form::Statement), "{t}");
        }
        assert_eq!(classify("Notes to Consolidated Financial Statements"), Some(Form::Notes));
        assert_eq!(classify("See the Consolidated Statements of Cash Flows for details"), None);
        assert_eq!(classify("Notes to Consolidated Financial Statements (continued)"), None);
        assert_eq!(classify("Consolidated Statement of Cash Flows (continued)"), None);
    }

    #[test]
    fn keys_ignore_title_and_case() {
        assert_eq!(key("ITEM 7A. QUANTITATIVE").as_deref(), Some("item 7a"));
        assert_eq!(key("Item 7A Quantitative and Qualitative").as_deref(), Some("item 7a"));
        assert_eq!(key("Part II").as_deref(), Some("part ii"));
        assert_eq!(key("Consolidated Balance Sheets"), None);
    }
}
