//! The documents stage: which documents a query is about, ranked by their profiles.
//!
//! Each document's [`DocumentProfile`] has three fields, scored apart with BM25 (k1 = 1.2,
//! b = 0.75) and summed: `name` and `period` at full weight, `lead` (top sections, first
//! words) at [`LEAD_WEIGHT`], so that the first pages break ties between filings of one
//! company without drowning the name (`bench/research/doc-leg/`: mixed into one field, page
//! text halves how often the right filing comes first).
//!
//! The query is read for what names documents: English stop words dropped, each term once;
//! `FY18`, `FY 2018` and `2018Q1` also give the bare year; when a query names several years
//! only the latest counts (a FY2020 report covers FY2018 to FY2020); adjacent capitalised
//! words are also glued (`Foot Locker` → `footlocker`, as file names write them).
//!
//! A document is **named** by a query that holds every word of one of its names (the
//! ` | `-separated parts of its `name` field, less stop words and corporate suffixes:
//! "Foot Locker", "JNJ", "Coca-Cola"): a single shared word ("state" of
//! `state_of_the_union`) does not name a document. Only a ranking whose best document is
//! named has a [`DocumentRanking::shortlist`]: the named documents scoring at least
//! [`SHORTLIST`] of the best (one filing, or a company's filings of the same period). The
//! retrieve stage searches the shortlist deeper and fusion adds each shortlisted document's
//! term to its chunks; a query that names no document leaves the ranking alone.
//!
//! The index lives in memory, built once per commit from [`StoreRead::documents`] (a few
//! hundred terms per document).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use strata_core::config::NameEvidence;
use strata_core::{DocId, DocumentProfile, Result};
use strata_index::{DocSummary, StoreRead};
use strata_text::analyzer::{en_stem, terms};
use tantivy::tokenizer::TextAnalyzer;

use crate::within::holds;

/// The weight of the `lead` field against `name` and `period`.
pub const LEAD_WEIGHT: f32 = 0.1;
/// A named document joins the shortlist when it scores at least this share of the best.
pub const SHORTLIST: f32 = 0.8;
/// The share of a quoted phrase's distinctive words that a document's name must make up
/// for the phrase to be read as that name ([`DocumentIndex::is_title`]).
pub const TITLE_SHARE: f64 = 0.67;
/// The most documents a shortlist holds.
pub const MAX_SHORTLIST: usize = 4;
/// The most named documents the dense document leg compares with the query.
pub const DENSE_CANDIDATES: usize = 8;

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// English stop words, and the words every question about a document uses.
const STOP: &[&str] = &[
    "a", "about", "fy", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "between", "but", "by", "can", "could", "did", "do", "does", "during", "each", "for", "from",
    "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "more", "most", "much", "no",
    "not", "of", "on", "or", "other", "our", "over", "per", "s", "should", "so", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "under",
    "up", "us", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your",
];

/// Whether `term` (lowercased) is one of the English stop words the documents stage drops.
pub(crate) fn is_stop_word(term: &str) -> bool {
    STOP.contains(&term)
}

/// One field of the profiles: postings, lengths, weight.
#[derive(Debug, Default)]
struct Field {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    average: f32,
    weight: f32,
}

impl Field {
    fn new(texts: impl Iterator<Item = String>, weight: f32, analyzer: &mut TextAnalyzer) -> Field {
        let mut field = Field { weight, ..Field::default() };
        for (doc, text) in texts.enumerate() {
            let words = terms(analyzer, &text);
            field.lengths.push(words.len() as u32);
            let mut tf: HashMap<String, u32> = HashMap::new();
            for w in words {
                *tf.entry(w).or_default() += 1;
            }
            for (term, n) in tf {
                field.postings.entry(term).or_default().push((doc as u32, n));
            }
        }
        let total: u64 = field.lengths.iter().map(|&l| u64::from(l)).sum();
        field.average = (total as f32 / field.lengths.len().max(1) as f32).max(1.0);
        field
    }

