//! The `sec` annotator's reading: what a filing *is*, read from its first pages. Issuer, ticker,
//! form, period and fiscal years, by the cover-page conventions of SEC filings (the line
//! above "(Exact name of registrant as specified in its charter)", "FORM 10-K", "For the
//! fiscal year ended …", "Trading Symbol(s)") and of earnings releases ("Name (NYSE: TICK)",
//! "… reports fourth-quarter results"). Documents without those conventions get an empty
//! [`Identity`] and keep their title.
//!
//! A question names the company and the period ("What is the FY2018 capital expenditure of
//! 3M?"), and the text of a filing's pages rarely does: the identity is what lets search tell
//! filings apart. It goes into the document's metadata and, through
//! [`strata_core::Document::search_title`], into the title every chunk is searched by. It
//! also names documents whose own title is an accession number, `Document` or nothing at
//! all (23 of the 33 financebench-dev PDFs). The rules and their measurement on those
//! filings are in `bench/research/doc-leg/`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};
use strata_core::Page;

/// How much of the document is read: its first pages, or this many bytes without pages.
const HEAD_PAGES: usize = 3;
const HEAD_BYTES: usize = 24_000;
/// Bytes read at most, however long the first pages are.
const MAX_BYTES: usize = 8 * HEAD_BYTES;

/// What a document says it is. Every field is empty when its convention was not found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The issuer's name as printed ("ADVANCED MICRO DEVICES, INC.").
    pub issuer: String,
    /// Its ticker symbol.
    pub ticker: String,
    /// `10-K`, `10-Q`, `8-K`, `20-F`, `6-K`, `40-F`, or `earnings release`.
    pub form: String,
    /// The period, as printed ("fiscal year ended December 26, 2015", "report dated May 20, 2022").
    pub period: String,
    /// The fiscal years it covers: the end date's year; an end in the first week of January
    /// counts for the year before (52/53-week years), and another January or February end
    /// for both (retailers name such years either way).
    pub fiscal_years: Vec<u16>,
    /// `Q1`–`Q4` for quarterly reports and releases, when the document says which.
    pub quarter: String,
    /// The conventions it was read by, in the order found; empty when none was.
    pub conventions: Vec<Convention>,
}

/// A cover convention the identity was read by: the `sec` annotator's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    /// An SEC form heading at the top of the cover (`FORM 10-K`).
    FormHeading,
    /// The line above "(Exact name of registrant as specified in its charter)".
    Registrant,
    /// An exchange listing after a name ("Johnson & Johnson (NYSE: JNJ)").
    Listing,
    /// A ticker under the cover's "Trading Symbol(s)" header.
    TradingSymbol,
    /// An earnings release's wording ("… reports fourth-quarter results").
    ReleaseWording,
    /// A corporate name on a line of its own ("3M COMPANY"), read as the issuer when
    /// nothing above named one.
    CorporateLine,
}

impl Convention {
    /// How surely the convention marks an SEC filing or an earnings release, 0 to 1.
    pub fn confidence(self) -> f32 {
        match self {
            Convention::Registrant => 0.95,
            Convention::FormHeading => 0.9,
            Convention::TradingSymbol => 0.8,
            Convention::Listing => 0.7,
            Convention::ReleaseWording => 0.4,
            Convention::CorporateLine => 0.3,
        }
    }

    /// The convention in words, for `strata docs`.
    pub fn describe(self) -> &'static str {
        match self {
            Convention::FormHeading => "an SEC form heading at the top",
            Convention::Registrant => "a registrant line",
            Convention::Listing => "an exchange listing",
            Convention::TradingSymbol => "a trading symbol table",
            Convention::ReleaseWording => "an earnings release's wording",
            Convention::CorporateLine => "a corporate name line",
        }
    }
}

const MONTHS: &str = "January|February|March|April|May|June|July|August|September|October|November|December";

fn re(pattern: &str) -> Regex {
    Regex::new(&pattern.replace("{DATE}", &format!(r"(?:{MONTHS})\s+\d{{1,2}}\s*,\s*\d{{4}}")))
        .expect("identity patterns are valid")
}

