//! The reranker: a second, slower look at the best fused results.
//!
//! A [`Reranker`] scores each (query, passage) pair on its own, reading both together, which
//! a bi-encoder and BM25 cannot: the search stage hands it the top N fused chunks (default
//! 50, `[rerank] candidates`) and orders them by its scores. The local cross-encoder lives in
//! `strata-embed`; the `/rerank` APIs and the listwise language-model reranker in
//! `strata-providers`.

use strata_core::Result;

/// Scores passages against a query.
pub trait Reranker: Send + Sync {
    /// Names the reranker and its model in results and reports (`cross-encoder:ms-marco-MiniLM-L-6-v2`).
    fn id(&self) -> &str;

    /// One score per passage, in input order; higher is more relevant. Scores of one call
    /// are comparable with each other only.
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>>;
}

/// The order `scores` put their items in: best first, ties in input order.
pub fn order(scores: &[f32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
}

#[cfg(test)]
mod tests {
    #[test]
    fn order_is_best_first_and_stable() {
        assert_eq!(super::order(&[0.1, 0.9, 0.1, f32::NAN, 0.5]), vec![3, 1, 4, 0, 2]);
        assert_eq!(super::order(&[]), Vec::<usize>::new());
    }
}