    /// Adds this field's weighted BM25 score of each query term to `scores`.
    fn score(&self, query: &[String], scores: &mut [f32]) {
        let n = self.lengths.len() as f32;
        for term in query {
            let Some(postings) = self.postings.get(term) else { continue };
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(doc, tf) in postings {
                let tf = tf as f32;
                let norm = K1 * (1.0 - B + B * self.lengths[doc as usize] as f32 / self.average);
                scores[doc as usize] += self.weight * idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
    }
}

/// Words a company's name may omit.
const SUFFIXES: &[&str] = &[
    "ag",
    "co",
    "compani",
    "company",
    "corp",
    "corpor",
    "corporation",
    "group",
    "hold",
    "holdings",
    "inc",
    "incorpor",
    "limit",
    "limited",
    "llc",
    "lp",
    "ltd",
    "nv",
    "plc",
    "sa",
];

/// The document profiles of one commit, searchable.
#[derive(Debug, Default)]
pub struct DocumentIndex {
    docs: Vec<DocId>,
    /// Each document's names, each as its distinctive terms.
    names: Vec<Vec<Vec<String>>>,
    /// Each document's metadata, for `--where`.
    metadata: Vec<BTreeMap<String, Value>>,
    /// The documents whose profiles (any field) hold each term.
    holders: HashMap<String, Vec<u32>>,
    name: Field,
    period: Field,
    lead: Field,
}

/// One document of a [`DocumentRanking`].
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentHit {
    /// The document.
    pub doc: DocId,
    /// Its score, all fields.
    pub score: f32,
    /// Whether the query holds every word of one of its names.
    pub named: bool,
    /// How firmly the query names it, 0 to 1 ([`DocumentIndex::evidence`]); 0 when not
    /// named.
    pub evidence: f32,
}

/// The documents a query is about, best first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentRanking {
    /// Every document with a positive score, best first (ties by id).
    pub hits: Vec<DocumentHit>,
}

impl DocumentIndex {
    /// The index of `docs`' profiles.
    pub fn new(docs: &[DocSummary]) -> DocumentIndex {
        let mut analyzer = en_stem();
        let profiles: Vec<&DocumentProfile> = docs.iter().map(|d| &d.profile).collect();
        let field = |f: fn(&DocumentProfile) -> &String, weight, a: &mut TextAnalyzer| {
            Field::new(profiles.iter().map(|p| f(p).clone()), weight, a)
        };
        let names = profiles
            .iter()
            .map(|p| {
                p.name.split('|').map(|n| distinctive(&mut analyzer, n)).filter(|n| !n.is_empty()).collect()
            })
            .collect();
        let (name, period, lead) = (
            field(|p| &p.name, 1.0, &mut analyzer),
            field(|p| &p.period, 1.0, &mut analyzer),
            field(|p| &p.lead, LEAD_WEIGHT, &mut analyzer),
        );
        DocumentIndex {
            docs: docs.iter().map(|d| d.id.clone()).collect(),
            names,
            metadata: docs.iter().map(|d| d.metadata.clone()).collect(),
            holders: holders(&[&name, &period, &lead]),
            name,
            period,
            lead,
        }
    }

    /// How firmly a query that holds the terms `asked` names document `i`, 0 to 1: the
    /// firmest of its names that the query holds whole. A name's words are each as
    /// distinctive as `ln(n / held) / ln(n)`, where `held` counts the documents whose
    /// profiles hold the word, less those the query names too (a company's filings share
    /// its name): a company, a party or a rare title word is held by the documents it names
    /// alone (1); a topic that many other documents' first pages use ("authentication",
    /// "money laundering") hardly names one of them. A name is as firm as its least
    /// distinctive word with [`NameEvidence::All`], its most with [`NameEvidence::Any`].
    /// 0 when no name is held whole; 1 in a corpus of one document.
    fn evidence(&self, i: usize, asked: &HashSet<&str>, named: &[bool], rule: NameEvidence) -> f32 {
        let n = self.docs.len() as f32;
        if n < 2.0 {
            return 1.0;
        }
        let distinct = |t: &String| {
            let others = self.holders.get(t).map_or(0, |h| h.iter().filter(|&&d| !named[d as usize]).count());
            ((n / (others + 1) as f32).ln() / n.ln()).clamp(0.0, 1.0)
        };
        let firmness = |name: &Vec<String>| match rule {
            NameEvidence::Any => name.iter().map(distinct).fold(0.0, f32::max),
            _ => name.iter().map(distinct).fold(1.0, f32::min),
        };
        self.names[i]
            .iter()
            .filter(|name| name.iter().all(|t| asked.contains(t.as_str())))
            .map(firmness)
            .fold(0.0, f32::max)
    }