static FORM: LazyLock<Regex> = LazyLock::new(|| re(r"\bFORM\s+(10-KT?|10-Q|8-K|20-F|6-K|40-F)\b"));
static RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?is)\b(?:announce[sd]?|reports?|reported)\b.{0,120}\bresults\b|FOR IMMEDIATE RELEASE|Exhibit 99")
});
static REGISTRANT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^\(?exact name of (?:the )?registrant"));
/// Cover lines that name no issuer: the Commission, its address, the form heading, the
/// report's kind, the cover's labels, running heads.
static NOT_A_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)commission|file n|^or$|\d{3}-\d{4,}|^\(|^form\s|table of contents|^united states$|^washington,?\s+d\.?\s?c\b|exchange act|^(?:annual|quarterly|current|transition) report|^page\b|state or other|i\.r\.s\.",
    )
});
static LISTED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"([A-Z][A-Za-z.&,' \-]{2,60}?)\s*\(\s*(?:The\s+)?(?:New York Stock Exchange|NYSE|Nasdaq|NASDAQ)\s*:\s*([A-Z.]{1,6})\s*\)",
    )
});
static CORPORATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:THE\s+)?[A-Z][A-Z0-9.&,'\- ]{2,60}\s(?:INC\.?|INCORPORATED|CORPORATION|CORP\.?|COMPANY|CO\.|INTERNATIONAL|LTD\.?|PLC|N\.V\.|S\.A\.)(?:\s+AND\s+SUBSIDIARIES)?$",
    )
});
static TICKER_CELL: LazyLock<Regex> = LazyLock::new(|| re(r"^[A-Z]{1,5}(?:\.[A-Z])?$"));
static PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)for the (fiscal year|year|quarterly period|transition period) ended\s+({DATE})")
});
static REPORT_DATE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)date of report[^:]{0,60}:\s*({DATE})"));
static ENDED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?is)\b(quarter|year|period)\b[^.]{0,160}?\bended\s+({DATE})"));
static YEAR_QUARTER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(\d{4})\s+(first|second|third|fourth)[- ]quarter"));
static QUARTER_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(first|second|third|fourth)[- ]quarter\b(?:\s+(?:and\s+full[- ]year\s+)?(?:fiscal\s+)?(\d{4}))?",
    )
});
static FULL_YEAR: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)full[- ]year\s+(\d{4})|(\d{4})\s+results"));
static SMALL_CAPS: LazyLock<Regex> = LazyLock::new(|| re(r"\b([A-Z]) ([A-Z]{2,})\b"));

/// Words that sit in a ticker's column without being one.
const NOT_TICKERS: &[&str] = &[
    "LLC", "INC", "NYSE", "THE", "AND", "OF", "USD", "EUR", "PAR", "NONE", "LP", "NA", "CLASS", "NOTES",
    "DUE", "STOCK", "SHARE", "PER", "VALUE",
];

