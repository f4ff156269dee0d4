//! Hierarchical mode: sections first, then the chunks inside them.
//!
//! Sections are ranked with the same weighted fusion as chunks (`Σ wᵢ / (k + rankᵢ)`) over
//! two kinds of lists:
//!
//! - **section legs**: lists of sections found directly, by their profile (heading path,
//!   lead text, children's titles; [`strata_index::StoreRead::section_keyword`]);
//! - **chunk evidence**: for each chunk leg, the sections of its chunks in the order of
//!   their best chunk. A chunk's section is its own node (the deepest heading above it).
//!
//! Sections of pinned identifier hits come first, in pin order, so that a query that names
//! a section still returns it first. The searcher then walks the ranked sections and gives
//! each the best fused chunks inside its subtree ([`assign`]) that no better section took,
//! until it has the sections it wants; a section found only by a section leg gets its chunks
//! from a search restricted to its subtree.

use std::collections::{BTreeMap, HashMap};

use strata_core::{DocId, NodeId};

use crate::fuse::{Fused, RankedList};

/// A section: a document and one of its nodes.
pub type SectionKey = (DocId, NodeId);

/// One section leg's list: sections best first, and the leg's weight.
#[derive(Debug, Clone)]
pub struct SectionList {
    /// Weight in the fusion.
    pub weight: f64,
    /// Sections, best first.
    pub sections: Vec<SectionKey>,
}

/// A ranked section.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedSection {
    /// The section.
    pub key: SectionKey,
    /// Its fused section score.
    pub score: f64,
}

/// Ranks every section that a section leg or a chunk leg found, pinned sections first.
/// `section_of` maps a chunk id to its section; chunks it does not know are ignored.
pub fn rank_sections(
    lists: &[RankedList],
    section_lists: &[SectionList],
    pinned: &[String],
    section_of: &HashMap<String, SectionKey>,
    rrf_k: f64,
) -> Vec<RankedSection> {
    let mut scores: BTreeMap<SectionKey, f64> = BTreeMap::new();
    for list in lists.iter().filter(|l| l.weight > 0.0) {
        let mut seen: Vec<&SectionKey> = Vec::new();
        for hit in &list.hits {
            let Some(key) = section_of.get(&hit.chunk) else { continue };
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            *scores.entry(key.clone()).or_insert(0.0) += list.weight / (rrf_k + seen.len() as f64);
        }
    }
    for list in section_lists.iter().filter(|l| l.weight > 0.0) {
        for (i, key) in list.sections.iter().enumerate() {
            *scores.entry(key.clone()).or_insert(0.0) += list.weight / (rrf_k + (i + 1) as f64);
        }
    }
    let mut ranked: Vec<RankedSection> =
        scores.into_iter().map(|(key, score)| RankedSection { key, score }).collect();
    // Best score first; equal scores in document and node order (the map's order), so the
    // result does not depend on hash order.
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut order: Vec<RankedSection> = Vec::with_capacity(ranked.len());
    for id in pinned {
        if let Some(key) = section_of.get(id) {
            if let Some(i) = ranked.iter().position(|s| &s.key == key) {
                order.push(ranked.remove(i));
            }
        }
    }
    order.extend(ranked);
    order
}

/// Indexes into `fused` of up to `per_section` chunks inside the subtree `first..=last` of
/// `doc`, best first, skipping chunks already `taken` (and marking the ones it takes).
pub fn assign(
    fused: &[Fused],
    section_of: &HashMap<String, SectionKey>,
    doc: &DocId,
    (first, last): (NodeId, NodeId),
    per_section: usize,
    taken: &mut [bool],
) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, f) in fused.iter().enumerate() {
        if out.len() == per_section {
            break;
        }
        if taken[i] {
            continue;
        }
        let Some((d, n)) = section_of.get(&f.chunk) else { continue };
        if d == doc && (first..=last).contains(n) {
            taken[i] = true;
            out.push(i);
        }
    }
    out
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

    fn key(n: u32) -> SectionKey {
        (DocId("d".into()), NodeId(n))
    }

    fn sections() -> HashMap<String, SectionKey> {
        // a1, a2, a3 in section 1; b1, b2 in 2 (a child of 1); c1 in 3.
        [("a1", 1), ("a2", 1), ("a3", 1), ("b1", 2), ("b2", 2), ("c1", 3)]
            .into_iter()
            .map(|(id, n)| (id.to_string(), key(n)))
            .collect()
    }

    fn nodes(ranked: &[RankedSection]) -> Vec<u32> {
        ranked.iter().map(|s| s.key.1 .0).collect()
    }

    #[test]
    fn sections_rank_by_their_best_chunk_per_leg() {
        // Keyword: b1 first; dense: a2 first, b2 second. Section 1: 1/62 + 1/61; section 2:
        // 1/61 + 1/62 — a tie broken by node order; section 3 only in keyword.
        let lists = [list(Leg::Keyword, &["b1", "a1", "c1"]), list(Leg::Dense, &["a2", "b2", "a3"])];
        assert_eq!(nodes(&rank_sections(&lists, &[], &[], &sections(), 60.0)), vec![1, 2, 3]);
    }

    #[test]
    fn a_section_leg_lifts_a_section_the_chunks_rank_low() {
        let lists = [list(Leg::Keyword, &["a1", "b1", "c1"])];
        let by_profile = SectionList { weight: 1.0, sections: vec![key(3), key(7)] };
        let ranked = rank_sections(&lists, &[by_profile.clone()], &[], &sections(), 60.0);
        assert_eq!(nodes(&ranked), vec![3, 1, 2, 7], "3: 1/63 + 1/61; 7 only by its profile");
        let off = SectionList { weight: 0.0, ..by_profile };
        assert_eq!(nodes(&rank_sections(&lists, &[off], &[], &sections(), 60.0)), vec![1, 2, 3]);
    }

    #[test]
    fn pinned_sections_come_first_and_zero_weight_legs_count_nothing() {
        let mut dense = list(Leg::Dense, &["c1"]);
        dense.weight = 0.0;
        let lists = [list(Leg::Keyword, &["a1", "b1", "c1"]), dense];
        let ranked = rank_sections(&lists, &[], &["c1".to_string()], &sections(), 60.0);
        assert_eq!(nodes(&ranked), vec![3, 1, 2]);
        // Chunks the map does not know are ignored.
        assert_eq!(
            nodes(&rank_sections(&[list(Leg::Keyword, &["zz", "b2"])], &[], &[], &sections(), 60.0)),
            vec![2]
        );
    }

    #[test]
    fn a_subtree_takes_its_descendants_chunks_once() {
        let lists = [list(Leg::Keyword, &["b1", "a1", "c1", "b2", "a2"])];
        let fused = Rrf { k: 60.0 }.fuse(&lists);
        let mut taken = vec![false; fused.len()];
        let doc = DocId("d".into());
        let ids = |v: Vec<usize>| v.into_iter().map(|i| fused[i].chunk.clone()).collect::<Vec<_>>();
        // Section 1's subtree holds nodes 1 and 2: its best three chunks, b1 included.
        assert_eq!(
            ids(assign(&fused, &sections(), &doc, (NodeId(1), NodeId(2)), 3, &mut taken)),
            ["b1", "a1", "b2"]
        );
        // Section 2 alone gets what is left of it.
        assert_eq!(
            ids(assign(&fused, &sections(), &doc, (NodeId(2), NodeId(2)), 3, &mut taken)),
            Vec::<String>::new()
        );
        assert_eq!(ids(assign(&fused, &sections(), &doc, (NodeId(1), NodeId(1)), 3, &mut taken)), ["a2"]);
    }
}