    /// Whether the query, holding the terms `asked`, holds every word of a name of
    /// document `i`.
    fn is_named(&self, i: usize, asked: &HashSet<&str>) -> bool {
        self.names[i].iter().any(|n| n.iter().all(|t| asked.contains(t.as_str())))
    }

    /// The index of every document in `store`.
    pub fn read(store: &dyn StoreRead) -> Result<DocumentIndex> {
        Ok(DocumentIndex::new(&store.documents()?))
    }

    /// How many documents it holds.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when it holds no document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The documents whose metadata meets every `(key, value)` condition
    /// ([`crate::within::holds`]).
    pub fn matching(&self, conditions: &[(String, String)]) -> Vec<DocId> {
        let meets = |m: &BTreeMap<String, Value>| conditions.iter().all(|(k, v)| holds(m, k, v));
        self.docs.iter().zip(&self.metadata).filter(|(_, m)| meets(m)).map(|(d, _)| d.clone()).collect()
    }

    /// Whether a quoted `phrase` of a query is a document's own name (its title, say) rather
    /// than words its text should hold: the phrase names the document (holds every
    /// distinctive word of one of its names) and that name makes up at least
    /// [`TITLE_SHARE`] of the phrase's distinctive words. `In the paper "TITLE": …` then
    /// finds the paper through the documents stage, and the exact leg does not pin the one
    /// chunk that repeats the title first for every question about it.
    pub fn is_title(&self, phrase: &str) -> bool {
        let mut analyzer = en_stem();
        let words = distinctive(&mut analyzer, phrase);
        if words.is_empty() {
            return false;
        }
        let held: HashSet<&str> = words.iter().map(String::as_str).collect();
        self.names.iter().flatten().any(|name| {
            name.iter().all(|t| held.contains(t.as_str()))
                && name.len() as f64 >= TITLE_SHARE * words.len() as f64
        })
    }

    /// `query` without what names the documents of `shortlist`: the quoted `titles` when it
    /// has any, else each word whose terms all belong to a name of a shortlisted document
    /// that the query holds whole. Those words say which document to read, not where in it the answer is:
    /// left in, they rank its cover, title or abstract first for every question about it.
    /// Returns `query` itself when nothing names a document.
    pub fn without_names(&self, query: &str, shortlist: &[DocumentHit], titles: &[String]) -> String {
        let asked: HashSet<String> = query_terms(query).into_iter().collect();
        let mut naming: HashSet<&str> = HashSet::new();
        // A quoted title is what names the document; the same words elsewhere in the query
        // ask about the text.
        for hit in shortlist.iter().filter(|_| titles.is_empty()) {
            let Some(i) = self.docs.iter().position(|d| *d == hit.doc) else { continue };
            for name in self.names[i].iter().filter(|n| n.iter().all(|t| asked.contains(t))) {
                naming.extend(name.iter().map(String::as_str));
            }
        }
        if naming.is_empty() && titles.is_empty() {
            return query.to_string();
        }
        let mut rest = query.to_string();
        for title in titles {
            rest = rest.replace(&format!("\"{title}\""), " ").replace(&format!("“{title}”"), " ");
        }
        let mut analyzer = en_stem();
        let words: Vec<&str> = rest.split_whitespace().collect();
        let mut kept = Vec::with_capacity(words.len());
        let mut i = 0;
        while i < words.len() {
            // Two or three words glued, as a file name writes a company (`Foot Locker` of
            // FOOTLOCKER), then the word alone.
            let glued = (2..=3).rev().find(|&n| {
                words.get(i..i + n).is_some_and(|run| {
                    let joined: String =
                        run.iter().flat_map(|w| w.chars()).filter(|c| c.is_alphanumeric()).collect();
                    let t = terms(&mut analyzer, &joined);
                    t.len() == 1 && naming.contains(t[0].as_str())
                })
            });
            if let Some(n) = glued {
                i += n;
                continue;
            }
            let t = terms(&mut analyzer, words[i]);
            if t.is_empty() || !t.iter().all(|t| naming.contains(t.as_str())) {
                kept.push(words[i]);
            }
            i += 1;
        }
        kept.join(" ")
    }

