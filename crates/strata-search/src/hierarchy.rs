//! Hierarchical mode: documents, then sections, then chunks.
//!
//! A chunk's score in hierarchical mode is built down the tree: its fused score (the chunk
//! legs), plus its document's lift when the query names the document
//! ([`crate::fuse::lift_documents`]), plus its **section's term**:
//!
//! - **named sections** ([`crate::headings`]): a chunk inside a section whose heading the
//!   query names (or inside a descendant of one) gains [`Fusion::section`] of
//!   `weights.headings` and the share of the heading the query holds: under RRF
//!   `weight × share / (k + 1)`, as much as a first place in one more leg. In an index of
//!   several documents, only the sections of the documents the query names can be named
//!   (`[search] heading_scope`, set by the caller with [`Sections::within`]): 509 contracts
//!   each have a "Term".
//! - **section legs** (BM25, and dense when the index has section vectors, over each
//!   section's heading path, lead text and children's titles;
//!   [`strata_index::StoreRead::section_keyword`]), weight 0 by default: a chunk gains
//!   [`Fusion::section`] of `weights.sections` and its section's rank among the sections of
//!   its document that the leg returned.
//!
//! Then the chunks are returned best first, at most `chunks_per_section` from one section
//! (a chunk's section is its own node, the deepest heading above it; the chunks of a
//! document's root, which has no heading, are not capped, nor those of a section spanning
//! more than `[search] capped_span` of its document), so that one long section does
//! not fill the k places that other sections answer better. Each hit's `section_rank` is
//! the order in which its section first appears. Pinned identifier hits stay first.
//!
//! What was measured and not kept (`bench/results/eval/README.md`): ranking sections by the
//! chunk evidence under them and returning each section's chunks together (financebench-dev
//! page recall@10 .519, against .692 for flat hybrid); the same grouping over these scores
//! (.702 at two chunks per section, .673 at three, against .750 ungrouped, all at a named
//! share of one half): places given to a
//! section's neighbouring chunks are places hybrid gives to other pages. The section legs as
//! a term at weight 1 (.635 with the named sections): across documents the profile of a
//! section that shares the query's words is no evidence that it answers it. A prior for
//! chunks early in their document (+.010 page recall@10 on financebench-dev at a quarter of a
//! leg, with lower MRR on anthropic-codebase and chroma-chunking).

use std::collections::{HashMap, HashSet};

use strata_core::config::SearchConfig;
use strata_core::{ChunkId, DocId, NodeId, Result};
use strata_index::StoreRead;

use crate::fuse::{Fused, Fusion, Leg, LegRank};
use crate::headings::{query_terms, Headings};
use crate::retrieve::{Retrieved, SectionKey};

/// The sections of a query's candidate chunks and what each section adds to its chunks.
///
/// A candidate's section is read from the store only when it can matter: [`Sections::lift`]
/// reads the best candidates in batches until the places that will be returned (and
/// reranked) are certain, because no unread candidate, with the most any section can add,
/// reaches them; [`Sections::order`] reads any further one it walks past.
pub struct Sections<'s> {
    store: &'s dyn StoreRead,
    headings: &'s Headings,
    /// The query's stemmed words, as the headings'.
    query: HashSet<String>,
    /// `weights.headings`, and the fusion that turns it into a term.
    weight: f64,
    /// `[search] heading_span`: the most of its document a named section may span.
    span: f64,
    /// The documents whose headings the query can name; `None` for every document's.
    within: Option<HashSet<DocId>>,
    /// `[search] capped_span`: sections spanning more of their document are not capped.
    capped_span: f64,
    /// The read sections that `chunks_per_section` does not cap: the roots, and those
    /// spanning more than `capped_span` of their document.
    uncapped: HashSet<SectionKey>,
    fusion: &'s dyn Fusion,
    /// Each read candidate's section.
    of: HashMap<ChunkId, SectionKey>,
    /// Each section's term and leg entry, once computed; `None` when it adds nothing.
    terms: HashMap<SectionKey, Option<LegRank>>,
    /// The section legs' terms: each listed section's best rank within its document, and
    /// the sum of its terms.
    listed: HashMap<SectionKey, (usize, f64)>,
    /// The most a section can add: the named-heading term at a full share plus every section
    /// leg's first place.
    most: f64,
}

