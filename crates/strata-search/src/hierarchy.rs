//! Hierarchical mode: documents, then sections, then chunks.
//!
//! A chunk's score in hierarchical mode is built down the tree: its fused score (the chunk
//! legs), plus its document's lift when the query names the document
//! ([`crate::fuse::lift_documents`]), plus its **section's term**:
//!
//! - **named sections** ([`crate::headings`]): a chunk inside a section whose heading the
//!   query names (or inside a descendant of one) gains [`Fusion::section`] of
//!   `weights.headings` and the share of the heading the query holds: under RRF
//!   `weight × share / (k + 1)`, as much as a first place in one more leg.
//! - **section legs** (BM25, and dense when the index has section vectors, over each
//!   section's heading path, lead text and children's titles;
//!   [`strata_index::StoreRead::section_keyword`]), weight 0 by default: a chunk gains
//!   [`Fusion::section`] of `weights.sections` and its section's rank among the sections of
//!   its document that the leg returned.
//!
//! Then the chunks are returned best first, at most `chunks_per_section` from one section
//! (a chunk's section is its own node, the deepest heading above it; the chunks of a
//! document's root, which has no heading, are not capped), so that one long section does
//! not fill the k places that other sections answer better. Each hit's `section_rank` is
//! the order in which its section first appears. Pinned identifier hits stay first.
//!
//! What was measured and not kept (`bench/results/eval/README.md`): ranking sections by the
//! chunk evidence under them and returning each section's chunks together (financebench-dev
//! page recall@10 .519, against .692 for flat hybrid); the same grouping over these scores
//! (.702 at two chunks per section, .673 at three, against .750 ungrouped): places given to a
//! section's neighbouring chunks are places hybrid gives to other pages. The section legs as
//! a term at weight 1 (.635 with the named sections): across documents the profile of a
//! section that shares the query's words is no evidence that it answers it.

use std::collections::{BTreeMap, HashMap, HashSet};

use strata_core::config::SearchConfig;
use strata_core::{ChunkId, DocId, NodeId, Result};
use strata_index::StoreRead;

use crate::fuse::{Fused, Fusion, Leg, LegRank, RankedList};
use crate::headings::{query_terms, Headings};
use crate::retrieve::Retrieved;

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

/// The sections of a query's candidate chunks and what each section adds to its chunks.
#[derive(Debug, Default)]
pub struct Sections {
    /// Each candidate chunk's section.
    of: HashMap<ChunkId, SectionKey>,
    /// The term each section adds to its chunks, with its rank among the sections that add
    /// one; sections without a term are absent.
    terms: HashMap<SectionKey, LegRank>,
}

impl Sections {
    /// Reads the section of every chunk the legs found and each section's term: the share
    /// by which `query` names it or an ancestor, and the section legs' ranks.
    pub fn read(
        store: &dyn StoreRead,
        headings: &Headings,
        fusion: &dyn Fusion,
        config: &SearchConfig,
        query: &str,
        retrieved: &Retrieved,
    ) -> Result<Sections> {
        let of = sections_of(store, &retrieved.lists)?;
        let mut terms: HashMap<SectionKey, f64> = HashMap::new();
        if config.weights.headings > 0.0 {
            let query = query_terms(query);
            for (doc, nodes) in by_document(of.values()) {
                let Some(doc_headings) = headings.of(store, doc)? else { continue };
                let mut memo = HashMap::new();
                for node in nodes {
                    let share = doc_headings.named_within(node, &query, &mut memo);
                    if share > 0.0 {
                        let term = fusion.section(config.weights.headings, 1, share);
                        *terms.entry((doc.clone(), node)).or_insert(0.0) += term;
                    }
                }
            }
        }
        for list in retrieved.sections.iter().filter(|l| l.weight > 0.0) {
            let mut per_doc: HashMap<&DocId, usize> = HashMap::new();
            for key in &list.sections {
                let rank = per_doc.entry(&key.0).or_insert(0);
                *rank += 1;
                *terms.entry(key.clone()).or_insert(0.0) += fusion.section(list.weight, *rank, 1.0);
            }
        }
        Ok(Sections { of, terms: ranked(terms) })
    }

    /// Adds each chunk's section term to `fused` (recording the section's rank and term as
    /// its `section` leg) and sorts again; ties keep their order.
    pub fn lift(&self, fused: &mut [Fused]) {
        if self.terms.is_empty() {
            return;
        }
        for f in fused.iter_mut() {
            if let Some(term) = self.of.get(&f.chunk).and_then(|key| self.terms.get(key)) {
                f.score += term.score as f64;
                f.legs.insert(Leg::Section, *term);
            }
        }
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
    }

