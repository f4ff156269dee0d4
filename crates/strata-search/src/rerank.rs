//! The rerank stage: the top fused candidates, read again by a [`Reranker`] that sees query
//! and passage together, and put in its order.
//!
//! - The candidates are the first `candidates` fused chunks (default 50) after the pinned
//!   identifier hits, which stay first: an exact section-number match is what such a query
//!   asked for, whatever a model thinks of its text.
//! - The reranker reads each chunk as the legs indexed it: its context line, when it has
//!   one, then its own text.
//! - A reranked chunk's score becomes the reranker's, and its legs gain a `rerank` entry
//!   (rank and score); the chunks past the candidates keep their fused order behind them.
//! - A reranker that fails (an API down, a model answer that does not parse) leaves the fused
//!   order as it was, and the response says so in `warnings`.

use std::collections::HashMap;

use strata_core::{ChunkId, Result};
use strata_index::StoreRead;
use strata_model::rerank::{order, Reranker};

use crate::fuse::{Fused, Leg, LegRank};

/// Reorders `fused[pinned..pinned + candidates]` by `reranker`'s scores for `query`.
pub fn rerank(
    store: &dyn StoreRead,
    reranker: &dyn Reranker,
    candidates: usize,
    query: &str,
    fused: &mut [Fused],
    pinned: usize,
) -> Result<()> {
    let pinned = pinned.min(fused.len());
    let end = (pinned + candidates).min(fused.len());
    let window = &mut fused[pinned..end];
    if window.len() < 2 {
        return Ok(());
    }
    let ids: Vec<ChunkId> = window.iter().map(|f| f.chunk.clone()).collect();
    let stored = store.chunks(&ids)?;
    let texts: HashMap<&str, String> = stored
        .iter()
        .map(|c| {
            let text = match &c.chunk.context {
                Some(context) => format!("{context}\n{}", c.text),
                None => c.text.clone(),
            };
            (c.chunk.id.as_str(), text)
        })
        .collect();
    let passages: Vec<&str> =
        ids.iter().map(|id| texts.get(id.as_str()).map_or("", String::as_str)).collect();
    let scores = reranker.score(query, &passages)?;
    if scores.len() != passages.len() {
        return Err(strata_core::Error::Internal(format!(
            "reranker {} returned {} scores for {} passages",
            reranker.id(),
            scores.len(),
            passages.len()
        )));
    }
    let mut reordered: Vec<Fused> = Vec::with_capacity(window.len());
    for (rank, i) in order(&scores).into_iter().enumerate() {
        let mut f = window[i].clone();
        f.score = scores[i] as f64;
        f.legs.insert(Leg::Rerank, LegRank { rank: rank + 1, score: scores[i] });
        reordered.push(f);
    }
    window.clone_from_slice(&reordered);
    Ok(())
}
