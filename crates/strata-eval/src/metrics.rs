//! Retrieval metrics, as pure functions of a judged ranking.
//!
//! A query has gold items (with grades) and a ranked list of hits; each hit is judged by
//! the set of gold items it matches (a chunk can overlap two gold spans; two chunks can
//! overlap one). With `n` gold items and the top `k` positions:
//!
//! - **recall@k**: gold items matched by some hit in the top k, over `n` (the Anthropic
//!   cookbook's "Pass@k");
//! - **precision@k**: positions in the top k that match any gold item, over k;
//! - **MRR@k**: 1 / the first matching position, 0 when none is in the top k;
//! - **nDCG@k**: a position gains the grades of the gold items it is the *first* to match
//!   (a later hit on an already found item gains nothing), discounted by `log2(rank + 1)`,
//!   over the ideal DCG of the grades sorted high to low; capped at 1, which only a hit that
//!   matches several gold items at once could exceed;
//! - **hit@k**: 1 when any gold item is matched in the top k.
//!
//! Queries without gold are not scored (`None`); the report counts them. Exact duplicate hits
//! are removed before judging ([`dedupe`]), and runs of equal scores are put in a fixed order
//! ([`break_ties`]), so numbers do not depend on how an engine orders ties.
//!
//! Span metrics follow Chroma's chunking evaluation: characters of gold spans covered by the
//! retrieved chunks, over all gold characters (recall), over all retrieved characters
//! (precision), and over retrieved plus uncovered gold characters (IoU).

use serde::Serialize;

/// The cut-offs every report shows.
pub const KS: [usize; 5] = [1, 3, 5, 10, 20];

/// A query's gold grades and, per ranked position, the gold items that hit matches.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    /// Grade of each gold item (all > 0).
    pub grades: Vec<f64>,
    /// For each position, best first: indexes into `grades` of the items it matches.
    pub ranked: Vec<Vec<usize>>,
}

/// The rank metrics of one query at one cut-off.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct RankScores {
    /// Share of gold items found.
    pub recall: f64,
    /// Share of positions that match.
    pub precision: f64,
    /// Reciprocal rank of the first match.
    pub mrr: f64,
    /// Normalized discounted cumulative gain.
    pub ndcg: f64,
    /// Whether anything matched (0 or 1).
    pub hit: f64,
}

impl Judged {
    /// Metrics at `k`, or `None` when the query has no gold (or `k` is 0).
    pub fn at(&self, k: usize) -> Option<RankScores> {
        let n = self.grades.len();
        if n == 0 || k == 0 {
            return None;
        }
        let top = &self.ranked[..k.min(self.ranked.len())];
        let mut found = vec![false; n];
        let (mut relevant, mut dcg, mut first) = (0usize, 0.0f64, None);
        for (i, matched) in top.iter().enumerate() {
            if matched.is_empty() {
                continue;
            }
            relevant += 1;
            first.get_or_insert(i);
            let mut gain = 0.0;
            for &g in matched {
                if !std::mem::replace(&mut found[g], true) {
                    gain += self.grades[g];
                }
            }
            dcg += gain / ((i + 2) as f64).log2();
        }
        let mut ideal: Vec<f64> = self.grades.clone();
        ideal.sort_by(|a, b| b.total_cmp(a));
        let idcg: f64 = ideal.iter().take(k).enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum();
        Some(RankScores {
            recall: found.iter().filter(|f| **f).count() as f64 / n as f64,
            precision: relevant as f64 / k as f64,
            mrr: first.map_or(0.0, |i| 1.0 / (i + 1) as f64),
            ndcg: if idcg > 0.0 { (dcg / idcg).min(1.0) } else { 0.0 },
            hit: if first.is_some() { 1.0 } else { 0.0 },
        })
    }
}

/// Share of `items` matched within the top `k` positions of `ranked` (each position lists
/// the items it matches), or `None` when there are no items. Used for section and page
/// recall, whose items are gold sections and gold pages.
pub fn coverage_at(items: usize, ranked: &[Vec<usize>], k: usize) -> Option<f64> {
    if items == 0 {
        return None;
    }
    let mut found = vec![false; items];
    for matched in ranked.iter().take(k) {
        for &i in matched {
            found[i] = true;
        }
    }
    Some(found.iter().filter(|f| **f).count() as f64 / items as f64)
}

/// Keeps the first occurrence of each key, in order.
pub fn dedupe<T, K: Eq + std::hash::Hash>(items: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|item| seen.insert(key(item))).collect()
}

/// Orders each run of adjacent equal scores by key, leaving everything else in place (an
/// engine may put pinned hits before higher scores; that order is kept).
pub fn break_ties<T, K: Ord>(items: &mut [T], score: impl Fn(&T) -> f64, key: impl Fn(&T) -> K) {
    let mut start = 0;
    while start < items.len() {
        let s = score(&items[start]);
        let mut end = start + 1;
        while end < items.len() && score(&items[end]) == s {
            end += 1;
        }
        items[start..end].sort_by_key(|item| key(item));
        start = end;
    }
}