impl<'s> Sections<'s> {
    /// The stage's state for one request: the query's words and the section legs' terms.
    pub fn new(
        store: &'s dyn StoreRead,
        headings: &'s Headings,
        fusion: &'s dyn Fusion,
        config: &SearchConfig,
        query: &str,
        retrieved: &Retrieved,
    ) -> Sections<'s> {
        let weight = config.weights.headings;
        let mut most = if weight > 0.0 { fusion.section(weight, 1, 1.0) } else { 0.0 };
        let mut listed: HashMap<SectionKey, (usize, f64)> = HashMap::new();
        for list in retrieved.sections.iter().filter(|l| l.weight > 0.0) {
            most += fusion.section(list.weight, 1, 1.0);
            let mut per_doc: HashMap<&DocId, usize> = HashMap::new();
            for key in &list.sections {
                let rank = per_doc.entry(&key.0).or_insert(0);
                *rank += 1;
                let entry = listed.entry(key.clone()).or_insert((*rank, 0.0));
                entry.0 = entry.0.min(*rank);
                entry.1 += fusion.section(list.weight, *rank, 1.0);
            }
        }
        let query = if weight > 0.0 { query_terms(query) } else { HashSet::new() };
        Sections {
            store,
            headings,
            query,
            weight,
            span: config.heading_span,
            within: None,
            capped_span: config.capped_span,
            uncapped: HashSet::new(),
            fusion,
            of: HashMap::new(),
            terms: HashMap::new(),
            listed,
            most,
        }
    }

    /// Only the headings of the documents in `within` can be named (`None`: every
    /// document's; `[search] heading_scope`).
    pub fn within(mut self, within: Option<HashSet<DocId>>) -> Sections<'s> {
        self.within = within;
        self
    }

    /// Adds each candidate's section term to `fused` (sorted best first; recording the
    /// term as its `section` leg) and sorts again, so that the first `places` after the
    /// `pinned` ones, with at most `per_section` of one section, are exact; ties keep their
    /// order.
    pub fn lift(
        &mut self,
        fused: &mut [Fused],
        pinned: usize,
        per_section: usize,
        places: usize,
    ) -> Result<()> {
        if self.most == 0.0 {
            return Ok(());
        }
        let mut read = 0;
        let mut batch = (places * 2).max(32);
        let mut lifted: Vec<f64> = Vec::with_capacity(fused.len());
        loop {
            let end = (read + batch).min(fused.len());
            self.read(&fused[read..end])?;
            for f in &fused[read..end] {
                lifted.push(f.score + self.term_of(&f.chunk)?.map_or(0.0, |t| t.score as f64));
            }
            read = end;
            if read == fused.len() {
                break;
            }
            // No unread candidate can pass this; the read ones above it are placed for good.
            let bound = fused[read].score + self.most;
            if self.certain(fused, &lifted, bound, per_section) >= pinned + places {
                break;
            }
            batch *= 2;
        }
        for f in fused[..read].iter_mut() {
            if let Some(term) = self.term_of(&f.chunk)? {
                f.score += term.score as f64;
                f.legs.insert(Leg::Section, term);
            }
        }
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(())
    }

    /// How many of the read candidates scoring above `bound` would be returned, with at
    /// most `per_section` of one section.
    fn certain(&self, fused: &[Fused], lifted: &[f64], bound: f64, per_section: usize) -> usize {
        let mut above: Vec<(f64, &SectionKey)> = lifted
            .iter()
            .zip(fused)
            .filter(|(s, _)| **s > bound)
            .filter_map(|(s, f)| self.of.get(&f.chunk).map(|key| (*s, key)))
            .collect();
        above.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut taken: HashMap<&SectionKey, usize> = HashMap::new();
        above
            .into_iter()
            .filter(|(_, key)| {
                let count = taken.entry(key).or_insert(0);
                *count += 1;
                self.uncapped.contains(*key) || *count <= per_section
            })
            .count()
    }

    /// Reads the sections of the candidates in `fused` not read yet.
    fn read(&mut self, fused: &[Fused]) -> Result<()> {
        let ids: Vec<ChunkId> =
            fused.iter().filter(|f| !self.of.contains_key(&f.chunk)).map(|f| f.chunk.clone()).collect();
        if ids.is_empty() {
            return Ok(());
        }
        for (chunk, doc, node) in self.store.sections_of(&ids)? {
            let key = (doc, node);
            if !self.uncapped.contains(&key) && self.is_uncapped(&key)? {
                self.uncapped.insert(key.clone());
            }
            self.of.insert(chunk, key);
        }
        Ok(())
    }

    /// Whether `chunks_per_section` leaves `key` uncapped: a document's root (no heading),
    /// or a section spanning more than `capped_span` of its document, which says as little
    /// of where the answer is.
    fn is_uncapped(&self, key: &SectionKey) -> Result<bool> {
        if key.1 == NodeId::ROOT {
            return Ok(true);
        }
        if self.capped_span >= 1.0 {
            return Ok(false);
        }
        let headings = self.headings.of(self.store, &key.0)?;
        Ok(headings.is_some_and(|h| h.span(key.1) > self.capped_span))
    }

    /// The term a read candidate's section adds, with its `section` leg entry: rank 1 when
    /// the query names the section (or an ancestor) by its heading, else its best rank in a
    /// section leg among its document's sections.
    fn term_of(&mut self, chunk: &ChunkId) -> Result<Option<LegRank>> {
        let Some(key) = self.of.get(chunk) else { return Ok(None) };
        if let Some(known) = self.terms.get(key) {
            return Ok(*known);
        }
        let key = key.clone();
        let mut share = 0.0;
        let nameable = self.within.as_ref().is_none_or(|docs| docs.contains(&key.0));
        if self.weight > 0.0 && nameable {
            if let Some(headings) = self.headings.of(self.store, &key.0)? {
                share = headings.named_within(key.1, &self.query, self.span);
            }
        }
        let named = if share > 0.0 { self.fusion.section(self.weight, 1, share) } else { 0.0 };
        let term = match self.listed.get(&key) {
            Some(&(rank, legs)) => {
                Some(LegRank { rank: if named > 0.0 { 1 } else { rank }, score: (named + legs) as f32 })
            }
            None if named > 0.0 => Some(LegRank { rank: 1, score: named as f32 }),
            None => None,
        };
        self.terms.insert(key, term);
        Ok(term)
    }

    /// The chunks of `fused` best first, at most `per_section` from one section (the
    /// `pinned` first ones always kept), up to twice `k` so that places freed by merging are
    /// filled; and each returned chunk's section rank (the order in which its section first
    /// appears).
    pub fn order(
        &mut self,
        fused: Vec<Fused>,
        pinned: usize,
        per_section: usize,
        k: usize,
    ) -> Result<(Vec<Fused>, HashMap<ChunkId, usize>)> {
        let mut taken: HashMap<SectionKey, usize> = HashMap::new();
        let mut rank_of: HashMap<SectionKey, usize> = HashMap::new();
        let mut ordered = Vec::new();
        let mut ranks = HashMap::new();
        for (i, f) in fused.into_iter().enumerate() {
            if ordered.len() >= k * 2 {
                break;
            }
            if !self.of.contains_key(&f.chunk) {
                self.read(std::slice::from_ref(&f))?;
            }
            let Some(key) = self.of.get(&f.chunk) else { continue };
            let count = taken.entry(key.clone()).or_insert(0);
            if i >= pinned && !self.uncapped.contains(key) && *count >= per_section {
                continue;
            }
            *count += 1;
            let next = rank_of.len() + 1;
            ranks.insert(f.chunk.clone(), *rank_of.entry(key.clone()).or_insert(next));
            ordered.push(f);
        }
        Ok((ordered, ranks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuse::Rrf;
    use std::collections::BTreeMap;
    use strata_index::{EmbeddedStore, Manifest};

    fn key(n: u32) -> SectionKey {
        (DocId("d".into()), NodeId(n))
    }

    fn fused(ids: &[&str]) -> Vec<Fused> {
        ids.iter()
            .enumerate()
            .map(|(i, &id)| Fused { chunk: id.into(), score: 1.0 / (61.0 + i as f64), legs: BTreeMap::new() })
            .collect()
    }

    fn ids(fused: &[Fused]) -> Vec<&str> {
        fused.iter().map(|f| f.chunk.as_str()).collect()
    }

    /// Runs `check` on the stage with a1..a4 read in section 1, b1 in 2, c1..c3 in 3 (which
    /// spans 60% of its document), r1..r4 at the root (no heading), and `terms` as the
    /// sections' terms; nothing is read from the (empty) store.
    fn with_sections(terms: &[(u32, f64)], check: impl FnOnce(&mut Sections<'_>)) {
        with_config(&SearchConfig::default(), terms, check)
    }

    fn with_config(config: &SearchConfig, terms: &[(u32, f64)], check: impl FnOnce(&mut Sections<'_>)) {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open_or_create(dir.path(), Manifest::new("cl100k", 512, 0)).unwrap();
        let headings = Headings::default();
        let spans = [
            ("d", None, (0, 100)),
            ("A", Some(0), (0, 20)),
            ("B", Some(0), (20, 30)),
            ("C", Some(0), (30, 90)),
        ];
        headings.hold(DocId("d".into()), crate::headings::of_spans(&spans));
        let fusion = Rrf::default();
        let mut sections = Sections::new(&store, &headings, &fusion, config, "", &no_legs());
        for (id, n) in [
            ("a1", 1),
            ("a2", 1),
            ("a3", 1),
            ("a4", 1),
            ("b1", 2),
            ("c1", 3),
            ("c2", 3),
            ("c3", 3),
            ("r1", 0),
            ("r2", 0),
            ("r3", 0),
            ("r4", 0),
        ] {
            sections.of.insert(ChunkId::from(id), key(n));
            if sections.is_uncapped(&key(n)).unwrap() {
                sections.uncapped.insert(key(n));
            }
            let term = terms.iter().find(|t| t.0 == n).map(|&(_, t)| LegRank { rank: 1, score: t as f32 });
            sections.terms.insert(key(n), term);
        }
        check(&mut sections);
    }

    fn no_legs() -> Retrieved {
        Retrieved { lists: Vec::new(), pinned: Vec::new(), vector: None, sections: Vec::new() }
    }

    #[test]
    fn a_named_section_lifts_its_chunks_and_records_a_section_leg() {
        with_sections(&[(2, Rrf::default().section(1.0, 1, 1.0))], |s| {
            let mut f = fused(&["a1", "a2", "b1"]);
            s.lift(&mut f, 0, 3, 1).unwrap();
            assert_eq!(ids(&f), ["b1", "a1", "a2"]);
            assert_eq!(f[0].legs[&Leg::Section].rank, 1);
            assert!(!f[1].legs.contains_key(&Leg::Section));
        });
    }

    #[test]
    fn at_most_per_section_chunks_of_a_section_but_the_root_is_not_capped() {
        with_sections(&[], |s| {
            let all = fused(&["a1", "a2", "a3", "b1", "a4", "r1", "r2", "r3", "r4"]);
            let (ordered, ranks) = s.order(all, 0, 2, 10).unwrap();
            assert_eq!(ids(&ordered), ["a1", "a2", "b1", "r1", "r2", "r3", "r4"]);
            let rank = |id: &str| ranks[&ChunkId::from(id)];
            assert_eq!((rank("a2"), rank("b1"), rank("r4")), (1, 2, 3));
        });
    }

    /// `capped_span` (on by default) was never reached: the test store was empty, so no
    /// section's span was known (issue 54). A section over `capped_span` of its document says
    /// as little of where the answer is as the root, and is not capped either.
    #[test]
    fn a_section_over_capped_span_of_its_document_is_not_capped() {
        let all = || fused(&["c1", "c2", "c3", "a1", "a2", "a3"]);
        with_sections(&[], |s| {
            let (ordered, _) = s.order(all(), 0, 2, 10).unwrap();
            assert_eq!(ids(&ordered), ["c1", "c2", "c3", "a1", "a2"], "C spans 60% > 50%");
        });
        let every_section_capped = SearchConfig { capped_span: 1.0, ..SearchConfig::default() };
        with_config(&every_section_capped, &[], |s| {
            let (ordered, _) = s.order(all(), 0, 2, 10).unwrap();
            assert_eq!(ids(&ordered), ["c1", "c2", "a1", "a2"]);
        });
        let above = SearchConfig { capped_span: 0.7, ..SearchConfig::default() };
        with_config(&above, &[], |s| {
            assert_eq!(ids(&s.order(all(), 0, 2, 10).unwrap().0), ["c1", "c2", "a1", "a2"], "60% < 70%");
        });
    }

    #[test]
    fn pinned_chunks_are_kept_whatever_their_section_holds() {
        with_sections(&[], |s| {
            let (ordered, _) = s.order(fused(&["a1", "a2", "a3", "b1"]), 3, 1, 10).unwrap();
            assert_eq!(ids(&ordered), ["a1", "a2", "a3", "b1"]);
            let (ordered, _) = s.order(fused(&["a1", "a2", "a3", "b1"]), 0, 1, 1).unwrap();
            assert_eq!(ids(&ordered), ["a1", "b1"], "twice k");
        });
    }

    #[test]
    fn places_are_certain_only_when_no_unread_candidate_can_reach_them() {
        with_sections(&[(1, 0.01)], |s| {
            s.most = 0.01;
            let f = fused(&["a1", "b1", "r1", "r2"]);
            let lifted: Vec<f64> = f.iter().map(|f| f.score).collect();
            // Above 1/62 + 0.01 nothing is certain; above 0 all four are (a1 and b1 each
            // under the cap of one).
            assert_eq!(s.certain(&f, &lifted, f[1].score + 0.01, 1), 0);
            assert_eq!(s.certain(&f, &lifted, 0.0, 1), 4);
            assert_eq!(s.certain(&fused(&["a1", "a2", "a3"]), &[0.1, 0.1, 0.1], 0.0, 2), 2);
        });
    }
}