/// Reads the identity of a document from its first pages.
pub fn identify(text: &str, pages: &[Page]) -> Identity {
    let end = match pages.get(HEAD_PAGES.min(pages.len()).saturating_sub(1)) {
        Some(page) if pages.len() > 1 => page.span.end,
        _ => HEAD_BYTES.min(text.len()),
    };
    let end = (0..=end.min(MAX_BYTES).min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let lines: Vec<&str> = text[..end].lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let head = lines.iter().take(400).copied().collect::<Vec<_>>().join("\n");
    let mut id = Identity { form: form(&lines, &head), ..Identity::default() };
    match id.form.as_str() {
        "" => {}
        RELEASE_FORM => id.conventions.push(Convention::ReleaseWording),
        _ => id.conventions.push(Convention::FormHeading),
    }
    issuer(&lines, &head, &mut id);
    if id.ticker.is_empty() {
        id.ticker = trading_symbol(&head).unwrap_or_default();
        if !id.ticker.is_empty() {
            id.conventions.push(Convention::TradingSymbol);
        }
    }
    // Without an issuer, only an SEC form heading makes the rest trustworthy: a release's
    // wording or a "period ended" date alone turns up in all kinds of documents.
    if id.issuer.is_empty() && (id.form.is_empty() || id.form == RELEASE_FORM) {
        return Identity::default();
    }
    period(&head, &mut id);
    quarter(&head, &mut id);
    id
}

/// The issuer (and a listing's ticker), from the first of: the registrant line, an
/// exchange listing, a corporate name on a line of its own.
fn issuer(lines: &[&str], head: &str, id: &mut Identity) {
    if let Some(name) = registrant(lines) {
        id.issuer = name;
        id.conventions.push(Convention::Registrant);
    }
    if let Some(m) = LISTED.captures(head) {
        id.ticker = m[2].to_string();
        id.conventions.push(Convention::Listing);
        if id.issuer.is_empty() {
            // "… results -- Name (NYSE: X)": the name is what follows the last separator.
            let name = ["--", " - ", " – ", " — ", ")"]
                .iter()
                .fold(&m[1], |n, sep| n.rsplit(sep).next().unwrap_or(n));
            id.issuer = Some(clean(name)).filter(|n| is_name(n)).unwrap_or_default();
        }
    }
    if id.issuer.is_empty() {
        let named =
            lines.iter().take(300).filter(|l| CORPORATE.is_match(l)).map(|l| clean(l)).find(|n| is_name(n));
        if let Some(name) = named {
            id.issuer = name;
            id.conventions.push(Convention::CorporateLine);
        }
    }
}

/// The form of a document that reads as an earnings release.
const RELEASE_FORM: &str = "earnings release";

/// The form named at the top of the cover, or a release by its wording.
fn form(lines: &[&str], head: &str) -> String {
    let top = lines.iter().take(40).copied().collect::<Vec<_>>().join("\n");
    match FORM.captures(&top) {
        Some(m) => m[1].to_string(),
        None if RELEASE.is_match(head) => RELEASE_FORM.to_string(),
        None => String::new(),
    }
}

/// The line above "(Exact name of registrant as specified in its charter)".
fn registrant(lines: &[&str]) -> Option<String> {
    let at = lines.iter().take(200).position(|l| REGISTRANT.is_match(l))?;
    let name = clean(lines.get(at.checked_sub(1)?)?);
    is_name(&name).then_some(name)
}

/// The words of a company's name that are not its own.
const CORPORATE_WORDS: &[&str] = &[
    "the",
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "company",
    "co",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
];

/// Whether `name` can be an issuer's: no line of the cover's boilerplate (the Commission's
/// name, a form heading, a label, a running head), and at least two letters or digits
/// besides its corporate words ("3M Company" is a name; "K Company", the tail of "Form
/// 10-K", is none).
fn is_name(name: &str) -> bool {
    let own: usize = name
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !CORPORATE_WORDS.contains(&w.trim_matches('.').to_lowercase().as_str()))
        .map(|w| w.chars().filter(|c| c.is_alphanumeric()).count())
        .sum();
    own >= 2 && !NOT_A_NAME.is_match(name)
}

/// The first ticker-shaped word on the lines under the cover's "Trading Symbol(s)" header
/// ("Common Stock, par value $.01 per share AMZN Nasdaq Global Select Market"), before the
/// next part of the cover ("Securities registered pursuant to Section 12(g)").
fn trading_symbol(head: &str) -> Option<String> {
    let (_, after) = head.split_once("Trading Symbol")?;
    let rows = after.lines().skip(1).take(8).take_while(|l| !l.starts_with("Securities registered"));
    rows.flat_map(|line| line.split(|c: char| c.is_whitespace() || c == ',' || c == '|'))
        .find(|word| word.len() > 1 && TICKER_CELL.is_match(word) && !NOT_TICKERS.contains(word))
        .map(str::to_string)
}

