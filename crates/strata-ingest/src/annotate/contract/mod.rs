//! The `contract` annotator: agreements, by the conventions of their drafting.
//!
//! Its detector reads the head and the end of a document for a contract's conventions
//! ([`Convention`]): a preamble that names its parties ("This Agreement is entered into …
//! by and between …"), defined terms (`(the "Agreement")`), recitals (`WHEREAS`,
//! `WITNESSETH`), a signature block (`IN WITNESS WHEREOF`), an agreement clause ("the
//! parties agree as follows", "Party A:"), a title line that names an agreement. Each
//! convention is evidence on its own; their confidences combine as independent evidence
//! (`1 - Π(1 - c)`), which counts from [`THRESHOLD`].
//!
//! It fills the parties (names, which join the document's profile as names, so that a
//! question that names the parties names the contract), the short names they are defined
//! as, the effective date and the agreement's kind ([`preamble`]); and a title made of them
//! for a contract whose own title names nothing ("EXHIBIT 10.17", "REDACTED COPY").

use std::sync::LazyLock;

use regex::Regex;
use serde_json::json;

use super::{Annotator, Detection, Fields, View};

pub mod preamble;

/// The confidence from which the detector's finding counts: a preamble, a signature block
/// or an agreement clause each make a contract; a title line, defined terms or recitals
/// alone do not.
pub const THRESHOLD: f32 = 0.6;

/// The metadata keys `contract` fills, and `title`.
pub const FIELDS: &[&str] = &["parties", "short_names", "effective_date", "agreement", "title"];

/// The lines of an exhibit's top that a reader may take for its title: "EXHIBIT 10.13",
/// "REDACTED COPY", "Execution Copy", a filing's source line, a page number.
static EXHIBIT_BOILERPLATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:exhibit\s+[\w.()\-]+|ex-[\w.\-]+|redacted\s+copy|confidential(?:\s+treatment\s+requested)?|execution\s+(?:copy|version)|source:.*|\[?\*+\]?|\d{1,3}|table\s+of\s+contents|final|draft)$")
        .expect("a valid pattern")
});

/// Bytes of the document's end searched for a signature block.
const TAIL: usize = 60_000;

/// A contract's drafting convention: the `contract` annotator's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    /// An agreement made or entered into between or among parties, in the head.
    Preamble,
    /// `(the "Agreement")`, `(hereinafter referred to as "…")` in the head.
    DefinedTerms,
    /// `WHEREAS`, `RECITALS`, `WITNESSETH`, `NOW, THEREFORE` in the head.
    Recitals,
    /// `IN WITNESS WHEREOF`.
    SignatureBlock,
    /// The parties' agreement ("the parties agree as follows") or their roles ("Party A:").
    AgreementClause,
    /// A line of the head's top that names an agreement ("ENDORSEMENT AGREEMENT").
    TitleLine,
}

impl Convention {
    const ALL: [Convention; 6] = [
        Convention::Preamble,
        Convention::DefinedTerms,
        Convention::Recitals,
        Convention::SignatureBlock,
        Convention::AgreementClause,
        Convention::TitleLine,
    ];

    /// How surely the convention alone marks a contract, 0 to 1.
    pub fn confidence(self) -> f32 {
        match self {
            Convention::Preamble => 0.7,
            Convention::SignatureBlock | Convention::AgreementClause => 0.6,
            Convention::Recitals => 0.5,
            Convention::DefinedTerms | Convention::TitleLine => 0.4,
        }
    }

