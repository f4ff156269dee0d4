//! `[search]`: the defaults of a search (mode, k, fusion, expansion, the context block).

use serde::{Deserialize, Serialize};

use super::names::named;
use crate::{Error, Result};

/// Largest `k` a search may ask for.
pub const MAX_K: usize = 100;

/// Largest context budget in tokens.
pub const MAX_BUDGET: usize = 1_000_000;

/// The search modes strata knows.
pub const MODES: &[&str] = Mode::NAMES;

/// The fusion schemes strata knows.
pub const FUSIONS: &[&str] = FusionKind::NAMES;

/// The orders of an assembled context.
pub const ORDERS: &[&str] = Order::NAMES;

named! {
    /// Search modes.
    pub enum Mode in "[search] mode" {
        /// BM25 only.
        Keyword = "keyword",
        /// Section numbers, defined terms and quoted phrases only.
        Exact = "exact",
        /// Keyword, exact and dense fused; exact hits first for identifier queries.
        Hybrid = "hybrid",
        /// Embeddings only (needs a dense index).
        Dense = "dense",
        /// Hybrid's chunks, each lifted by its document (when the query names it) and its
        /// section (when the query names its heading), at most a few per section, then their
        /// sentences.
        Hierarchical = "hierarchical",
    }
}

impl Mode {
    /// Parses a mode a request names (`--mode`, the API's `mode`); the error lists the valid
    /// ones.
    pub fn parse(s: &str) -> Result<Mode> {
        super::names::lookup(Mode::ALL, Mode::NAMES, s)
            .ok_or_else(|| Error::user(format!("unknown mode {s:?}; use one of {}", MODES.join(", "))))
    }

    /// True when the mode runs the exact leg.
    pub fn has_exact(self) -> bool {
        matches!(self, Mode::Exact | Mode::Hybrid | Mode::Hierarchical)
    }
}

named! {
    /// Order of the hits in the assembled context.
    #[derive(Default)]
    pub enum Order in "[search] order" {
        /// Grouped by document (documents by their best hit), in document order inside each.
        #[default]
        Position = "position",
        /// Best first.
        Score = "score",
    }
}

impl Order {
    /// Parses the order a request names (`position` or `score`).
    pub fn parse(s: &str) -> Result<Order> {
        super::names::lookup(Order::ALL, Order::NAMES, s)
            .ok_or_else(|| Error::user(format!("unknown order {s:?}; use position or score")))
    }
}

named! {
    /// How the legs' ranked lists are combined.
    pub enum FusionKind in "[search] fusion" {
        /// Reciprocal rank fusion (the default).
        Rrf = "rrf",
        /// Each leg's scores min-max normalized, then summed with the leg weights.
        Weighted = "weighted",
    }
}

named! {
    /// When the chunk legs leave out the words that name the query's documents
    /// (`[search] drop_names`).
    pub enum NameDrop in "[search] drop_names" {
        /// Never: every leg searches the whole query.
        Off = "off",
        /// When the query quotes a document's title (`title_phrases`): its words are all
        /// name. A company's or a party's name is kept, since a filing's statement pages and
        /// a contract's clauses repeat it.
        Titles = "titles",
        /// Whenever the query names documents (the documents stage's shortlist).
        All = "all",
    }
}

named! {
    /// Whether a document's lift follows how firmly the query names it
    /// (`[search] name_evidence`).
    pub enum NameEvidence in "[search] name_evidence" {
        /// Every document the query names lifts in full.
        Off = "off",
        /// A name is as firm as its least distinctive word: all its words must be rare
        /// across the documents' profiles.
        All = "all",
        /// A name is as firm as its most distinctive word: one rare word is enough.
        Any = "any",
    }
}

named! {
    /// Whether each chunk leg's weight follows how firmly its own list commits to its top
    /// results (`[search] leg_evidence`).
    pub enum LegEvidence in "[search] leg_evidence" {
        /// The leg weights as configured.
        Off = "off",
        /// Each of the keyword and dense legs weighed by the shape of its scores: how far
        /// its top results stand above the rest of its list, against the other leg's.
        Shape = "shape",
    }
}

