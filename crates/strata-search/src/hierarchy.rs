//! Hierarchical mode: sections first, then the chunks inside them.
//!
//! Two kinds of evidence rank a section:
//!
//! - **chunk evidence** decides how much a section is worth: for each chunk leg, the sections
//!   of its chunks in the order of their best chunk, fused with the same weighted RRF as
//!   chunks (`E(s) = Σ wᵢ / (k + rankᵢ)`). A chunk's section is its own node (the deepest
//!   heading above it).
//! - **section legs** (BM25 and dense over each section's profile: heading path, lead text,
//!   children's titles; [`strata_index::StoreRead::section_keyword`]) decide *which section
//!   of a document* that evidence favours. A leg's opinion of a section is its reciprocal
//!   rank `1 / r` among the sections of the same document that the leg returned, 0 when the
//!   leg returned other sections of the document but not this one, and 1 (no opinion) when
//!   it returned none of the document's. The score is `E(s) · (1 + Σ wₗ gₗ) / (1 + Σ wₗ)`:
//!   the section the legs favour keeps its evidence, the others lose up to two thirds of it
//!   (two legs of weight 1).
//!
//! The section legs re-rank within documents and never lift a section above its evidence,
//! because they exist only for documents with headings. Measured on Chroma's set (four flat
//! corpora, one with headings), hierarchical recall@5: section legs off 0.827; fused as lists
//! of their own beside the chunk evidence 0.256 (every structured section outranked the
//! flat documents); multiplying the evidence of favoured sections (×1.5 for a first rank)
//! 0.376; this re-ranking 0.794. RRF evidence is flat (1/61 against 1/65), so any lift
//! decides the order; only a bound keeps the legs from overruling the chunks. Even so they
//! cost 3 points there and nothing on the Anthropic set (no headings), so their weight is 0
//! by default (`[search.weights] sections`): they are for corpora of structured documents,
//! to be switched on where `strata eval` shows that they help.
//!
//! The documents a query names (the documents stage's shortlist) lift the evidence of their
//! sections by the same term they add to their chunks ([`crate::fuse::lift_documents`]),
//! so hierarchical mode goes documents → sections → chunks.
//!
//! Sections of pinned identifier hits come first, in pin order, so that a query that names
//! a section still returns it first. The searcher then walks the ranked sections and gives
//! each the best fused chunks inside its subtree ([`assign`]) that no better section took.

use std::collections::{BTreeMap, HashMap};

use strata_core::config::SearchConfig;
use strata_core::{ChunkId, DocId, NodeId, Result};
use strata_index::{Filter, StoreRead};

use crate::expand::Docs;
use crate::fuse::{DocumentLift, Fused, RankedList};
use crate::request::SearchRequest;
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

/// A ranked section.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedSection {
    /// The section.
    pub key: SectionKey,
    /// Its fused section score.
    pub score: f64,
}

