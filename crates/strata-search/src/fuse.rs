//! The fuse stage: reciprocal rank fusion of the legs' ranked lists.
//!
//! [`Fusion`] is a trait so that other schemes can be tried; the default is [`Rrf`] with
//! k = 60 (Cormack et al. 2009), where a result's score is the weighted sum over the lists it
//! appears in of `weight / (k + rank)`, ranks counted from 1. Weights are honoured exactly:
//! a leg with weight 0 contributes nothing (not even its hits), a leg with weight 2 counts
//! twice.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use strata_index::LegHit;

/// A retrieval leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Leg {
    /// BM25 over chunk text, headings and title.
    Keyword,
    /// Section numbers, defined terms and quoted phrases.
    Exact,
    /// Embeddings (added with the dense index).
    Dense,
}

impl Leg {
    /// Lowercase name.
    pub fn name(&self) -> &'static str {
        match self {
            Leg::Keyword => "keyword",
            Leg::Exact => "exact",
            Leg::Dense => "dense",
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
    pub chunk: String,
    /// Fused score.
    pub score: f64,
    /// Rank (from 1) and the leg's own score, in each leg that returned it.
    pub legs: BTreeMap<Leg, LegRank>,
}

/// Combines ranked lists into one.
pub trait Fusion {
    /// Fuses `lists` into one list, best first. Ties keep the order of first appearance.
    fn fuse(&self, lists: &[RankedList]) -> Vec<Fused>;
}

/// Reciprocal rank fusion.
#[derive(Debug, Clone, Copy)]
pub struct Rrf {
    /// The rank constant; 60 by default.
    pub k: f64,
}

impl Default for Rrf {
    fn default() -> Self {
        Rrf { k: 60.0 }
    }
}

impl Fusion for Rrf {
    fn fuse(&self, lists: &[RankedList]) -> Vec<Fused> {
        let mut order: Vec<Fused> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for list in lists.iter().filter(|l| l.weight > 0.0) {
            for (i, hit) in list.hits.iter().enumerate() {
                let rank = i + 1;
                let idx = *at.entry(hit.chunk.clone()).or_insert_with(|| {
                    order.push(Fused { chunk: hit.chunk.clone(), score: 0.0, legs: BTreeMap::new() });
                    order.len() - 1
                });
                let f = &mut order[idx];
                if f.legs.contains_key(&list.leg) {
                    continue;
                }
                f.legs.insert(list.leg, LegRank { rank, score: hit.score });
                f.score += list.weight / (self.k + rank as f64);
            }
        }
        // Stable sort keeps first-appearance order on ties (lists in the order given), so
        // equal scores always come out the same way.
        order.sort_by(|a, b| b.score.total_cmp(&a.score));
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(leg: Leg, weight: f64, ids: &[&str]) -> RankedList {
        RankedList {
            leg,
            weight,
            hits: ids.iter().map(|c| LegHit { chunk: c.to_string(), score: 1.0 }).collect(),
        }
    }

    #[test]
    fn rrf_sums_weighted_reciprocal_ranks() {
        let fused =
            Rrf::default().fuse(&[list(Leg::Keyword, 1.0, &["a", "b"]), list(Leg::Exact, 1.0, &["b", "c"])]);
        assert_eq!(fused[0].chunk, "b");
        let b = 1.0 / 62.0 + 1.0 / 61.0;
        assert!((fused[0].score - b).abs() < 1e-12);
        assert_eq!(fused[0].legs[&Leg::Keyword].rank, 2);
        assert_eq!(fused[0].legs[&Leg::Exact].rank, 1);
    }

    #[test]
    fn weights_are_honoured_exactly() {
        let fused = Rrf::default().fuse(&[list(Leg::Keyword, 0.0, &["a"]), list(Leg::Exact, 2.0, &["b"])]);
        assert_eq!(fused[0].chunk, "b");
        assert!((fused[0].score - 2.0 / 61.0).abs() < 1e-12);
        assert_eq!(fused.len(), 1, "a leg with weight 0 contributes nothing, not even its hits");
    }
}