named! {
    /// Whose headings a query can name (`[search] heading_scope`).
    pub enum HeadingScope in "[search] heading_scope" {
        /// Every candidate's document.
        All = "all",
        /// The documents the query names (the documents stage's shortlist), when the index
        /// holds several and the request does not filter to one; a query that names none
        /// names no heading.
        Named = "named",
        /// The documents the query names, and every candidate's document when the query
        /// names a heading of only one of them (a heading that no other candidate
        /// document shares is evidence of where to read; "Term" in every contract is not).
        Distinct = "distinct",
    }
}

/// `[search]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Results per query when `-k` is not given. Default 10.
    pub k: usize,
    /// Mode when `--mode` is not given. Default `hierarchical`: on the five shared sets
    /// within .021 of `hybrid` where it trails (cuad, qasper recall@10) and .058 recall@10
    /// ahead on long filings (`bench/results/eval/suite/README.md`).
    pub mode: Mode,
    /// Per-leg RRF weights.
    pub weights: LegWeights,
    /// RRF constant. Default 60.
    pub rrf_k: f64,
    /// The RRF constant of the document leg's term: a chunk of the document ranked `r` in
    /// the query's shortlist gains `weights.documents / (document_k + r)`. Small, so that
    /// the documents a query names outrank the rest. Default 10.
    pub document_k: f64,
    /// Hierarchical mode: chunks returned from one section at most (the chunks of a
    /// document without headings are not capped). Default 3.
    pub chunks_per_section: usize,
    /// Hierarchical mode: a section spanning more than this share of its document's text is
    /// not capped by `chunks_per_section`, as a document without headings is not: it says
    /// as little of where in the document the answer is. Between 0 and 1; 1 caps every
    /// section but the root. Default 0.5: contracts whose plain text has few headings
    /// gain .05 span recall@10 on cuad, filings .01 page recall@10.
    pub capped_span: f64,
    /// How the legs' lists are combined: `rrf` (reciprocal rank fusion, the default) or
    /// `weighted` (each leg's scores min-max normalized, then summed with the leg weights).
    pub fusion: FusionKind,
    /// Tokens of the assembled context block (`--budget`). Default 4000.
    pub budget: usize,
    /// Auto-merge: when at least this share of a section's chunks are hits, the section is
    /// returned whole in their place. 0 turns merging off. Default 0.5.
    pub auto_merge: f64,
    /// Sentences highlighted per hit. 0 turns highlights off. Default 3.
    pub highlights: usize,
    /// Score highlight sentences with the embedding model (dense, BM25 breaking near-ties)
    /// when the dense leg ran; false scores them with BM25 alone, which embeds nothing at
    /// query time. Default false: on the span gold of chroma-chunking and anthropic-codebase
    /// BM25's precision@3 is within 0.01 of dense's at 1 ms against 80 per search, and a
    /// two-core server answers 256 searches a second against 22
    /// (`bench/results/highlights/README.md`).
    pub dense_highlights: bool,
    /// Dense highlights: sentences embedded per search at most. Whole hits are scored in
    /// rank order while their sentences fit; the later hits' sentences are scored by BM25.
    /// Default 64.
    pub dense_highlight_sentences: usize,
    /// Order of the hits in the assembled context: `position` (grouped by document, in
    /// document order; the default) or `score`.
    pub order: Order,
    /// Attach the sections that hits refer to (one hop, within the budget). Default false.
    pub references: bool,
    /// Definitions attached to a search at most (`--definitions`): those of the terms the
    /// query names first, then those the most shown hits use. Unset (the default): as many
    /// as the hits shown, and never fewer than the terms the query names. The rest are named
    /// in the response (`more_definitions`) and `strata define` reads them.
    pub max_definitions: Option<usize>,
    /// Hybrid and hierarchical mode: a quoted phrase that is a document's own name (`In
    /// the paper "TITLE": …`) names the document for the documents stage and is not
    /// searched as a phrase, whose exact hits (the title's own chunk) would otherwise lead
    /// every question about it. Default true; with `drop_names = "titles"` it is what lifts
    /// qasper (below), and it fires on no question of the other four shared sets.
    pub title_phrases: bool,
    /// Hybrid and hierarchical mode: whether the lift of a document the query names follows
    /// how firmly it names it: the weight of the document leg is scaled by the
    /// distinctiveness of the name's words across the documents' profiles (a company or a
    /// party held by its own document alone lifts in full, a topic many documents' first
    /// pages use hardly), and a quoted title is firm: `off`, `all` (the default) or `any`
    /// ([`NameEvidence`]). `all` against `off` on the shared sets: cuad .499 / .220 to
    /// .501 / .220 (hybrid .507 to .516), the other four unchanged; it is meant for the
    /// questions that use a document's title as topic words (web pages, rulebooks)
    /// (`bench/results/eval/suite/README.md`).
    pub name_evidence: NameEvidence,
    /// Hybrid and hierarchical mode: whether the keyword and dense legs' weights follow how
    /// firmly each leg's list commits to its top results, per query: `off` (the default) or
    /// `shape` ([`LegEvidence`]). `shape` against `off` on the shared sets: code recall@10
    /// .842 to .852, chroma-chunking .905 to .920 (span recall@5 .832 to .849), qasper .627
    /// to .633, cuad unchanged, financebench page recall@10 .750 to .731 (one question of
    /// 52 from rank 10 to 11) with MRR@10 .597 to .617; off by default for that loss
    /// (`bench/results/eval/suite/README.md`).
    pub leg_evidence: LegEvidence,
    /// Hybrid and hierarchical mode: when the chunk legs and the named-heading lift leave
    /// out the words that name the query's documents, which say which document to read, not
    /// where in it the answer is (the document's lift still brings its chunks forward):
    /// `off`, `titles` (a quoted title, the default) or `all` (any name). On the shared sets
    /// `titles` lifts qasper's span recall@10 from .443 to .627 and leaves the other four
    /// unchanged; `all` costs contracts and filings, whose clauses and statement pages repeat
    /// the names (`bench/results/eval/suite/README.md`).
    pub drop_names: NameDrop,
    /// Hierarchical mode: a section the query names by its heading lifts its chunks only
    /// when it spans at most this share of its document's text; a heading over (nearly) the
    /// whole document, such as its title, says nothing of where in it the answer is.
    /// Between 0 and 1; 1 lifts every named section. Default 1.
    pub heading_span: f64,
    /// Hierarchical mode: whose headings the query can name: `all`, `named` (only the
    /// documents it names: across many documents of one kind every contract has a "Term"
    /// and every filing a "Cash Flows"; the default) or `distinct` (also any candidate's
    /// when only one candidate document has a heading the query names). `named` against
    /// `all`: cuad span recall@10 +.039, financebench-dev MRR@10 +.010, the other sets
    /// unchanged (`bench/results/eval/suite/README.md`).
    pub heading_scope: HeadingScope,
}

