//! The annotate stage's annotators: domain knowledge, declared.
//!
//! A document may follow a convention of its domain (an SEC filing's cover, a contract's
//! preamble) that says what it is. An [`Annotator`] reads one such convention, under a
//! declared contract:
//!
//! - a detector ([`Annotator::detect`]) that says, with a confidence and its evidence,
//!   whether a document follows the convention, and the threshold at which that counts
//!   ([`Annotator::threshold`]);
//! - the fields it fills ([`Annotator::fields`]): metadata keys, and `title` when it may
//!   name a document whose own title names nothing. [`Annotators::run`] keeps those and
//!   nothing else;
//! - it runs on a document when detected at its threshold and surer than any other
//!   annotator that `auto` chose (`[ingest] annotators = ["auto"]`, the default: an
//!   annotator says what a document is, and a document is one thing), or on every document
//!   when named there.
//!
//! Each document records the annotators that ran and why ([`strata_core::Annotation`],
//! shown by `strata docs --json`). A document that no annotator claims passes through
//! untouched.
//!
//! The annotators: [`sec`] (SEC filings and earnings releases: issuer, ticker, form,
//! period, fiscal years) and [`contract`] (agreements: parties and their short names, the
//! effective date, the agreement's kind).

use std::collections::BTreeMap;

use serde_json::Value;
use strata_core::{Annotation, Page};

pub mod contract;
pub mod sec;
mod title;

pub use title::title_is_placeholder;

/// What an annotator reads of a document: its text, pages and title, as the reader made
/// them.
#[derive(Debug, Clone, Copy, Default)]
pub struct View<'a> {
    /// The document's text.
    pub text: &'a str,
    /// Its pages.
    pub pages: &'a [Page],
    /// The title the reader found, if any.
    pub title: Option<&'a str>,
}

/// What a detector found.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// How surely the document follows the annotator's convention, 0 to 1.
    pub confidence: f32,
    /// The evidence, in words; empty when there is none.
    pub evidence: String,
}

impl Detection {
    /// The detection of independent pieces of evidence, each its confidence and its words:
    /// each leaves the doubt the others leave times its own, `1 - Π(1 - c)`; 0 without any.
    pub fn of_evidence<'a>(found: impl IntoIterator<Item = (f32, &'a str)>) -> Detection {
        let (mut doubt, mut words) = (1.0f32, Vec::new());
        for (confidence, describe) in found {
            doubt *= 1.0 - confidence;
            words.push(describe);
        }
        let confidence = if words.is_empty() { 0.0 } else { 1.0 - doubt };
        Detection { confidence, evidence: words.join("; ") }
    }
}

/// The fields an annotator gives a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    /// Metadata entries, under keys the annotator declared. A key the document's reader
    /// already filled (front matter) keeps the reader's value.
    pub metadata: Vec<(&'static str, Value)>,
    /// A title, taken when the document's own names nothing ([`title_is_placeholder`]).
    pub title: Option<String>,
}

/// One domain convention, read under a declared contract (see the module doc).
pub trait Annotator: Send + Sync {
    /// Its name, in `[ingest] annotators` and in each document's annotations.
    fn name(&self) -> &'static str;
    /// The confidence at which its detector's finding counts.
    fn threshold(&self) -> f32;
    /// The fields it may fill: metadata keys, and `title`.
    fn fields(&self) -> &'static [&'static str];
    /// How surely `view` follows its convention.
    fn detect(&self, view: View) -> Detection;
    /// The fields of `view`, by its convention.
    fn annotate(&self, view: View) -> Fields;
    /// Whether `title`, the reader's title of a document it annotates, is its convention's
    /// boilerplate and names nothing ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", a
    /// filing cover's first line); its own title then gives way. No title by default.
    fn title_names_nothing(&self, _title: &str) -> bool {
        false
    }
}

/// Every annotator strata has, in the order they run; their names are
/// [`strata_core::config::ANNOTATORS`].
pub fn all() -> Vec<Box<dyn Annotator>> {
    vec![Box::new(sec::Sec), Box::new(contract::Contract)]
}

/// When a chosen annotator runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// When its detector finds its convention at its threshold (`auto`).
    Detected,
    /// On every document (named in `[ingest] annotators`).
    Always,
}