/// A half-open character range in one document (documents numbered by the caller).
pub type DocRange = (usize, u64, u64);

/// Chroma's span metrics for one query.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SpanScores {
    /// Covered gold characters over all gold characters.
    pub recall: f64,
    /// Covered gold characters over all retrieved characters.
    pub precision: f64,
    /// Covered gold characters over retrieved plus uncovered gold characters.
    pub iou: f64,
}

/// Span metrics of retrieved ranges against gold ranges, or `None` without gold. As in
/// Chroma's evaluation, retrieved lengths are summed (overlapping chunks count twice) and
/// gold lengths are summed per reference.
pub fn span_scores(gold: &[DocRange], retrieved: &[DocRange]) -> Option<SpanScores> {
    let gold_total: u64 = gold.iter().map(|&(_, s, e)| e - s).sum();
    if gold_total == 0 {
        return None;
    }
    let retrieved_total: u64 = retrieved.iter().map(|&(_, s, e)| e - s).sum();
    let mut intersections: Vec<DocRange> = Vec::new();
    for &(gd, gs, ge) in gold {
        for &(rd, rs, re) in retrieved {
            if gd == rd && rs.max(gs) < re.min(ge) {
                intersections.push((gd, rs.max(gs), re.min(ge)));
            }
        }
    }
    let covered = union_len(&mut intersections);
    let uncovered: u64 = gold
        .iter()
        .map(|&(gd, gs, ge)| {
            let mut hits: Vec<DocRange> = intersections
                .iter()
                .filter(|&&(d, s, e)| d == gd && s < ge && e > gs)
                .map(|&(d, s, e)| (d, s.max(gs), e.min(ge)))
                .collect();
            (ge - gs) - union_len(&mut hits)
        })
        .sum();
    Some(SpanScores {
        recall: covered as f64 / gold_total as f64,
        precision: if retrieved_total > 0 { covered as f64 / retrieved_total as f64 } else { 0.0 },
        iou: covered as f64 / (retrieved_total + uncovered) as f64,
    })
}

/// Length of the union of ranges (sorted in place).
fn union_len(ranges: &mut [DocRange]) -> u64 {
    ranges.sort_unstable();
    let mut total = 0;
    let mut current: Option<DocRange> = None;
    for &(d, s, e) in ranges.iter() {
        match current {
            Some((cd, cs, ce)) if cd == d && s <= ce => current = Some((cd, cs, ce.max(e))),
            _ => {
                if let Some((_, cs, ce)) = current {
                    total += ce - cs;
                }
                current = Some((d, s, e));
            }
        }
    }
    total + current.map_or(0, |(_, s, e)| e - s)
}

/// Latency percentiles, nearest-rank.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean.
    pub mean: f64,
}

