//! The legs weighed by their own evidence (`[search] leg_evidence`): the first step of the
//! fuse stage, before the lists are fused.
//!
//! Reciprocal rank fusion counts a leg's first ranks alike whether the leg found a few
//! results far above the rest or a flat run of near-equal scores. `shape` reads, per query,
//! how firmly each of the keyword and dense lists commits to its top: the drop from its best
//! score to its tenth, as a share of the drop to its last (a number between 0 and 1 that no
//! score scale enters). The two legs' weights are then scaled by their commitment over the
//! two legs' mean, so that their sum stays as configured.

use strata_core::config::LegEvidence;
use strata_index::LegHit;

use crate::fuse::{Leg, RankedList};

/// The rank (from 1) whose score marks a leg's top.
const TOP: usize = 10;

/// Scales the keyword and dense lists' weights in `lists` by `evidence`; a list too short
/// to have a shape, or a query where only one leg has one, keeps its weights.
pub fn weigh(lists: &mut [RankedList], evidence: LegEvidence) {
    if evidence == LegEvidence::Off {
        return;
    }
    let weighed = |l: &RankedList| matches!(l.leg, Leg::Keyword | Leg::Dense) && l.weight > 0.0;
    let shapes: Vec<(usize, f64)> = lists
        .iter()
        .enumerate()
        .filter(|(_, l)| weighed(l))
        .filter_map(|(i, l)| commitment(&l.hits, TOP).map(|c| (i, c)))
        .collect();
    if shapes.len() < 2 {
        return;
    }
    let mean = shapes.iter().map(|(_, c)| c).sum::<f64>() / shapes.len() as f64;
    if mean <= 0.0 {
        return;
    }
    for (i, c) in shapes {
        lists[i].weight *= c / mean;
    }
}

/// How firmly `hits` (best first) commit to their top `top`: the drop from the first score
/// to the `top`-th over the drop to the last, 0 to 1; `None` for fewer than `top + 1` hits
/// or a list of equal scores.
fn commitment(hits: &[LegHit], top: usize) -> Option<f64> {
    if hits.len() <= top {
        return None;
    }
    let first = f64::from(hits[0].score);
    let at = f64::from(hits[top - 1].score);
    let last = f64::from(hits[hits.len() - 1].score);
    let span = first - last;
    (span > 0.0 && span.is_finite()).then(|| ((first - at) / span).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(leg: Leg, scores: &[f32]) -> RankedList {
        let hits =
            scores.iter().enumerate().map(|(i, &s)| LegHit { chunk: format!("d:{i}").into(), score: s });
        RankedList { leg, weight: 1.0, hits: hits.collect() }
    }

    /// Scores falling by `steep` over the first ten, then by 0.01 a rank to the 40th.
    fn scores(first: f32, steep: f32) -> Vec<f32> {
        (0..40)
            .map(|i| if i < 10 { first - steep * i as f32 } else { first - steep * 9.0 - 0.01 * i as f32 })
            .collect()
    }

    #[test]
    fn the_leg_whose_top_stands_out_gains_weight_and_the_sum_stays() {
        let mut lists = vec![
            list(Leg::Keyword, &scores(20.0, 1.0)),
            list(Leg::Exact, &[]),
            list(Leg::Dense, &scores(0.7, 0.001)),
        ];
        weigh(&mut lists, LegEvidence::Shape);
        assert!(lists[0].weight > 1.5, "keyword {}", lists[0].weight);
        assert!(lists[2].weight < 0.5, "dense {}", lists[2].weight);
        assert!((lists[0].weight + lists[2].weight - 2.0).abs() < 1e-9);
        assert_eq!(lists[1].weight, 1.0, "the exact leg keeps its weight");
    }

    #[test]
    fn off_short_lists_and_flat_lists_keep_their_weights() {
        let mut lists = vec![list(Leg::Keyword, &scores(20.0, 1.0)), list(Leg::Dense, &scores(0.7, 0.001))];
        weigh(&mut lists, LegEvidence::Off);
        assert_eq!((lists[0].weight, lists[1].weight), (1.0, 1.0));
        let mut lists = vec![list(Leg::Keyword, &scores(20.0, 1.0)), list(Leg::Dense, &[0.5; 5])];
        weigh(&mut lists, LegEvidence::Shape);
        assert_eq!((lists[0].weight, lists[1].weight), (1.0, 1.0));
        let mut lists = vec![list(Leg::Keyword, &scores(20.0, 1.0)), list(Leg::Dense, &[0.5; 40])];
        weigh(&mut lists, LegEvidence::Shape);
        assert_eq!((lists[0].weight, lists[1].weight), (1.0, 1.0));
    }
}