    /// The chunks of `fused` best first, at most `per_section` from one section (the
    /// `pinned` first ones always kept), up to twice `k` so that places freed by merging are
    /// filled; and each returned chunk's section rank.
    pub fn order(
        &self,
        fused: Vec<Fused>,
        pinned: usize,
        per_section: usize,
        k: usize,
    ) -> (Vec<Fused>, HashMap<ChunkId, usize>) {
        let mut taken: HashMap<&SectionKey, usize> = HashMap::new();
        let mut rank_of: HashMap<&SectionKey, usize> = HashMap::new();
        let mut ordered = Vec::new();
        let mut ranks = HashMap::new();
        for (i, f) in fused.into_iter().enumerate() {
            if ordered.len() >= k * 2 {
                break;
            }
            let Some(key) = self.of.get(&f.chunk) else { continue };
            let count = taken.entry(key).or_insert(0);
            if i >= pinned && key.1 != NodeId::ROOT && *count >= per_section {
                continue;
            }
            *count += 1;
            let next = rank_of.len() + 1;
            ranks.insert(f.chunk.clone(), *rank_of.entry(key).or_insert(next));
            ordered.push(f);
        }
        (ordered, ranks)
    }
}

/// The nodes of each document among `keys`, each once.
fn by_document<'a>(keys: impl Iterator<Item = &'a SectionKey>) -> BTreeMap<&'a DocId, Vec<NodeId>> {
    let mut out: BTreeMap<&DocId, HashSet<NodeId>> = BTreeMap::new();
    for (doc, node) in keys {
        out.entry(doc).or_default().insert(*node);
    }
    out.into_iter()
        .map(|(doc, nodes)| {
            let mut nodes: Vec<NodeId> = nodes.into_iter().collect();
            nodes.sort();
            (doc, nodes)
        })
        .collect()
}

/// Each section's term with its rank (from 1) among them, best first; equal terms in
/// document and node order, so the ranks do not depend on hash order.
fn ranked(terms: HashMap<SectionKey, f64>) -> HashMap<SectionKey, LegRank> {
    let mut sorted: Vec<(SectionKey, f64)> = terms.into_iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, (key, term))| (key, LegRank { rank: i + 1, score: term as f32 }))
        .collect()
}

/// The section of every chunk the legs found.
fn sections_of(store: &dyn StoreRead, lists: &[RankedList]) -> Result<HashMap<ChunkId, SectionKey>> {
    let mut ids: Vec<ChunkId> = lists.iter().flat_map(|l| l.hits.iter().map(|h| h.chunk.clone())).collect();
    ids.sort();
    ids.dedup();
    Ok(store
        .chunks(&ids)?
        .into_iter()
        .map(|c| (c.chunk.id.clone(), (c.chunk.doc.clone(), c.chunk.node)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuse::Rrf;

    fn key(n: u32) -> SectionKey {
        (DocId("d".into()), NodeId(n))
    }

    fn fused(ids: &[&str]) -> Vec<Fused> {
        ids.iter()
            .enumerate()
            .map(|(i, &id)| Fused { chunk: id.into(), score: 1.0 / (61.0 + i as f64), legs: BTreeMap::new() })
            .collect()
    }

    /// a1..a4 in section 1, b1 in 2, r1..r4 at the root (no heading).
    fn sections(terms: &[(u32, f64)]) -> Sections {
        let of = [
            ("a1", 1),
            ("a2", 1),
            ("a3", 1),
            ("a4", 1),
            ("b1", 2),
            ("r1", 0),
            ("r2", 0),
            ("r3", 0),
            ("r4", 0),
        ]
        .into_iter()
        .map(|(id, n)| (ChunkId::from(id), key(n)))
        .collect();
        Sections { of, terms: ranked(terms.iter().map(|&(n, t)| (key(n), t)).collect()) }
    }

    fn ids(fused: &[Fused]) -> Vec<&str> {
        fused.iter().map(|f| f.chunk.as_str()).collect()
    }

    #[test]
    fn a_named_section_lifts_its_chunks_and_records_a_section_leg() {
        let s = sections(&[(2, Rrf::default().section(1.0, 1, 1.0))]);
        let mut f = fused(&["a1", "a2", "b1"]);
        s.lift(&mut f);
        assert_eq!(ids(&f), ["b1", "a1", "a2"]);
        assert_eq!(f[0].legs[&Leg::Section].rank, 1);
        assert!(!f[1].legs.contains_key(&Leg::Section));
    }

    #[test]
    fn at_most_per_section_chunks_of_a_section_but_the_root_is_not_capped() {
        let s = sections(&[]);
        let (ordered, ranks) =
            s.order(fused(&["a1", "a2", "a3", "b1", "a4", "r1", "r2", "r3", "r4"]), 0, 2, 10);
        assert_eq!(ids(&ordered), ["a1", "a2", "b1", "r1", "r2", "r3", "r4"]);
        let rank = |id: &str| ranks[&ChunkId::from(id)];
        assert_eq!((rank("a2"), rank("b1"), rank("r4")), (1, 2, 3));
    }

    #[test]
    fn pinned_chunks_are_kept_whatever_their_section_holds() {
        let s = sections(&[]);
        let (ordered, _) = s.order(fused(&["a1", "a2", "a3", "b1"]), 3, 1, 10);
        assert_eq!(ids(&ordered), ["a1", "a2", "a3", "b1"]);
        let (ordered, _) = s.order(fused(&["a1", "a2", "a3", "b1"]), 0, 1, 1);
        assert_eq!(ids(&ordered), ["a1", "b1"], "twice k");
    }
}