    /// The convention in words, for `strata docs`.
    pub fn describe(self) -> &'static str {
        match self {
            Convention::Preamble => "a preamble between parties",
            Convention::DefinedTerms => "defined terms",
            Convention::Recitals => "recitals",
            Convention::SignatureBlock => "a signature block",
            Convention::AgreementClause => "an agreement clause",
            Convention::TitleLine => "an agreement's title",
        }
    }

    fn pattern(self) -> &'static Regex {
        static PATTERNS: LazyLock<[Regex; 6]> = LazyLock::new(|| {
            [
                r"(?is)\b(?:agreement|contract|amendment)\b.{0,300}?\b(?:made|entered\s+into|executed|dated|effective)\b.{0,300}?\b(?:by\s+and\s+between|between|by\s+and\s+among|among)\s",
                r#"(?i)\((?:the\s+|this\s+)?["“](?:agreement|contract|amendment)["”]\)|\(hereinafter[^)]{0,40}["“]"#,
                r"\b(?:WHEREAS|RECITALS|WITNESSETH|NOW,?\s+THEREFORE)\b|\bNow,?\s+[Tt]herefore\b|(?m)^\s*(?:Whereas|Recitals)\b",
                r"(?i)\bin\s+witness\s+whereof\b",
                r"(?i)\bagree(?:s|d)?\s+as\s+follows\b|\bparty\s+[ab]\s*:",
                r"(?m)^\s*(?:[A-Z][A-Za-z\-,&/]*\s+){0,8}(?:AGREEMENT|Agreement|CONTRACT|Contract)\s*$",
            ]
            .map(|p| Regex::new(p).expect("contract patterns are valid"))
        });
        &PATTERNS[Convention::ALL.iter().position(|c| *c == self).unwrap_or(0)]
    }

    /// The conventions `text` follows.
    pub fn found(text: &str) -> Vec<Convention> {
        let head = &text[..strata_core::floor_char_boundary(text, preamble::HEAD.min(text.len()))];
        let tail = &text[strata_core::ceil_char_boundary(text, text.len().saturating_sub(TAIL))..];
        Convention::ALL
            .into_iter()
            .filter(|c| c.pattern().is_match(if *c == Convention::SignatureBlock { tail } else { head }))
            .collect()
    }
}

/// The `contract` annotator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Contract;

impl Annotator for Contract {
    fn name(&self) -> &'static str {
        "contract"
    }

    fn threshold(&self) -> f32 {
        THRESHOLD
    }

    fn fields(&self) -> &'static [&'static str] {
        FIELDS
    }

    fn detect(&self, view: View) -> Detection {
        let found = Convention::found(view.text);
        Detection::of_evidence(found.into_iter().map(|c| (c.confidence(), c.describe())))
    }

    fn annotate(&self, view: View) -> Fields {
        let preamble = preamble::read(view.text);
        let mut metadata = Vec::new();
        if !preamble.parties.is_empty() {
            metadata.push(("parties", json!(preamble.parties.iter().map(|p| &p.name).collect::<Vec<_>>())));
        }
        let shorts: Vec<&String> = preamble.parties.iter().filter_map(|p| p.short.as_ref()).collect();
        if !shorts.is_empty() {
            metadata.push(("short_names", json!(shorts)));
        }
        let title = title(&preamble);
        metadata.extend(preamble.date.map(|d| ("effective_date", json!(d))));
        metadata.extend(preamble.kind.map(|k| ("agreement", json!(k))));
        Fields { metadata, title }
    }

    fn title_names_nothing(&self, title: &str) -> bool {
        EXHIBIT_BOILERPLATE.is_match(&super::squash(title))
    }
}

/// A title made of the preamble, when it names two parties or more: "ENDORSEMENT
/// AGREEMENT between TOM WATSON and ADAMS GOLF, LTD.".
fn title(preamble: &preamble::Preamble) -> Option<String> {
    let names: Vec<&str> = preamble.parties.iter().map(|p| p.name.as_str()).collect();
    let (last, rest) = names.split_last()?;
    if rest.is_empty() {
        return None;
    }
    let kind = preamble.kind.as_deref().unwrap_or("Agreement");
    Some(format!("{kind} between {} and {last}", rest.join(", ")))
}

#[cfg(test)]
mod tests;
