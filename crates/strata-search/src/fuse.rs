//! The fuse stage: reciprocal rank fusion of the legs' ranked lists.
//!
//! [`Fusion`] is a trait so that other schemes can be tried; the default is [`Rrf`] with
//! k = 60 (Cormack et al. 2009), where a result's score is the weighted sum over the lists it
//! appears in of `weight / (k + rank)`, ranks counted from 1. Weights are honoured exactly:
//! a leg with weight 0 contributes nothing (not even its hits), a leg with weight 2 counts
//! twice.
//!
//! [`WeightedScore`] is the other scheme (RAGFlow's and Weaviate's relative score fusion):
//! each leg's own scores are min-max normalized to 0..=1 within its list, then summed with
//! the leg weights. It keeps how far apart a leg's results are, which ranks throw away, at
//! the price of trusting each leg's score scale. [`fusion`] picks one by its config name.
//!
//! After fusion, [`lift_documents`] adds the document leg's term to the chunks of the
//! documents the query names: `weight / (document_k + rank)` under RRF, with a small
//! `document_k` (10) so that they outrank the rest; `weight · score / best` under weighted
//! fusion.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use strata_core::config::{FusionKind, SearchConfig};
use strata_core::ChunkId;
use strata_index::LegHit;

use crate::documents::DocumentHit;

/// A retrieval leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Leg {
    /// BM25 over chunk text, headings and title.
    Keyword,
    /// Section numbers, defined terms and quoted phrases.
    Exact,
    /// Embeddings (added with the dense index).
    Dense,
    /// Not a chunk leg: the rank and score of the chunk's document among the documents the
    /// query names ([`crate::documents`]).
    Document,
    /// Not a chunk leg (hierarchical mode): the term the chunk's section adds, with rank 1
    /// when the query names the section or an ancestor by its heading, else the section's
    /// best rank among its document's sections in a section leg ([`crate::hierarchy`]).
    Section,
    /// Not a retrieval leg: the reranker's rank and score, for results it reordered.
    Rerank,
}

impl Leg {
    /// Lowercase name.
    pub fn name(&self) -> &'static str {
        match self {
            Leg::Keyword => "keyword",
            Leg::Exact => "exact",
            Leg::Dense => "dense",
            Leg::Document => "document",
            Leg::Section => "section",
            Leg::Rerank => "rerank",
        }
    }
}

/// One leg's ranked list and its weight.
#[derive(Debug, Clone)]
pub struct RankedList {
    /// Which leg.
    pub leg: Leg,
    /// Its weight in the fusion.
    pub weight: f64,
    /// Hits, best first.
    pub hits: Vec<LegHit>,
}

/// Where a result stood in one leg.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LegRank {
    /// Rank in the leg's list, from 1.
    pub rank: usize,
    /// The leg's own score (BM25, exact-match order, or inner product).
    pub score: f32,
}

/// One fused result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fused {
    /// Chunk id.
    pub chunk: ChunkId,
    /// Fused score.
    pub score: f64,
    /// Rank (from 1) and the leg's own score, in each leg that returned it.
    pub legs: BTreeMap<Leg, LegRank>,
}

/// Combines ranked lists into one.
pub trait Fusion {
    /// Fuses `lists` into one list, best first. Ties keep the order of first appearance.
    fn fuse(&self, lists: &[RankedList]) -> Vec<Fused>;

    /// What a chunk gains from its document standing `rank` (from 1) among the documents
    /// the query names, with `share` its score over the best document's (0..=1), at leg
    /// weight `weight`.
    fn document(&self, weight: f64, rank: usize, share: f64) -> f64;

    /// What a chunk gains from its section, at weight `weight`: a section standing `rank`
    /// (from 1) in a section leg's list among its document's sections (`share` 1), or named by
    /// the query with `share` of its heading (`rank` 1).
    fn section(&self, weight: f64, rank: usize, share: f64) -> f64;
}

/// Reciprocal rank fusion.
#[derive(Debug, Clone, Copy)]
pub struct Rrf {
    /// The rank constant; 60 by default.
    pub k: f64,
    /// The document leg's rank constant; 10 by default.
    pub document_k: f64,
}

impl Default for Rrf {
    fn default() -> Self {
        Rrf { k: 60.0, document_k: 10.0 }
    }
}

impl Fusion for Rrf {
    fn fuse(&self, lists: &[RankedList]) -> Vec<Fused> {
        accumulate(lists, |_, list, rank, _| list.weight / (self.k + rank as f64))
    }

    fn document(&self, weight: f64, rank: usize, _share: f64) -> f64 {
        weight / (self.document_k + rank as f64)
    }

    fn section(&self, weight: f64, rank: usize, share: f64) -> f64 {
        weight * share / (self.k + rank as f64)
    }
}

