//! The fetch stage: the top fused chunks loaded from the store as hits.
//!
//! Twice `k` are fetched: merging and dedupe in the expand stage can fold hits together, and
//! the next ones (the reserve) fill the freed places.

use std::collections::HashMap;

use strata_core::{ChunkId, Result};
use strata_index::StoreRead;

use crate::expand;
use crate::fuse::{Fused, Leg};
use crate::response::SearchHit;

/// The first `k` fused chunks as hits, and the next `k` as the reserve. Each hit carries its
/// fused score, its legs and, in hierarchical mode, its section's rank (`section_rank`).
pub fn fetch(
    store: &dyn StoreRead,
    fused: &[Fused],
    section_rank: &HashMap<ChunkId, usize>,
    k: usize,
) -> Result<(Vec<SearchHit>, Vec<SearchHit>)> {
    let top: Vec<&Fused> = fused.iter().take(k * 2).collect();
    let ids: Vec<ChunkId> = top.iter().map(|f| f.chunk.clone()).collect();
    let chunks = store.chunks(&ids)?;
    let by_id: HashMap<&str, _> = chunks.iter().map(|c| (c.chunk.id.as_str(), c)).collect();
    let mut hits: Vec<SearchHit> = top
        .into_iter()
        .filter_map(|f| {
            let mut hit = expand::chunk_hit(by_id.get(f.chunk.as_str())?);
            hit.score = f.score;
            hit.legs = f.legs.clone();
            hit.document_rank = f.legs.get(&Leg::Document).map(|l| l.rank);
            hit.section_rank = section_rank.get(&f.chunk).copied();
            Some(hit)
        })
        .collect();
    let reserve = hits.split_off(hits.len().min(k));
    Ok((hits, reserve))
}