impl Percentiles {
    /// Percentiles of `values` (any order), or `None` when empty.
    pub fn of(values: &[f64]) -> Option<Percentiles> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at =
            |p: f64| sorted[((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        Some(Percentiles {
            p50: at(50.0),
            p95: at(95.0),
            p99: at(99.0),
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        })
    }
}

/// Mean of the values that exist, and how many there were.
pub fn mean(values: impl IntoIterator<Item = Option<f64>>) -> (f64, usize) {
    let (sum, n) = values.into_iter().flatten().fold((0.0, 0), |(s, n), v| (s + v, n + 1));
    (if n == 0 { 0.0 } else { sum / n as f64 }, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    /// Gold {A, B}, binary. Ranking: miss, A, miss, B, miss.
    fn two_gold() -> Judged {
        Judged { grades: vec![1.0, 1.0], ranked: vec![vec![], vec![0], vec![], vec![1], vec![]] }
    }

    #[test]
    fn hand_computed_ranking() {
        let j = two_gold();
        let at1 = j.at(1).unwrap();
        assert_eq!(at1, RankScores { recall: 0.0, precision: 0.0, mrr: 0.0, ndcg: 0.0, hit: 0.0 });
        let at3 = j.at(3).unwrap();
        close(at3.recall, 0.5);
        close(at3.precision, 1.0 / 3.0);
        close(at3.mrr, 0.5);
        // DCG = 1/log2(3); IDCG = 1 + 1/log2(3).
        close(at3.ndcg, (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2()));
        close(at3.hit, 1.0);
        let at5 = j.at(5).unwrap();
        close(at5.recall, 1.0);
        close(at5.precision, 2.0 / 5.0);
        // DCG = 1/log2(3) + 1/log2(5).
        close(at5.ndcg, (1.0 / 3f64.log2() + 1.0 / 5f64.log2()) / (1.0 + 1.0 / 3f64.log2()));
        // k past the list: precision still divides by k, as BEIR does.
        close(j.at(10).unwrap().precision, 2.0 / 10.0);
    }

    #[test]
    fn empty_gold_is_not_scored() {
        let j = Judged { grades: vec![], ranked: vec![vec![], vec![]] };
        assert_eq!(j.at(5), None);
        assert_eq!(coverage_at(0, &j.ranked, 5), None);
        assert_eq!(span_scores(&[], &[(0, 0, 10)]), None);
        assert_eq!(mean([None, Some(1.0), Some(0.0), None]), (0.5, 2));
        assert_eq!(mean([None]), (0.0, 0));
    }

    #[test]
    fn empty_ranking_scores_zero() {
        let j = Judged { grades: vec![1.0], ranked: vec![] };
        assert_eq!(j.at(5), Some(RankScores::default()));
    }

    #[test]
    fn duplicate_hits_on_one_gold_item_count_once_for_recall_and_gain() {
        // Two different chunks overlap gold item 0; gold item 1 is never found.
        let j = Judged { grades: vec![1.0, 1.0], ranked: vec![vec![0], vec![0]] };
        let s = j.at(2).unwrap();
        close(s.recall, 0.5);
        close(s.precision, 1.0); // both positions are relevant chunks
        close(s.ndcg, 1.0 / (1.0 + 1.0 / 3f64.log2())); // the second gains nothing
                                                        // Exact duplicates (the same chunk twice) are removed before judging.
        let hits = dedupe(vec!["a", "b", "a", "c", "b"], |h| *h);
        assert_eq!(hits, vec!["a", "b", "c"]);
    }

    #[test]
    fn graded_ndcg() {
        // Gold grades 2 and 1; the ranking finds the grade-1 item first.
        let j = Judged { grades: vec![2.0, 1.0], ranked: vec![vec![1], vec![0]] };
        let dcg = 1.0 + 2.0 / 3f64.log2();
        let idcg = 2.0 + 1.0 / 3f64.log2();
        close(j.at(2).unwrap().ndcg, dcg / idcg);
        // One hit matching both gold items at rank 1 is perfect, not more.
        let both = Judged { grades: vec![1.0, 1.0], ranked: vec![vec![0, 1]] };
        close(both.at(5).unwrap().ndcg, 1.0);
        close(both.at(5).unwrap().recall, 1.0);
    }

    #[test]
    fn ties_are_ordered_by_key_within_equal_scores_only() {
        // A pinned hit (score 0.1) stays first; the tie at 0.5 is ordered by key.
        let mut hits = vec![("pinned", 0.1), ("z", 0.5), ("a", 0.5), ("m", 0.3), ("b", 0.3)];
        break_ties(&mut hits, |h| h.1, |h| h.0);
        assert_eq!(hits, vec![("pinned", 0.1), ("a", 0.5), ("z", 0.5), ("b", 0.3), ("m", 0.3)]);
        // Whatever order the engine gave the tie in, the judged ranking is the same.
        let mut other = vec![("pinned", 0.1), ("a", 0.5), ("z", 0.5), ("b", 0.3), ("m", 0.3)];
        break_ties(&mut other, |h| h.1, |h| h.0);
        assert_eq!(hits, other);
    }

    #[test]
    fn coverage_counts_items_once() {
        let ranked = vec![vec![0], vec![0, 1], vec![2]];
        close(coverage_at(4, &ranked, 1).unwrap(), 0.25);
        close(coverage_at(4, &ranked, 2).unwrap(), 0.5);
        close(coverage_at(4, &ranked, 20).unwrap(), 0.75);
    }

    #[test]
    fn span_scores_match_chroma_by_hand() {
        // Gold: 100..200 and 300..350 in doc 0 (150 chars).
        let gold = [(0, 100, 200), (0, 300, 350)];
        // Retrieved: 150..250 (covers 50), 320..420 (covers 30), 0..100 in doc 1 (covers 0).
        let retrieved = [(0, 150, 250), (0, 320, 420), (1, 0, 100)];
        let s = span_scores(&gold, &retrieved).unwrap();
        close(s.recall, 80.0 / 150.0);
        close(s.precision, 80.0 / 300.0);
        // IoU: 80 / (300 retrieved + 70 uncovered gold).
        close(s.iou, 80.0 / 370.0);
        // Overlapping retrieved chunks: the covered part counts once, the lengths twice.
        let s = span_scores(&[(0, 0, 100)], &[(0, 0, 60), (0, 40, 100)]).unwrap();
        close(s.recall, 1.0);
        close(s.precision, 100.0 / 120.0);
        close(s.iou, 100.0 / 120.0);
        // Nothing retrieved.
        let s = span_scores(&[(0, 0, 100)], &[]).unwrap();
        assert_eq!(s, SpanScores { recall: 0.0, precision: 0.0, iou: 0.0 });
    }

    #[test]
    fn percentiles_nearest_rank() {
        let values: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = Percentiles::of(&values).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (50.0, 95.0, 99.0));
        close(p.mean, 50.5);
        let one = Percentiles::of(&[7.0]).unwrap();
        assert_eq!((one.p50, one.p99), (7.0, 7.0));
        assert_eq!(Percentiles::of(&[]), None);
    }
}
