//! Document profiles: what the document leg searches to tell which documents a query is
//! about.
//!
//! A question names its document by what the document *is* ("3M's FY2018 10-K", "Foot
//! Locker's May 2022 8-K"), and the pages of a long filing rarely say so. A profile has
//! three fields, which the document leg scores apart: mixed into one text, the first pages'
//! words drown the name (measured in `bench/research/doc-leg/`).
//!
//! - `name`: who or what the document is, as names separated by ` | `: the issuer and ticker
//!   of its identity (else its title), the words of its file name, and metadata that names
//!   (`company`, `title`, a contract's `parties`, …);
//! - `period`: when and which form: form, period, quarter, `FY2018 2018` per fiscal year, the
//!   words with digits of its title and file name, and metadata that dates or says the kind
//!   (`year`, `date`, a contract's `agreement` and `effective_date`, …);
//! - `lead`: the titles of its top sections, the summary a language model wrote of it (the
//!   tree root's, when ingest ran with `[context.llm]`), its first words ([`Document::lead`])
//!   and the rest of its metadata.

use serde::{Deserialize, Serialize};

use crate::{Document, Page};

/// Words of a document's first pages kept as its lead.
pub const DOCUMENT_LEAD_WORDS: usize = 300;
/// Pages the lead is taken from.
pub const LEAD_PAGES: usize = 2;
/// Bytes the lead is taken from when the document has no page breaks.
const LEAD_BYTES: usize = 6_000;
/// Top-section titles a profile keeps.
pub const TOP_HEADINGS: usize = 24;

/// Metadata keys whose values name the document (its `name` field).
const NAME_KEYS: [&str; 8] =
    ["issuer", "ticker", "company", "title", "name", "organization", "author", "parties"];
/// Metadata keys whose values date it or say its form (its `period` field).
const PERIOD_KEYS: [&str; 11] = [
    "form",
    "period",
    "quarter",
    "year",
    "fiscal_year",
    "date",
    "fiscal_period",
    "type",
    "version",
    "agreement",
    "effective_date",
];

/// What the document leg indexes for one document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DocumentProfile {
    /// Who or what it is: issuer and ticker (else the title), file-name words, naming
    /// metadata.
    pub name: String,
    /// When and which form: form, period, quarter, fiscal years, numbers of the title and
    /// file name, dating metadata.
    pub period: String,
    /// Its top sections' titles, a model's summary, its first words, its other metadata.
    pub lead: String,
}