    /// The documents `query` is about, each named as firmly as `rule` reads its names.
    pub fn rank(&self, query: &str, rule: NameEvidence) -> DocumentRanking {
        if self.docs.len() < 2 {
            return DocumentRanking::default();
        }
        let terms = query_terms(query);
        let asked: HashSet<&str> = terms.iter().map(String::as_str).collect();
        let mut scores = vec![0.0f32; self.docs.len()];
        self.name.score(&terms, &mut scores);
        self.period.score(&terms, &mut scores);
        self.lead.score(&terms, &mut scores);
        let named: Vec<bool> =
            (0..self.docs.len()).map(|i| scores[i] > 0.0 && self.is_named(i, &asked)).collect();
        let mut hits: Vec<DocumentHit> = scores
            .iter()
            .enumerate()
            .filter(|(_, &s)| s > 0.0)
            .map(|(i, &score)| {
                let evidence = if named[i] { self.evidence(i, &asked, &named, rule) } else { 0.0 };
                DocumentHit { doc: self.docs[i].clone(), score, named: named[i], evidence }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.doc.cmp(&b.doc)));
        DocumentRanking { hits }
    }
}

impl DocumentRanking {
    /// The documents the dense document leg compares with the query: the first
    /// [`DENSE_CANDIDATES`] named ones, when the best document is named and so are others
    /// (with one, there is nothing to order).
    pub fn dense_candidates(&self) -> Vec<DocId> {
        if !self.hits.first().is_some_and(|h| h.named) {
            return Vec::new();
        }
        let named: Vec<DocId> =
            self.hits.iter().filter(|h| h.named).take(DENSE_CANDIDATES).map(|h| h.doc.clone()).collect();
        if named.len() < 2 {
            return Vec::new();
        }
        named
    }

    /// Blends each candidate's dense `similarity` (every candidate has one) into its score:
    /// `bm25 / best bm25 + weight × similarity / best similarity`, scaled so that the best
    /// blend keeps the best score; the other documents keep theirs. A document the BM25
    /// scores named first can so lose its place only to another named document.
    pub fn blend(&mut self, similarity: &HashMap<DocId, f32>, weight: f32) {
        let candidates = || self.hits.iter().filter(|h| similarity.contains_key(&h.doc));
        let best_bm25 = candidates().map(|h| h.score).fold(0.0, f32::max);
        let best_sim = similarity.values().copied().fold(0.0, f32::max);
        if best_bm25 <= 0.0 || best_sim <= 0.0 || weight <= 0.0 {
            return;
        }
        let blend = |h: &DocumentHit| h.score / best_bm25 + weight * similarity[&h.doc].max(0.0) / best_sim;
        let best_blend = candidates().map(blend).fold(0.0, f32::max);
        for hit in self.hits.iter_mut().filter(|h| similarity.contains_key(&h.doc)) {
            hit.score = best_bm25 * blend(hit) / best_blend;
        }
        self.hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.doc.cmp(&b.doc)));
    }

    /// The documents the query names (see the module doc): empty unless the best document's
    /// name matched, else the named documents within [`SHORTLIST`] of it, at most
    /// [`MAX_SHORTLIST`].
    pub fn shortlist(&self) -> &[DocumentHit] {
        let Some(best) = self.hits.first().filter(|h| h.named) else { return &[] };
        let n = self
            .hits
            .iter()
            .take(MAX_SHORTLIST)
            .take_while(|h| h.named && h.score >= SHORTLIST * best.score)
            .count();
        &self.hits[..n]
    }
}