/// Ranks every section that a chunk leg found (see the module doc), pinned sections first.
/// `section_of` maps a chunk id to its section; chunks it does not know are ignored. A
/// section of a document the query names adds its document's lift to its evidence.
pub fn rank_sections(
    lists: &[RankedList],
    section_lists: &[SectionList],
    pinned: &[ChunkId],
    section_of: &HashMap<ChunkId, SectionKey>,
    lifts: &HashMap<&str, DocumentLift>,
    rrf_k: f64,
) -> Vec<RankedSection> {
    let mut evidence: BTreeMap<SectionKey, f64> = BTreeMap::new();
    for list in lists.iter().filter(|l| l.weight > 0.0) {
        let mut seen: Vec<&SectionKey> = Vec::new();
        for hit in &list.hits {
            let Some(key) = section_of.get(&hit.chunk) else { continue };
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            *evidence.entry(key.clone()).or_insert(0.0) += list.weight / (rrf_k + seen.len() as f64);
        }
    }
    // Each section leg's rank of a section among the sections of its document.
    let legs: Vec<(f64, HashMap<&SectionKey, usize>, std::collections::HashSet<&DocId>)> = section_lists
        .iter()
        .filter(|l| l.weight > 0.0)
        .map(|l| {
            let mut per_doc: HashMap<&DocId, usize> = HashMap::new();
            let mut rank = HashMap::new();
            for key in &l.sections {
                let r = per_doc.entry(&key.0).or_insert(0);
                *r += 1;
                rank.entry(key).or_insert(*r);
            }
            (l.weight, rank, per_doc.into_keys().collect())
        })
        .collect();
    let total: f64 = legs.iter().map(|l| l.0).sum();
    let mut ranked: Vec<RankedSection> = evidence
        .into_iter()
        .map(|(key, e)| {
            let opinion: f64 = legs
                .iter()
                .map(|(w, rank, docs)| {
                    let g = match rank.get(&key) {
                        Some(&r) => 1.0 / r as f64,
                        None if docs.contains(&key.0) => 0.0,
                        None => 1.0,
                    };
                    w * g
                })
                .sum();
            let e = e + lifts.get(key.0.as_str()).map_or(0.0, |l| l.term);
            RankedSection { score: e * (1.0 + opinion) / (1.0 + total), key }
        })
        .collect();
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

/// The hierarchy stage: the best sections in rank order, each with its best chunks (the
/// fused order, rearranged); and each returned chunk's section rank.
pub fn order(
    store: &dyn StoreRead,
    config: &SearchConfig,
    req: &SearchRequest,
    retrieved: &Retrieved,
    fused: Vec<Fused>,
    lifts: &HashMap<&str, DocumentLift>,
) -> Result<(Vec<Fused>, HashMap<ChunkId, usize>)> {
    let per_section = config.chunks_per_section;
    let wanted = config.sections.max(req.k.div_ceil(per_section));
    let section_of = sections_of(store, &retrieved.lists)?;
    let (lists, pinned) = (&retrieved.lists, &retrieved.pinned);
    let ranked = rank_sections(lists, &retrieved.sections, pinned, &section_of, lifts, config.rrf_k);
    let mut taken = vec![false; fused.len()];
    let mut docs = Docs::new(store);
    let mut ordered = Vec::new();
    let mut ranks = HashMap::new();
    let mut picked = 0usize;
    // Subtrees already returned: a section inside one is not returned again (its best
    // chunks were offered to the section above it).
    let mut returned: Vec<(DocId, NodeId, NodeId)> = Vec::new();
    // The wanted sections at least, and more while the hits do not reach k; twice k, so
    // that places freed by merging are filled from the next sections.
    for section in ranked {
        if picked >= wanted && ordered.len() >= req.k * 2 {
            break;
        }
        let (doc, node) = &section.key;
        if returned.iter().any(|(d, first, last)| d == doc && (*first..=*last).contains(node)) {
            continue;
        }
        let Some(meta) = docs.meta(doc.as_str())? else { continue };
        let last = meta.document.tree.last_descendant(*node);
        let (first, last) = within_filter(&req.filter, doc, *node, last);
        // Every ranked section has chunk evidence among the fused chunks; a section whose
        // chunks a better section already took is passed over.
        let chosen = assign(&fused, &section_of, doc, (first, last), per_section, &mut taken);
        if chosen.is_empty() {
            continue;
        }
        // The rest of this subtree's chunks stay with it: a section above it, ranked
        // lower, must not return them as its own (beyond chunks_per_section here).
        take_subtree(&fused, &section_of, doc, (first, last), &mut taken);
        returned.push((doc.clone(), first, last));
        picked += 1;
        for i in chosen {
            ranks.insert(fused[i].chunk.clone(), picked);
            ordered.push(fused[i].clone());
        }
    }
    Ok((ordered, ranks))
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

/// The subtree `node..=last` of `doc`, inside the filter's subtree only (section legs honour
/// the filter, but an ancestor's subtree may reach outside it).
fn within_filter(filter: &Filter, doc: &DocId, node: NodeId, last: NodeId) -> (NodeId, NodeId) {
    match (&filter.doc, filter.nodes) {
        (Some(d), Some((lo, hi))) if d == doc => (node.max(lo), last.min(hi)),
        _ => (node, last),
    }
}

/// Marks every fused chunk inside the subtree `first..=last` of `doc` as taken.
fn take_subtree(
    fused: &[Fused],
    section_of: &HashMap<ChunkId, SectionKey>,
    doc: &DocId,
    (first, last): (NodeId, NodeId),
    taken: &mut [bool],
) {
    for (i, f) in fused.iter().enumerate() {
        if let Some((d, n)) = section_of.get(&f.chunk) {
            if d == doc && (first..=last).contains(n) {
                taken[i] = true;
            }
        }
    }
}

/// Indexes into `fused` of up to `per_section` chunks inside the subtree `first..=last` of
/// `doc`, best first, skipping chunks already `taken` (and marking the ones it takes).
pub fn assign(
    fused: &[Fused],
    section_of: &HashMap<ChunkId, SectionKey>,
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
            hits: ids.iter().map(|&id| LegHit { chunk: id.into(), score: 1.0 }).collect(),
        }
    }

    fn key(n: u32) -> SectionKey {
        (DocId("d".into()), NodeId(n))
    }

    fn sections() -> HashMap<ChunkId, SectionKey> {
        // a1, a2, a3 in section 1; b1, b2 in 2 (a child of 1); c1 in 3.
        [("a1", 1), ("a2", 1), ("a3", 1), ("b1", 2), ("b2", 2), ("c1", 3)]
            .into_iter()
            .map(|(id, n)| (ChunkId::from(id), key(n)))
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
        assert_eq!(
            nodes(&rank_sections(&lists, &[], &[], &sections(), &HashMap::new(), 60.0)),
            vec![1, 2, 3]
        );
    }

    #[test]
    fn section_legs_reorder_sections_within_a_document_only() {
        // Keyword: a1 (section 1) first, b1 (2) second, c1 (3) third; all in document d.
        let lists = [list(Leg::Keyword, &["a1", "b1", "c1"])];
        assert_eq!(
            nodes(&rank_sections(&lists, &[], &[], &sections(), &HashMap::new(), 60.0)),
            vec![1, 2, 3]
        );
        // The profile leg prefers 3, then 2, and does not return 1: 3 keeps its evidence
        // (1/63), 2 keeps three quarters of its (1/62), 1 keeps half of its (1/61); 7 has no
        // chunk evidence and is not ranked.
        let by_profile = SectionList { weight: 1.0, sections: vec![key(3), key(2), key(7)] };
        let ranked =
            rank_sections(&lists, std::slice::from_ref(&by_profile), &[], &sections(), &HashMap::new(), 60.0);
        assert_eq!(nodes(&ranked), vec![3, 2, 1]);
        assert!((ranked[0].score - 1.0 / 63.0).abs() < 1e-12);
        assert!((ranked[2].score - 0.5 / 61.0).abs() < 1e-12);
        // A leg that returned nothing of a document has no opinion on it.
        let elsewhere = SectionList { weight: 1.0, sections: vec![(DocId("other".into()), NodeId(1))] };
        let ranked = rank_sections(&lists, &[elsewhere], &[], &sections(), &HashMap::new(), 60.0);
        assert_eq!(nodes(&ranked), vec![1, 2, 3]);
        assert!((ranked[0].score - 1.0 / 61.0).abs() < 1e-12, "no opinion keeps the evidence");
        let off = SectionList { weight: 0.0, ..by_profile };
        assert_eq!(
            nodes(&rank_sections(&lists, &[off], &[], &sections(), &HashMap::new(), 60.0)),
            vec![1, 2, 3]
        );
    }

    #[test]
    fn pinned_sections_come_first_and_zero_weight_legs_count_nothing() {
        let mut dense = list(Leg::Dense, &["c1"]);
        dense.weight = 0.0;
        let lists = [list(Leg::Keyword, &["a1", "b1", "c1"]), dense];
        let ranked = rank_sections(&lists, &[], &[ChunkId::from("c1")], &sections(), &HashMap::new(), 60.0);
        assert_eq!(nodes(&ranked), vec![3, 1, 2]);
        // Chunks the map does not know are ignored.
        assert_eq!(
            nodes(&rank_sections(
                &[list(Leg::Keyword, &["zz", "b2"])],
                &[],
                &[],
                &sections(),
                &HashMap::new(),
                60.0
            )),
            vec![2]
        );
    }

    #[test]
    fn a_subtree_takes_its_descendants_chunks_once() {
        let lists = [list(Leg::Keyword, &["b1", "a1", "c1", "b2", "a2"])];
        let fused = Rrf::default().fuse(&lists);
        let mut taken = vec![false; fused.len()];
        let doc = DocId("d".into());
        let ids = |v: Vec<usize>| v.into_iter().map(|i| fused[i].chunk.as_str()).collect::<Vec<_>>();
        // Section 1's subtree holds nodes 1 and 2: its best three chunks, b1 included.
        assert_eq!(
            ids(assign(&fused, &sections(), &doc, (NodeId(1), NodeId(2)), 3, &mut taken)),
            ["b1", "a1", "b2"]
        );
        // Section 2 alone gets what is left of it.
        assert_eq!(
            ids(assign(&fused, &sections(), &doc, (NodeId(2), NodeId(2)), 3, &mut taken)),
            Vec::<&str>::new()
        );
        assert_eq!(ids(assign(&fused, &sections(), &doc, (NodeId(1), NodeId(1)), 3, &mut taken)), ["a2"]);
    }
}