/// Most sentences a search may embed for dense highlights.
pub const MAX_DENSE_HIGHLIGHT_SENTENCES: usize = 512;

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            k: 10,
            mode: Mode::Hierarchical,
            weights: LegWeights::default(),
            rrf_k: 60.0,
            document_k: 10.0,
            chunks_per_section: 3,
            capped_span: 0.5,
            fusion: FusionKind::Rrf,
            budget: 4000,
            auto_merge: 0.5,
            highlights: 3,
            dense_highlights: false,
            dense_highlight_sentences: 64,
            order: Order::Position,
            references: false,
            max_definitions: None,
            title_phrases: true,
            name_evidence: NameEvidence::All,
            leg_evidence: LegEvidence::Off,
            drop_names: NameDrop::Titles,
            heading_span: 1.0,
            heading_scope: HeadingScope::Named,
        }
    }
}

/// `[search.weights]`: the weight of each leg in reciprocal rank fusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LegWeights {
    /// BM25 leg.
    pub keyword: f64,
    /// Exact leg.
    pub exact: f64,
    /// Dense leg.
    pub dense: f64,
    /// Hierarchical mode: the sections whose headings the query names lift their chunks
    /// (`bench/results/eval/README.md`). 0 turns it off. Default 1.
    pub headings: f64,
    /// Hierarchical mode: each section leg (BM25, and dense when the index has section
    /// vectors, over each section's heading path, lead text and children's titles), which
    /// lifts the chunks of the sections it ranks first within their document. Default 0
    /// (off): hierarchical mode is better without it on every shared evaluation set
    /// (`bench/results/eval/README.md`).
    pub sections: f64,
    /// Hybrid and hierarchical mode: the document leg, which ranks documents by their
    /// profiles (name, period, first pages) and lifts the chunks of the documents a query
    /// names. 0 turns it off. Default 1.
    pub documents: f64,
    /// Hybrid and hierarchical mode: how much the dense similarity between the query and
    /// the profile of each document it names (its root's vector) counts against their BM25
    /// scores when the document leg orders them. 0 turns it off. Default 0.
    pub documents_dense: f64,
}