/// The period and fiscal years, from the first of: "for the fiscal year ended DATE", an
/// 8-K's "Date of report: DATE", "quarter … ended DATE".
fn period(head: &str, id: &mut Identity) {
    let (what, date) = if let Some(m) = PERIOD.captures(head) {
        (m[1].to_lowercase(), m[2].to_string())
    } else if let Some(m) = REPORT_DATE.captures(head) {
        ("report dated".to_string(), m[1].to_string())
    } else if let Some(m) = ENDED.captures(head) {
        (m[1].to_lowercase(), m[2].to_string())
    } else {
        if let Some(m) = FULL_YEAR.captures(head) {
            id.fiscal_years =
                m.get(1).or(m.get(2)).and_then(|y| y.as_str().parse().ok()).into_iter().collect();
        }
        return;
    };
    let date = super::super::squash(&date).replace(" ,", ",");
    let report = what == "report dated";
    id.period = if report { format!("report dated {date}") } else { format!("{what} ended {date}") };
    let mut words = date.split([' ', ',']).filter(|w| !w.is_empty());
    let (month, day, year) = (words.next().unwrap_or(""), words.next(), words.next());
    let (Some(day), Some(year)) =
        (day.and_then(|d| d.parse::<u8>().ok()), year.and_then(|y| y.parse::<u16>().ok()))
    else {
        return;
    };
    id.fiscal_years = match month {
        _ if report => vec![year],
        "January" if day <= 7 => vec![year - 1],
        "January" | "February" => vec![year, year - 1],
        _ => vec![year],
    };
}

/// The quarter of a 10-Q or a release: "2022 fourth-quarter", "fourth-quarter 2022", or a
/// 10-Q's period ending in March, June or September.
fn quarter(head: &str, id: &mut Identity) {
    let number = |word: &str| match word.to_lowercase().as_str() {
        "first" => "Q1",
        "second" => "Q2",
        "third" => "Q3",
        _ => "Q4",
    };
    if id.form != "10-Q" && id.form != RELEASE_FORM {
        return;
    }
    if let Some(m) = YEAR_QUARTER.captures(head) {
        id.quarter = number(&m[2]).to_string();
        if id.fiscal_years.is_empty() {
            id.fiscal_years = m[1].parse().ok().into_iter().collect();
        }
    } else if let Some(m) = QUARTER_YEAR.captures(head) {
        id.quarter = number(&m[1]).to_string();
        if id.fiscal_years.is_empty() {
            id.fiscal_years = m.get(2).and_then(|y| y.as_str().parse().ok()).into_iter().collect();
        }
    }
    if id.form == "10-Q" && id.quarter.is_empty() {
        let month = ["March", "June", "September"].iter().position(|m| id.period.contains(m));
        id.quarter = month.map(|q| format!("Q{}", q + 1)).unwrap_or_default();
    }
}

/// A name as printed, with small capitals re-joined ("MGM R ESORTS") and "and subsidiaries"
/// dropped.
fn clean(name: &str) -> String {
    let name = SMALL_CAPS.replace_all(name, "$1$2");
    let name = super::super::squash(&name);
    let name = name.trim_matches(|c: char| " ,;:-–".contains(c));
    match name.to_lowercase().rfind(" and subsidiaries") {
        Some(at) if at + " and subsidiaries".len() == name.len() => name[..at].to_string(),
        _ => name.to_string(),
    }
}

impl Identity {
    /// A title made of the identity, when it names the issuer: "ADVANCED MICRO DEVICES, INC.
    /// 10-K, fiscal year ended December 26, 2015".
    pub fn title(&self) -> Option<String> {
        if self.issuer.is_empty() {
            return None;
        }
        let rest: Vec<&str> =
            [self.form.as_str(), self.period.as_str()].into_iter().filter(|s| !s.is_empty()).collect();
        Some(if rest.is_empty() {
            self.issuer.clone()
        } else {
            format!("{} {}", self.issuer, rest.join(", "))
        })
    }

    /// The metadata entries (`issuer`, `ticker`, `form`, `period`, `fiscal_years`,
    /// `quarter`) of the fields found.
    pub fn metadata(&self) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        for (key, value) in [
            ("issuer", &self.issuer),
            ("ticker", &self.ticker),
            ("form", &self.form),
            ("period", &self.period),
            ("quarter", &self.quarter),
        ] {
            if !value.is_empty() {
                out.push((key, json!(value)));
            }
        }
        if !self.fiscal_years.is_empty() {
            out.push(("fiscal_years", json!(self.fiscal_years)));
        }
        out
    }
}

#[cfg(test)]
mod tests;
