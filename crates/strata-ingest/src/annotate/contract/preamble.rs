//! A contract's preamble: "This Endorsement Agreement is entered into on January 13, 2005
//! between professional golfer, TOM WATSON (hereinafter referred to as "CONSULTANT") and
//! ADAMS GOLF, LTD. (hereinafter referred to as "ADAMS GOLF")." — its parties, each with
//! the short name it defines, its date and the agreement's kind.
//!
//! The preamble is read from the first `by and between`, `between` or `among` of the
//! document's head to its recitals (`WHEREAS`, `RECITALS`, `WITNESSETH`, `BACKGROUND`, `NOW,
//! THEREFORE`), at most [`REGION`] bytes. It is cut into one piece per party where one
//! party's description ends and the next begins (`…("Accuray"), and SIEMENS …`, `…; and
//! …`, `… and …`); a party is the run of capitalised words that opens its piece, and its
//! short name the first quoted term in parentheses after it.

use std::sync::LazyLock;

use regex::Regex;

use crate::annotate::squash;

/// Bytes of the document searched for the preamble.
pub const HEAD: usize = 8_000;
/// Bytes of the preamble read after its `between`.
pub const REGION: usize = 1_500;
/// Parties kept at most.
pub const MAX_PARTIES: usize = 4;
/// A party's name opens its piece: it starts within this many bytes of it.
const NAME_START: usize = 40;

const MONTHS: &str = "January|February|March|April|May|June|July|August|September|October|November|December";

fn re(pattern: &str) -> Regex {
    Regex::new(&pattern.replace("{MONTHS}", MONTHS)).expect("preamble patterns are valid")
}

static BETWEEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:by\s+and\s+between|between|by\s+and\s+among|among)\s"));
static RECITALS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:WHEREAS|Whereas|RECITALS|Recitals|WITNESSETH|Witnesseth|BACKGROUND|Background|NOW,?\s+THEREFORE|Now,?\s+[Tt]herefore)\b",
    )
});
/// Where one party's piece ends and the next one's begins.
static NEXT_PARTY: LazyLock<Regex> =
    LazyLock::new(|| re(r"\)\s*[,;]?\s*(?:and|&)\s+|;\s*(?:and\s+)?|,?\s+(?:and|AND|And)\s+"));
/// A name: capitalised words (`ADAMS GOLF, LTD.`, `Anixa Biosciences, Inc.`, `3M`), with the
/// small words names hold (`Bank of New York`).
static NAME: LazyLock<Regex> = LazyLock::new(|| {
    let word = r"(?:[A-Z][A-Za-z0-9&'’.\-]*|&|[0-9][A-Za-z0-9.\-]*[A-Za-z][A-Za-z0-9.\-]*)";
    re(&format!(r"{word}(?:,?\s+(?:{word}|(?:of|de|la|du|van|von|der|the|for)\s+{word}))*"))
});
/// A defined short name: `("Accuray")`, `(hereinafter referred to as "CONSULTANT")`.
static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re(r#"\(\s*[^()"“”]{0,60}?["“]([^"”]{1,40})["”]"#));
/// Runs that open a piece without naming a party: a reference to the agreement, a date,
/// a role ("the Company", "Licensee").
static NOT_A_PARTY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:this|such|said|each|all|any|agreement|contract|amendment|effective date|party|parties|exhibit|section|article|schedule|whereas|now|date|dated|confidential|redacted|[ivx]+|[a-z])\b|^(?:{MONTHS})\b|^(?:the\s+)?(?:company|corporation|party|provider|client|customer|consultant|licensor|licensee|distributor|supplier|buyer|seller|purchaser|parties)$",
    )
});
/// A corporate suffix ending a name.
static CORPORATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:inc|incorporated|corp|corporation|company|co|llc|l\.l\.c|ltd|limited|plc|gmbh|ag|s\.?a|n\.?v|b\.?v|l\.?p|llp|pte|trust|fund|bank|s\.p\.a|se|kk)\.?$",
    )
});
static DATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:(?:{MONTHS})\s+\d{1,2}(?:st|nd|rd|th)?\s*,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:{MONTHS}),?\s+\d{4})\b",
    )
});
/// "This Collaboration Agreement", "THIS AMENDMENT NO. 2".
static THIS_KIND: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b(?:This|THIS)\s+((?:[A-Z][A-Za-z\-]*\s+){0,6}?(?:Agreement|AGREEMENT|Contract|CONTRACT))\b")
});
/// A title line: "ENDORSEMENT AGREEMENT", "Master Services Agreement".
static TITLE_KIND: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:[A-Z][A-Za-z\-,&/]*\s+){0,8}(?:AGREEMENT|Agreement|CONTRACT|Contract)$"));

