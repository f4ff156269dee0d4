//! The `sec` annotator: SEC filings (10-K, 10-Q, 8-K, 20-F, …) and earnings releases.
//!
//! Its detector reads the cover's conventions ([`identity::Convention`]): a registrant
//! line, a form heading, a trading symbol table, an exchange listing, a release's wording, a
//! corporate name on a line of its own. Their confidences combine as independent evidence
//! (`1 - Π(1 - c)`), which counts from [`THRESHOLD`]. It fills the issuer, ticker, form, period,
//! quarter and fiscal years ([`identity::Identity`]), and names a document whose own title
//! names nothing by them ("ADVANCED MICRO DEVICES, INC. 10-K, fiscal year ended December
//! 26, 2015"): a placeholder, or a line of the cover's boilerplate that a reader took for
//! the title ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K").

use std::sync::LazyLock;

use regex::Regex;

use super::{Annotator, Detection, Fields, View};

pub mod identity;

use identity::identify;

/// The lines of a filing's cover that a reader may take for its title: the Commission's
/// name and address, the form heading, the report's kind, "(Mark One)", "Table of Contents".
static COVER_BOILERPLATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:united states\s+)?securities\s+and\s+exchange\s+commission|washington,?\s+d\.?\s?c\.?(?:\s+\d{5})?|form\s+(?:10-kt?|10-q|8-k|20-f|6-k|40-f)|(?:annual|quarterly|current|transition)\s+report\b.*|\(?mark\s+one\)?|table\s+of\s+contents)\s*$",
    )
    .expect("a valid pattern")
});

/// The confidence from which the detector's finding counts: a form heading, a registrant
/// line, a trading symbol table or an exchange listing each make a filing or a release; a
/// release's wording and a corporate name line (which contracts filed as exhibits carry
/// too) do not, alone or together.
pub const THRESHOLD: f32 = 0.6;

/// The metadata keys `sec` fills, and `title`.
pub const FIELDS: &[&str] = &["issuer", "ticker", "form", "period", "quarter", "fiscal_years", "title"];

/// The `sec` annotator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sec;

impl Annotator for Sec {
    fn name(&self) -> &'static str {
        "sec"
    }

    fn threshold(&self) -> f32 {
        THRESHOLD
    }

    fn fields(&self) -> &'static [&'static str] {
        FIELDS
    }

    fn detect(&self, view: View) -> Detection {
        let conventions = identify(view.text, view.pages).conventions;
        Detection::of_evidence(conventions.into_iter().map(|c| (c.confidence(), c.describe())))
    }

    fn annotate(&self, view: View) -> Fields {
        let identity = identify(view.text, view.pages);
        Fields { metadata: identity.metadata(), title: identity.title() }
    }

    fn title_names_nothing(&self, title: &str) -> bool {
        COVER_BOILERPLATE.is_match(&super::squash(title))
    }
}