impl Default for LegWeights {
    fn default() -> Self {
        LegWeights {
            keyword: 1.0,
            exact: 1.0,
            dense: 1.0,
            headings: 1.0,
            sections: 0.0,
            documents: 1.0,
            documents_dense: 0.0,
        }
    }
}

impl SearchConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |key: &str, rule: &str, got: String| {
            Err(Error::user(format!("search.{key} {rule}, got {got} ({origin})")))
        };
        let in_k = |key: &str, value: usize| match (1..=MAX_K).contains(&value) {
            true => Ok(()),
            false => bad(key, &format!("must be between 1 and {MAX_K}"), value.to_string()),
        };
        in_k("k", self.k)?;
        self.weights.validate(origin)?;
        in_k("chunks_per_section", self.chunks_per_section)?;
        if !(self.rrf_k.is_finite() && self.rrf_k > 0.0) {
            return bad("rrf_k", "must be > 0", self.rrf_k.to_string());
        }
        if !(self.document_k.is_finite() && self.document_k > 0.0) {
            return bad("document_k", "must be > 0", self.document_k.to_string());
        }
        if !(1..=MAX_BUDGET).contains(&self.budget) {
            return bad("budget", &format!("must be between 1 and {MAX_BUDGET}"), self.budget.to_string());
        }
        if !(self.auto_merge.is_finite() && (0.0..=1.0).contains(&self.auto_merge)) {
            return bad("auto_merge", "must be between 0 (off) and 1", self.auto_merge.to_string());
        }
        if !(self.capped_span.is_finite() && (0.0..=1.0).contains(&self.capped_span)) {
            return bad("capped_span", "must be between 0 and 1", self.capped_span.to_string());
        }
        if !(self.heading_span.is_finite() && (0.0..=1.0).contains(&self.heading_span)) {
            return bad("heading_span", "must be between 0 and 1", self.heading_span.to_string());
        }
        if self.highlights > 20 {
            return bad("highlights", "must be between 0 (off) and 20", self.highlights.to_string());
        }
        if self.dense_highlight_sentences > MAX_DENSE_HIGHLIGHT_SENTENCES {
            let most = MAX_DENSE_HIGHLIGHT_SENTENCES;
            let got = self.dense_highlight_sentences.to_string();
            return bad("dense_highlight_sentences", &format!("must be between 0 and {most}"), got);
        }
        Ok(())
    }
}

impl LegWeights {
    /// Checks every weight is a finite number >= 0.
    pub fn validate(&self, origin: &str) -> Result<()> {
        for (key, w) in [
            ("keyword", self.keyword),
            ("exact", self.exact),
            ("dense", self.dense),
            ("headings", self.headings),
            ("sections", self.sections),
            ("documents", self.documents),
            ("documents_dense", self.documents_dense),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(Error::user(format!(
                    "search.weights.{key} must be a finite number >= 0, got {w} ({origin})"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::names::tests::round_trips;

    #[test]
    fn names_round_trip() {
        round_trips(Mode::ALL, MODES, "[search] mode", Mode::name);
        round_trips(Order::ALL, ORDERS, "[search] order", Order::name);
        round_trips(FusionKind::ALL, FUSIONS, "[search] fusion", FusionKind::name);
        assert_eq!(MODES, ["keyword", "exact", "hybrid", "dense", "hierarchical"]);
        assert_eq!((FUSIONS, ORDERS), (&["rrf", "weighted"][..], &["position", "score"][..]));
    }

    #[test]
    fn requests_keep_their_own_messages() {
        assert_eq!(Mode::parse("dense").unwrap(), Mode::Dense);
        let err = Mode::parse("fuzzy").unwrap_err().to_string();
        assert_eq!(err, "unknown mode \"fuzzy\"; use one of keyword, exact, hybrid, dense, hierarchical");
        let err = Order::parse("date").unwrap_err().to_string();
        assert_eq!(err, "unknown order \"date\"; use position or score");
        assert_eq!(Order::default(), Order::Position);
    }
}