/// Relative score fusion: `Σ wᵢ · (sᵢ − minᵢ) / (maxᵢ − minᵢ)` over the lists a result is
/// in, with each list's own minimum and maximum score; a list whose scores are all equal
/// gives each of its results 1. Weights are honoured exactly, as in [`Rrf`].
#[derive(Debug, Clone, Copy, Default)]
pub struct WeightedScore;

impl Fusion for WeightedScore {
    fn fuse(&self, lists: &[RankedList]) -> Vec<Fused> {
        let ranges: Vec<(f32, f32)> = lists
            .iter()
            .map(|l| {
                l.hits.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
                    (lo.min(h.score), hi.max(h.score))
                })
            })
            .collect();
        accumulate(lists, |i, list, _, hit| {
            let (min, max) = ranges[i];
            let spread = (max - min) as f64;
            let normalized = if spread > 0.0 { (hit.score - min) as f64 / spread } else { 1.0 };
            list.weight * normalized
        })
    }

    fn document(&self, weight: f64, _rank: usize, share: f64) -> f64 {
        weight * share
    }

    fn section(&self, weight: f64, rank: usize, share: f64) -> f64 {
        weight * share / rank as f64
    }
}

/// Adds the document leg's term ([`document_lifts`]) to each chunk of a document the query
/// names, records the document's rank among the chunk's legs, and sorts again (ties keep
/// their order).
pub fn lift_documents(fused: &mut [Fused], lifts: &HashMap<&str, DocumentLift>) {
    if lifts.is_empty() {
        return;
    }
    for f in fused.iter_mut() {
        if let Some(lift) = lifts.get(f.chunk.doc()) {
            f.score += lift.term;
            f.legs.insert(Leg::Document, lift.rank);
        }
    }
    fused.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// What a document of the shortlist adds to each of its chunks, and its rank there.
#[derive(Debug, Clone, Copy)]
pub struct DocumentLift {
    /// The term added ([`Fusion::document`]).
    pub term: f64,
    /// Its rank (from 1) in the shortlist and its score.
    pub rank: LegRank,
}

/// The lift of each document in `shortlist`, by document id; none at weight 0. With
/// `evidence`, each document's weight is scaled by how firmly the query names it
/// ([`DocumentHit::evidence`]), unless `firm` (the query quotes a document's title).
pub fn document_lifts<'a>(
    fusion: &dyn Fusion,
    shortlist: &'a [DocumentHit],
    weight: f64,
    evidence: Evidence,
) -> HashMap<&'a str, DocumentLift> {
    let Some(best) = shortlist.first().filter(|_| weight > 0.0) else { return HashMap::new() };
    shortlist
        .iter()
        .enumerate()
        .map(|(i, hit)| {
            let share = f64::from(hit.score / best.score.max(f32::MIN_POSITIVE));
            let firmness = match evidence {
                Evidence::Read => f64::from(hit.evidence),
                Evidence::Firm | Evidence::Ignored => 1.0,
            };
            let term = fusion.document(weight * firmness, i + 1, share);
            (hit.doc.as_str(), DocumentLift { term, rank: LegRank { rank: i + 1, score: hit.score } })
        })
        .collect()
}

/// Whether a document's lift follows how firmly the query names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Evidence {
    /// Every named document lifts at full weight (`[search] name_evidence = "off"`).
    #[default]
    Ignored,
    /// Each at the weight of its evidence.
    Read,
    /// The query quotes a document's title: that is firm evidence.
    Firm,
}

/// What every fusion shares: each list with a positive weight adds `contribution(index of
/// the list, list, rank, hit)` (rank from 1) to each of its results, once per leg. Results
/// come best first, ties in order of first appearance (lists in the order given), so equal
/// scores always come out the same way.
fn accumulate(
    lists: &[RankedList],
    contribution: impl Fn(usize, &RankedList, usize, &LegHit) -> f64,
) -> Vec<Fused> {
    let mut order: Vec<Fused> = Vec::new();
    let mut at: HashMap<ChunkId, usize> = HashMap::new();
    for (l, list) in lists.iter().enumerate().filter(|(_, l)| l.weight > 0.0) {
        for (i, hit) in list.hits.iter().enumerate() {
            let idx = *at.entry(hit.chunk.clone()).or_insert_with(|| {
                order.push(Fused { chunk: hit.chunk.clone(), score: 0.0, legs: BTreeMap::new() });
                order.len() - 1
            });
            let f = &mut order[idx];
            if f.legs.contains_key(&list.leg) {
                continue;
            }
            f.legs.insert(list.leg, LegRank { rank: i + 1, score: hit.score });
            f.score += contribution(l, list, i + 1, hit);
        }
    }
    order.sort_by(|a, b| b.score.total_cmp(&a.score));
    order
}

/// The fusion `[search] fusion` names: `rrf` (with constants `rrf_k` and `document_k`) or
/// `weighted`.
pub fn fusion(config: &SearchConfig) -> std::sync::Arc<dyn Fusion + Send + Sync> {
    match config.fusion {
        FusionKind::Weighted => std::sync::Arc::new(WeightedScore),
        FusionKind::Rrf => std::sync::Arc::new(Rrf { k: config.rrf_k, document_k: config.document_k }),
    }
}