/// One party to a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    /// Its name as printed ("ADAMS GOLF, LTD.").
    pub name: String,
    /// The short name it is defined as ("ADAMS GOLF"), if any.
    pub short: Option<String>,
}

/// What a contract's preamble says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preamble {
    /// Its parties, in order.
    pub parties: Vec<Party>,
    /// The first date it gives ("January 13, 2005").
    pub date: Option<String>,
    /// The agreement's kind ("Endorsement Agreement").
    pub kind: Option<String>,
}

/// The preamble of `text`, from its first [`HEAD`] bytes.
pub fn read(text: &str) -> Preamble {
    let head = &text[..strata_core::floor_char_boundary(text, HEAD.min(text.len()))];
    let mut preamble = Preamble { kind: kind(head), ..Preamble::default() };
    let Some(between) = BETWEEN.find(head) else { return preamble };
    let end = RECITALS.find_at(head, between.end()).map_or(head.len(), |m| m.start());
    let end = strata_core::floor_char_boundary(head, end.min(between.end() + REGION));
    let region = &head[between.end()..end];
    preamble.parties = parties(region);
    let from = strata_core::floor_char_boundary(head, between.start().saturating_sub(400));
    preamble.date = DATE.find(&head[from..end]).map(|m| squash(m.as_str()));
    preamble
}

/// The parties of a preamble's region, one per piece.
fn parties(region: &str) -> Vec<Party> {
    let mut out: Vec<Party> = Vec::new();
    for piece in NEXT_PARTY.split(region) {
        let opening = &piece[..strata_core::floor_char_boundary(piece, 120.min(piece.len()))];
        let Some(name) = NAME.find(opening).filter(|m| m.start() <= NAME_START) else { continue };
        let name = squash(name.as_str()).trim_matches(|c: char| " ,;:".contains(c)).to_string();
        let letters = name.chars().filter(|c| c.is_alphanumeric()).count();
        let known = out.iter().any(|p| p.name == name || p.short.as_deref() == Some(name.as_str()));
        if letters < 2 || NOT_A_PARTY.is_match(&name) || known {
            continue;
        }
        let short = SHORT_NAME.captures(piece).map(|c| squash(&c[1])).filter(|s| !s.is_empty());
        // A place or a role in a party's description ("Berlin and Munich") reads like a
        // name: past the first two parties, or of one word, a party defines a short name or
        // carries a corporate suffix.
        let firm = short.is_some() || CORPORATE.is_match(&name);
        if !firm && (out.len() >= 2 || !name.contains(' ')) {
            continue;
        }
        out.push(Party { name, short });
        if out.len() == MAX_PARTIES {
            break;
        }
    }
    out
}

/// The agreement's kind: "This … Agreement" in the head, else a title line that names one.
fn kind(head: &str) -> Option<String> {
    let this = THIS_KIND.captures(head).map(|c| squash(&c[1]));
    let this = this.filter(|k| k.split_whitespace().count() > 1);
    this.or_else(|| {
        head.lines().take(60).map(str::trim).find(|l| l.len() <= 100 && TITLE_KIND.is_match(l)).map(squash)
    })
}