impl DocumentProfile {
    /// The text the dense document leg embeds: name, period and lead, one per line.
    pub fn text(&self) -> String {
        [&self.name, &self.period, &self.lead]
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The profile of `doc`. Needs no text: the lead was kept in [`Document::lead`].
    pub fn of(doc: &Document) -> DocumentProfile {
        let mut name = Vec::new();
        let mut period = Vec::new();
        let mut lead = Vec::new();
        let file = doc.source.path.rsplit(['/', '\\']).next().unwrap_or(&doc.source.path);
        let stem = file.rsplit_once('.').map(|(s, _)| s).unwrap_or(file);
        let named = doc.metadata.get("issuer").and_then(|v| v.as_str()).is_some_and(|s| !s.trim().is_empty());
        // The title of a document with an identity is made of it (or is the file's own,
        // often a converter's "Form 10-K for … filed …"). Words with digits date; the other
        // words are one name (`state_of_the_union` is "state of the union", not "state").
        let mut split = |text: &str| {
            let mut words = Vec::new();
            for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                match word.chars().any(|c| c.is_ascii_digit()) {
                    true => period.push(word.to_string()),
                    false => words.push(word),
                }
            }
            name.push(words.join(" "));
        };
        if !named {
            split(&doc.title);
        }
        split(stem);
        for (key, value) in &doc.metadata {
            let values: Vec<String> = match value {
                serde_json::Value::String(s) => vec![s.clone()],
                serde_json::Value::Number(n) => vec![n.to_string()],
                serde_json::Value::Array(a) => a
                    .iter()
                    .filter_map(|v| {
                        v.as_str().map(str::to_string).or_else(|| v.as_u64().map(|n| n.to_string()))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let key = key.to_ascii_lowercase();
            for v in values {
                if key == "fiscal_years" {
                    period.push(format!("FY{v} {v}"));
                } else if NAME_KEYS.contains(&key.as_str()) {
                    name.push(v);
                } else if PERIOD_KEYS.contains(&key.as_str()) {
                    period.push(v);
                } else {
                    lead.push(v);
                }
            }
        }
        let root = doc.tree.nodes().first();
        let top = root.into_iter().flat_map(|r| r.children.iter()).filter_map(|c| doc.tree.get(*c));
        lead.extend(top.take(TOP_HEADINGS).map(|n| n.title.clone()));
        // A language model's summary of the whole document, when ingest had one write it.
        lead.extend(root.and_then(|r| r.summary.clone()));
        lead.push(doc.lead.clone());
        let join = |parts: Vec<String>| {
            parts.into_iter().filter(|p| !p.trim().is_empty()).collect::<Vec<_>>().join(" | ")
        };
        DocumentProfile { name: join(name), period: join(period), lead: join(lead) }
    }
}

/// The lead of a document: the first [`DOCUMENT_LEAD_WORDS`] words of its first
/// [`LEAD_PAGES`] pages (of its first bytes when it has no page breaks), joined by spaces.
pub fn document_lead(text: &str, pages: &[Page]) -> String {
    let end = match pages.get(LEAD_PAGES.min(pages.len()).saturating_sub(1)) {
        Some(p) if pages.len() > 1 => p.span.end,
        _ => crate::floor_char_boundary(text, LEAD_BYTES.min(text.len())),
    };
    let end = crate::floor_char_boundary(text, end.min(text.len()));
    let words: Vec<&str> = text[..end].split_whitespace().take(DOCUMENT_LEAD_WORDS).collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DocId, Format, Source, Span, Tree};

    fn doc(path: &str, title: &str, metadata: serde_json::Value) -> Document {
        Document {
            id: DocId("d".into()),
            source: Source {
                path: path.into(),
                format: Format::Pdf,
                content_hash: String::new(),
                size: 0,
                mtime: None,
            },
            title: title.into(),
            text: String::new(),
            pages: Vec::new(),
            blocks: Vec::new(),
            tree: Tree::default(),
            metadata: serde_json::from_value(metadata).unwrap(),
            lead: "UNITED STATES SECURITIES AND EXCHANGE COMMISSION".into(),
            warnings: Vec::new(),
            first_line: None,
            annotations: Vec::new(),
        }
    }

    #[test]
    fn an_identity_names_and_dates_the_filing() {
        let d = doc(
            "/data/AMAZON_2017_10K.pdf",
            "AMAZON.COM, INC. 10-K, fiscal year ended December 31, 2017",
            serde_json::json!({"issuer": "AMAZON.COM, INC.", "ticker": "AMZN", "form": "10-K",
                "period": "fiscal year ended December 31, 2017", "fiscal_years": [2017]}),
        );
        let p = DocumentProfile::of(&d);
        assert_eq!(p.name, "AMAZON | AMAZON.COM, INC. | AMZN");
        assert!(p.period.starts_with("2017 | 10K | FY2017 2017 | 10-K | fiscal year ended"), "{}", p.period);
        assert!(!p.name.contains("fiscal"), "the identity title's period words do not name: {}", p.name);
        assert_eq!(p.lead, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION");
    }

    #[test]
    fn without_an_identity_the_title_names_the_document() {
        let d = doc("docs/rfc9110.txt", "HTTP Semantics (2022)", serde_json::json!({"tags": ["http"]}));
        let p = DocumentProfile::of(&d);
        assert_eq!(p.name, "HTTP Semantics");
        assert_eq!(p.period, "2022 | rfc9110");
        assert!(p.lead.starts_with("http | "), "other metadata goes to the lead: {}", p.lead);
    }

    #[test]
    fn a_contracts_parties_name_it_and_its_kind_and_date_date_it() {
        let d = doc(
            "/cuad/ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.txt",
            "REDACTED COPY",
            serde_json::json!({"parties": ["TOM WATSON", "ADAMS GOLF, LTD."], "short_names": ["CONSULTANT"],
                "agreement": "ENDORSEMENT AGREEMENT", "effective_date": "January 13, 2005"}),
        );
        let p = DocumentProfile::of(&d);
        assert!(p.name.ends_with(" | TOM WATSON | ADAMS GOLF, LTD."), "{}", p.name);
        assert!(
            p.period.contains("ENDORSEMENT AGREEMENT") && p.period.contains("January 13, 2005"),
            "{}",
            p.period
        );
        assert!(p.lead.starts_with("CONSULTANT | "), "short names are lead: {}", p.lead);
    }

    #[test]
    fn the_lead_is_the_first_pages_words() {
        let text = "cover page words\u{c}second page\u{c}third page never";
        let pages = vec![
            Page { number: 1, label: None, span: Span::new(0, 17), ocr: None },
            Page { number: 2, label: None, span: Span::new(17, 29), ocr: None },
            Page { number: 3, label: None, span: Span::new(29, text.len()), ocr: None },
        ];
        assert_eq!(document_lead(text, &pages), "cover page words second page");
        let long = "é ".repeat(10_000);
        assert_eq!(document_lead(&long, &[]).split(' ').count(), DOCUMENT_LEAD_WORDS);
    }
}