/// Moves the exact identifier hits to the front, in their exact-leg order, so that a query
/// naming a section returns that section first whatever BM25 thinks. Only the first `k`
/// pinned hits move; returns how many did.
pub fn pin_first(fused: &mut Vec<Fused>, pinned: &[ChunkId], k: usize) -> usize {
    if pinned.is_empty() {
        return 0;
    }
    let mut front = Vec::new();
    for id in pinned.iter().take(k) {
        if let Some(i) = fused.iter().position(|f| &f.chunk == id) {
            front.push(fused.remove(i));
        }
    }
    let count = front.len();
    front.append(fused);
    *fused = front;
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(leg: Leg, weight: f64, ids: &[&str]) -> RankedList {
        RankedList {
            leg,
            weight,
            hits: ids.iter().map(|&c| LegHit { chunk: c.into(), score: 1.0 }).collect(),
        }
    }

    #[test]
    fn rrf_sums_weighted_reciprocal_ranks() {
        let fused =
            Rrf::default().fuse(&[list(Leg::Keyword, 1.0, &["a", "b"]), list(Leg::Exact, 1.0, &["b", "c"])]);
        assert_eq!(fused[0].chunk.as_str(), "b");
        let b = 1.0 / 62.0 + 1.0 / 61.0;
        assert!((fused[0].score - b).abs() < 1e-12);
        assert_eq!(fused[0].legs[&Leg::Keyword].rank, 2);
        assert_eq!(fused[0].legs[&Leg::Exact].rank, 1);
    }

    #[test]
    fn weighted_score_normalizes_each_list() {
        let kw = RankedList {
            leg: Leg::Keyword,
            weight: 1.0,
            hits: vec![
                LegHit { chunk: "a".into(), score: 12.0 },
                LegHit { chunk: "b".into(), score: 11.0 },
                LegHit { chunk: "c".into(), score: 2.0 },
            ],
        };
        let dense = RankedList {
            leg: Leg::Dense,
            weight: 2.0,
            hits: vec![LegHit { chunk: "c".into(), score: 0.9 }, LegHit { chunk: "a".into(), score: 0.5 }],
        };
        let fused = WeightedScore.fuse(&[kw, dense]);
        let score = |id: &str| fused.iter().find(|f| f.chunk.as_str() == id).unwrap().score;
        assert!((score("a") - 1.0).abs() < 1e-9, "top keyword, bottom dense");
        assert!((score("b") - 0.9).abs() < 1e-6, "close to the top keyword score: {}", score("b"));
        assert!((score("c") - 2.0).abs() < 1e-9, "bottom keyword, top dense at weight 2");
        assert_eq!(fused[0].chunk.as_str(), "c");
        // One hit, or equal scores: each counts fully.
        let single = WeightedScore.fuse(&[list(Leg::Exact, 1.5, &["x", "y"])]);
        assert!(single.iter().all(|f| (f.score - 1.5).abs() < 1e-12));
    }

    #[test]
    fn a_named_document_lifts_its_chunks_above_the_rest() {
        use crate::documents::DocumentHit;
        let rrf = Rrf::default();
        let mut fused = rrf.fuse(&[list(Leg::Keyword, 1.0, &["a:1", "a:2", "b:1", "c:1"])]);
        let hit = |doc: &str, score| DocumentHit {
            doc: strata_core::DocId(doc.into()),
            score,
            named: true,
            evidence: 1.0,
        };
        let shortlist = [hit("c", 10.0), hit("b", 9.0)];
        let lifts = document_lifts(&rrf, &shortlist, 1.0, Evidence::Ignored);
        lift_documents(&mut fused, &lifts);
        let order: Vec<&str> = fused.iter().map(|f| f.chunk.as_str()).collect();
        assert_eq!(order, ["c:1", "b:1", "a:1", "a:2"], "named documents first, in their rank order");
        assert!((fused[0].score - (1.0 / 64.0 + 1.0 / 11.0)).abs() < 1e-12);
        assert_eq!(fused[1].legs[&Leg::Document].rank, 2);
        assert!(!fused[2].legs.contains_key(&Leg::Document));
        // Weight 0 lifts nothing.
        assert!(document_lifts(&rrf, &shortlist, 0.0, Evidence::Ignored).is_empty());
    }

    #[test]
    fn weights_are_honoured_exactly() {
        let fused = Rrf::default().fuse(&[list(Leg::Keyword, 0.0, &["a"]), list(Leg::Exact, 2.0, &["b"])]);
        assert_eq!(fused[0].chunk.as_str(), "b");
        assert!((fused[0].score - 2.0 / 61.0).abs() < 1e-12);
        assert_eq!(fused.len(), 1, "a leg with weight 0 contributes nothing, not even its hits");
    }
}
