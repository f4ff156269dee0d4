//! Ties between lexical scores. tantivy sums a query's term scores in an order that follows
//! the segment layout, so one chunk can score a few ulps apart in two ingests of the same
//! documents (its writer threads and background merges lay segments out differently each
//! time). Two scores closer than [`SCORE_TIE`] are therefore one tie, and ties are broken by
//! chunk id: the same documents give the same ranking however the index was written.

use crate::store::LegHit;

/// Relative difference under which two lexical scores are equal: far above the rounding
/// noise of an f32 sum of a few terms (about 1e-7), far below the gap between two BM25
/// scores that differ in any term frequency, field length or matched term.
pub const SCORE_TIE: f32 = 1e-5;

/// Whether `a` and `b` are one tie.
pub fn same_score(a: f32, b: f32) -> bool {
    (a - b).abs() <= SCORE_TIE * a.abs().max(b.abs())
}

/// Sorts lexical hits best first. A run of scores within [`SCORE_TIE`] of the run's best
/// is ordered by chunk id.
pub fn sort_lexical(hits: &mut [LegHit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk.cmp(&b.chunk)));
    let mut start = 0;
    while start < hits.len() {
        let best = hits[start].score;
        let end = start + hits[start..].iter().take_while(|h| same_score(best, h.score)).count();
        hits[start..end].sort_by(|a, b| a.chunk.cmp(&b.chunk));
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(chunk: &str, score: f32) -> LegHit {
        LegHit { chunk: chunk.into(), score }
    }

    fn order(hits: &[LegHit]) -> Vec<&str> {
        hits.iter().map(|h| h.chunk.as_str()).collect()
    }

    #[test]
    fn scores_one_ulp_apart_rank_by_chunk_id_whichever_is_higher() {
        let s = 7.25_f32;
        let up = f32::from_bits(s.to_bits() + 1);
        let mut a = vec![hit("b", up), hit("a", s), hit("c", 3.0)];
        let mut b = vec![hit("b", s), hit("a", up), hit("c", 3.0)];
        sort_lexical(&mut a);
        sort_lexical(&mut b);
        assert_eq!(order(&a), ["a", "b", "c"]);
        assert_eq!(order(&a), order(&b));
    }

    #[test]
    fn distinct_scores_keep_score_order() {
        let mut hits = vec![hit("a", 1.0), hit("b", 1.001), hit("c", 0.999)];
        sort_lexical(&mut hits);
        assert_eq!(order(&hits), ["b", "a", "c"]);
    }

    #[test]
    fn zero_scores_tie_only_with_zero() {
        assert!(same_score(0.0, 0.0));
        assert!(!same_score(0.0, 1e-30));
        assert!(same_score(-2.0, -2.000_001));
    }
}