static FISCAL_YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bFY\s?'?(\d{4}|\d{2})\b").expect("valid pattern"));
static YEAR_QUARTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:((?:19|20)\d{2})\s?Q([1-4])|Q([1-4])\s?((?:19|20)\d{2}))\b").expect("valid pattern")
});
static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b((?:19|20)\d{2})\b").expect("valid pattern"));
static CAPITALISED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Z][A-Za-z]*\b(?:\s+[A-Z][A-Za-z]*\b)*").expect("valid pattern"));

/// The terms of `query` the document leg searches (see the module doc).
pub fn query_terms(query: &str) -> Vec<String> {
    let mut years: Vec<u32> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    for c in FISCAL_YEAR.captures_iter(query) {
        let y: u32 = c[1].parse().unwrap_or(0);
        years.push(if y < 100 { 2000 + y } else { y });
    }
    for c in YEAR_QUARTER.captures_iter(query) {
        let (y, q) = match (c.get(1), c.get(2)) {
            (Some(y), Some(q)) => (y.as_str(), q.as_str()),
            _ => (&c[4], &c[3]),
        };
        years.push(y.parse().unwrap_or(0));
        extra.push(format!("q{q}"));
    }
    years.extend(YEAR.captures_iter(query).filter_map(|c| c[1].parse::<u32>().ok()));
    for run in CAPITALISED.find_iter(query) {
        let words: Vec<&str> = run.as_str().split_whitespace().collect();
        for n in 2..=3 {
            extra.extend(words.windows(n).map(|w| w.concat().to_lowercase()));
        }
    }
    let latest = years.iter().copied().max();
    let mut analyzer = en_stem();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let extra = extra.into_iter().flat_map(|e| terms(&mut analyzer, &e)).collect::<Vec<_>>();
    for term in terms(&mut analyzer, query).into_iter().chain(extra) {
        let stale = term_year(&term).is_some_and(|y| Some(y) != latest);
        if stale || STOP.contains(&term.as_str()) {
            continue;
        }
        if seen.insert(term.clone()) {
            out.push(term);
        }
    }
    if let Some(y) = latest {
        for term in [y.to_string(), format!("fy{y}")] {
            if seen.insert(term.clone()) {
                out.push(term);
            }
        }
    }
    out
}

/// The documents that hold each term, in any of `fields`.
fn holders(fields: &[&Field]) -> HashMap<String, Vec<u32>> {
    let mut docs: HashMap<&str, HashSet<u32>> = HashMap::new();
    for field in fields {
        for (term, postings) in &field.postings {
            docs.entry(term.as_str()).or_default().extend(postings.iter().map(|&(d, _)| d));
        }
    }
    docs.into_iter().map(|(t, d)| (t.to_string(), d.into_iter().collect())).collect()
}

/// The terms of a name that a query must hold to name it: stop words and corporate
/// suffixes dropped.
fn distinctive(analyzer: &mut TextAnalyzer, name: &str) -> Vec<String> {
    let mut out: Vec<String> = terms(analyzer, name)
        .into_iter()
        .filter(|t| !STOP.contains(&t.as_str()) && !SUFFIXES.contains(&t.as_str()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The year a query term names: `2018`, `fy2018` or `fy18`.
fn term_year(term: &str) -> Option<u32> {
    let (digits, fiscal) = match term.strip_prefix("fy") {
        Some(rest) => (rest, true),
        None => (term, false),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    match (digits.len(), fiscal) {
        (2, true) => Some(2000 + n),
        (4, _) if (1900..2100).contains(&n) => Some(n),
        _ => None,
    }
}

mod stage;
pub(crate) use stage::Stage;

#[cfg(test)]
mod tests;
