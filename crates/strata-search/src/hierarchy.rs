//! Hierarchical mode, first level: sections ranked by the chunk evidence under them, then the
//! best chunks inside each.
//!
//! A chunk's section is the deepest heading above it (its own node), so sections never
//! overlap and no chunk is returned twice. For each leg, a section's rank is the rank of its
//! best chunk among the sections that leg found; sections are fused with the same weighted
//! RRF as chunks (`Σ wᵢ / (k + rankᵢ)`). Sections of pinned identifier hits come first, in pin
//! order, so a query that names a section still returns it first. Then the top `sections`
//! sections are returned in order, each with up to `per_section` of its chunks in fused order.
//!
//! Not yet: section-level legs of their own (BM25 and embeddings over heading paths and lead
//! text), sentence highlights, expansion and assembly.

use std::collections::{BTreeMap, HashMap};

use strata_core::{DocId, NodeId};

use crate::fuse::{Fused, RankedList};

/// A section: a document and one of its nodes.
pub type SectionKey = (DocId, NodeId);

/// A section picked by [`select`], with the chunks returned for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The section.
    pub key: SectionKey,
    /// Its fused section score.
    pub score: f64,
    /// Indexes into the fused chunk list, best first.
    pub chunks: Vec<usize>,
}

/// Ranks sections from the legs' chunk lists and returns the best `sections` of them with
/// up to `per_section` chunks each. `section_of` maps a chunk id to its section; chunks it
/// does not know are ignored.
pub fn select(
    lists: &[RankedList],
    fused: &[Fused],
    pinned: &[String],
    section_of: &HashMap<String, SectionKey>,
    rrf_k: f64,
    sections: usize,
    per_section: usize,
) -> Vec<Section> {
    let mut scores: BTreeMap<&SectionKey, f64> = BTreeMap::new();
    for list in lists.iter().filter(|l| l.weight > 0.0) {
        let mut rank = 0usize;
        let mut seen: Vec<&SectionKey> = Vec::new();
        for hit in &list.hits {
            let Some(key) = section_of.get(&hit.chunk) else { continue };
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            rank += 1;
            *scores.entry(key).or_insert(0.0) += list.weight / (rrf_k + rank as f64);
        }
    }
    let mut ranked: Vec<(&SectionKey, f64)> = scores.into_iter().collect();
    // Best score first; equal scores in document and node order (the map's order), so the
    // result does not depend on hash order.
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut order: Vec<(&SectionKey, f64)> = Vec::with_capacity(ranked.len());
    for id in pinned {
        if let Some(key) = section_of.get(id) {
            if let Some(i) = ranked.iter().position(|(k, _)| *k == key) {
                order.push(ranked.remove(i));
            }
        }
    }
    order.extend(ranked);
    order
        .into_iter()
        .take(sections)
        .map(|(key, score)| Section {
            key: key.clone(),
            score,
            chunks: fused
                .iter()
                .enumerate()
                .filter(|(_, f)| section_of.get(&f.chunk) == Some(key))
                .map(|(i, _)| i)
                .take(per_section)
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuse::{Fusion, Leg, Rrf};
    use strata_index::LegHit;

    fn list(leg: Leg, ids: &[&str]) -> RankedList {
        RankedList {
            leg,
            weight: 1.0,
            hits: ids.iter().map(|id| LegHit { chunk: id.to_string(), score: 1.0 }).collect(),
        }
    }

    fn sections() -> HashMap<String, SectionKey> {
        // a1, a2, a3 in section A; b1, b2 in B; c1 in C.
        [("a1", 1), ("a2", 1), ("a3", 1), ("b1", 2), ("b2", 2), ("c1", 3)]
            .into_iter()
            .map(|(id, n)| (id.to_string(), (DocId("d".into()), NodeId(n))))
            .collect()
    }

    #[test]
    fn sections_rank_by_their_best_chunk_per_leg() {
        // Keyword: b1 first; dense: a2 first, b2 second. A: 1/61 + 1/62 (ranks 2 and 1);
        // B: 1/61 + 1/62 (ranks 1 and 2) — a tie broken by node order; C only in keyword.
        let lists = [list(Leg::Keyword, &["b1", "a1", "c1"]), list(Leg::Dense, &["a2", "b2", "a3"])];
        let fused = Rrf { k: 60.0 }.fuse(&lists);
        let picked = select(&lists, &fused, &[], &sections(), 60.0, 2, 2);
        assert_eq!(picked.iter().map(|s| s.key.1 .0).collect::<Vec<_>>(), vec![1, 2]);
        // A's chunks in fused order, at most two; B's both.
        let ids = |s: &Section| s.chunks.iter().map(|&i| fused[i].chunk.as_str()).collect::<Vec<_>>();
        assert_eq!(ids(&picked[0]).len(), 2);
        assert!(ids(&picked[0]).iter().all(|c| c.starts_with('a')));
        assert_eq!(ids(&picked[1]), vec!["b1", "b2"]);
    }

    #[test]
    fn pinned_sections_come_first_and_zero_weight_legs_count_nothing() {
        let mut dense = list(Leg::Dense, &["c1"]);
        dense.weight = 0.0;
        let lists = [list(Leg::Keyword, &["a1", "b1", "c1"]), dense];
        let fused = Rrf { k: 60.0 }.fuse(&lists);
        let picked = select(&lists, &fused, &["c1".to_string()], &sections(), 60.0, 3, 5);
        assert_eq!(picked.iter().map(|s| s.key.1 .0).collect::<Vec<_>>(), vec![3, 1, 2]);
        // Chunks the map does not know are ignored.
        let picked = select(&[list(Leg::Keyword, &["zz", "b2"])], &fused, &[], &sections(), 60.0, 3, 5);
        assert_eq!(picked.len(), 1);
    }
}