/// An annotator that ran on a document: the record of it, and the fields it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// What the document records of it; [`Ran::record`] says what it filled.
    pub annotation: Annotation,
    /// The fields it gave, its declared ones only.
    pub fields: Fields,
    /// Whether it read the reader's title as boilerplate that names nothing
    /// ([`Annotator::title_names_nothing`]).
    pub title_names_nothing: bool,
}

impl Ran {
    /// Its annotation, with the fields it filled: the metadata entries that hold its value
    /// once the document's own, the configuration's and a sidecar's were applied, and
    /// `title` when the document took its title.
    pub fn record(self, metadata: &BTreeMap<String, Value>, took_title: bool) -> Annotation {
        let mut annotation = self.annotation;
        let held = |(key, value): &(&str, Value)| metadata.get(*key) == Some(value);
        annotation.filled =
            self.fields.metadata.iter().filter(|f| held(f)).map(|(k, _)| k.to_string()).collect();
        if took_title && self.fields.title.is_some() {
            annotation.filled.push("title".to_string());
        }
        annotation
    }
}

/// The annotators an ingest runs, as `[ingest] annotators` chose them.
pub struct Annotators {
    chosen: Vec<(Box<dyn Annotator>, When)>,
}

impl Annotators {
    /// The annotators `names` choose: `auto` each one when detected, a name that one always.
    /// Names that are no annotator choose nothing (the configuration refuses them when it
    /// is loaded).
    pub fn new(names: &[String]) -> Annotators {
        let auto = names.iter().any(|n| n == "auto");
        let chosen = all()
            .into_iter()
            .filter_map(|a| match names.iter().any(|n| n == a.name()) {
                true => Some((a, When::Always)),
                false => auto.then_some((a, When::Detected)),
            })
            .collect();
        Annotators { chosen }
    }

    /// The chosen annotators that run on `view`, each with why and what it gave: those
    /// named, and of those `auto` chose, the one whose detector is surest, when it reaches
    /// its threshold. An annotator says what a document *is*, and a document is one thing:
    /// a 10-K that carries a credit agreement as an exhibit is a filing, not a contract.
    pub fn run(&self, view: View) -> Vec<Ran> {
        let detections: Vec<Detection> = self.chosen.iter().map(|(a, _)| a.detect(view)).collect();
        let surest = self
            .chosen
            .iter()
            .zip(&detections)
            .enumerate()
            .filter(|(_, ((a, when), d))| *when == When::Detected && d.confidence >= a.threshold())
            .max_by(|(i, (_, d)), (j, (_, e))| d.confidence.total_cmp(&e.confidence).then(j.cmp(i)))
            .map(|(i, _)| i);
        let mut out = Vec::new();
        for (i, ((annotator, when), detection)) in self.chosen.iter().zip(&detections).enumerate() {
            if *when == When::Detected && surest != Some(i) {
                continue;
            }
            let annotation = Annotation {
                annotator: annotator.name().to_string(),
                confidence: detection.confidence,
                why: why(annotator.as_ref(), *when, detection),
                filled: Vec::new(),
            };
            out.push(Ran {
                annotation,
                fields: declared(annotator.as_ref(), annotator.annotate(view)),
                title_names_nothing: view.title.is_some_and(|t| annotator.title_names_nothing(t)),
            });
        }
        out
    }
}

/// `text` with each run of white space as one space: how annotators compare and keep the
/// words they read.
pub(crate) fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why an annotator ran: "detected: 0.95 ≥ 0.50 (a registrant line)", or "named in
/// [ingest] annotators (detected: 0.00 < 0.50)".
fn why(annotator: &dyn Annotator, when: When, detection: &Detection) -> String {
    let (confidence, threshold) = (detection.confidence, annotator.threshold());
    let sign = if confidence >= threshold { "≥" } else { "<" };
    let evidence =
        if detection.evidence.is_empty() { String::new() } else { format!(" ({})", detection.evidence) };
    match when {
        When::Detected => format!("detected: {confidence:.2} {sign} {threshold:.2}{evidence}"),
        When::Always => {
            format!(
                "named in [ingest] annotators (detected: {confidence:.2} {sign} {threshold:.2}{evidence})"
            )
        }
    }
}

/// `fields` less any the annotator did not declare: an annotator fills its declared fields
/// and nothing else.
fn declared(annotator: &dyn Annotator, mut fields: Fields) -> Fields {
    let declares = |key: &str| annotator.fields().contains(&key);
    fields.metadata.retain(|(k, _)| declares(k));
    if !declares("title") {
        fields.title = None;
    }
    fields
}

#[cfg(test)]
mod tests;
