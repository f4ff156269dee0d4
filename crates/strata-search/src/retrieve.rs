//! The retrieve stage: one ranked list per leg and level for the request's mode.
//!
//! - chunks: keyword (BM25), exact (section identifiers, quoted phrases, defined terms) and
//!   dense (the query embedded, then a vector search);
//! - sections (hierarchical mode, when `[search.weights] sections` is above 0): BM25 and
//!   dense over each section's profile.
//!
//! In hybrid and hierarchical mode the dense legs run on their own thread beside the lexical
//! ones. Each leg's time goes into [`Timings`].

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use strata_core::config::LegWeights;
use strata_core::{ChunkId, DocId, Error, NodeId, Result};
use strata_index::{Filter, LegHit, SectionHit, StoreRead, StoredChunk};
use strata_model::Embedder;
use strata_text::number;

use crate::documents::DocumentHit;
use crate::fuse::{Leg, RankedList};
use crate::plan::Plan;
use crate::request::{Mode, SearchRequest};
use crate::response::Timings;

/// How many candidates each leg contributes to fusion, at least.
pub const LEG_DEPTH: usize = 100;

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

/// What the retrieve stage hands on.
pub struct Retrieved {
    /// One ranked list per chunk leg.
    pub lists: Vec<RankedList>,
    /// Exact identifier hits, to rank first.
    pub pinned: Vec<ChunkId>,
    /// The query vector, when the dense leg ran.
    pub vector: Option<Vec<f32>>,
    /// Sections found by their profile, one list per section leg (hierarchical mode).
    pub sections: Vec<SectionList>,
}

/// What the legs search: the store, the query embedder when the dense leg can run, and the
/// legs' weights.
#[derive(Clone, Copy)]
pub struct Legs<'s> {
    /// The store searched.
    pub store: &'s dyn StoreRead,
    /// The query embedder of the dense legs.
    pub embedder: Option<&'s dyn Embedder>,
    /// Each leg's weight in fusion (a leg of weight 0 does not run in hybrid mode).
    pub weights: &'s LegWeights,
    /// The documents the query names (the documents stage's shortlist): the keyword and
    /// dense legs also search each of them alone, so that their chunks reach fusion even
    /// when other documents fill a leg's list.
    pub scope: &'s [DocumentHit],
    /// The query's vector when an earlier stage (the documents stage) embedded it already.
    pub vector: Option<&'s [f32]>,
}

/// Milliseconds since `at`.
pub(crate) fn ms_since(at: Instant) -> f64 {
    at.elapsed().as_secs_f64() * 1000.0
}

/// Runs `f` and returns its result with the milliseconds it took.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let at = Instant::now();
    let out = f();
    (out, ms_since(at))
}

/// What the dense leg found, the query vector, and the time it took.
struct DenseLeg {
    hits: Vec<LegHit>,
    vector: Vec<f32>,
    /// `None` when the query came embedded ([`Legs::vector`]).
    embed_ms: Option<f64>,
    search_ms: f64,
}

impl<'s> Legs<'s> {
    /// Whether the dense leg can run: the index has vectors and an embedder was given.
    pub fn has_dense(&self) -> bool {
        self.embedder.is_some() && self.store.manifest().dense.is_some()
    }

    /// The retrieve stage for the request's mode, `depth` hits per leg.
    pub fn retrieve(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        timings: &mut Timings,
    ) -> Result<Retrieved> {
        let single = |leg: Leg, hits: Vec<LegHit>| vec![RankedList { leg, weight: 1.0, hits }];
        let none = |lists| Retrieved { lists, pinned: Vec::new(), vector: None, sections: Vec::new() };
        Ok(match req.mode {
            Mode::Hybrid | Mode::Hierarchical => self.hybrid(req, plan, depth, timings)?,
            Mode::Dense => {
                let dense = self.dense(&req.query, &req.filter, depth)?;
                timings.embed = dense.embed_ms.or(timings.embed);
                timings.dense = Some(dense.search_ms);
                Retrieved { vector: Some(dense.vector), ..none(single(Leg::Dense, dense.hits)) }
            }
            Mode::Keyword => {
                let (hits, ms) = timed(|| keyword(self.store, plan, &req.filter, depth));
                timings.keyword = Some(ms);
                none(single(Leg::Keyword, hits?))
            }
            Mode::Exact => {
                let (hits, ms) = timed(|| exact(self.store, plan, &req.filter, depth, &HashMap::new()));
                timings.exact = Some(ms);
                none(single(Leg::Exact, hits?.hits))
            }
        })
    }

    /// The dense leg's hits, with the milliseconds spent embedding the query and searching.
    fn dense(&self, query: &str, filter: &Filter, depth: usize) -> Result<DenseLeg> {
        match (self.embedder, &self.store.manifest().dense) {
            (Some(embedder), Some(_)) => {
                let (vector, embed_ms) = match self.vector {
                    Some(v) => (v.to_vec(), None),
                    None => {
                        let (vector, ms) = timed(|| embedder.embed_query(query));
                        (vector?, Some(ms))
                    }
                };
                let (hits, search_ms) = timed(|| self.store.dense(&vector, filter, depth));
                Ok(DenseLeg { hits: hits?, vector, embed_ms, search_ms })
            }
            (_, None) => Err(Error::user(
                "this index has no vectors: ingest with the dense leg on ([dense] enabled = true, the default) \
                 to use --mode dense",
            )),
            (None, Some(d)) => Err(Error::user(format!(
                "the dense leg needs the query embedder {}, which was not loaded (is [dense] enabled = false \
                 or STRATA_DENSE_ENABLED=false?)",
                d.model
            ))),
        }
    }

    /// The lexical legs of hybrid mode: keyword, then exact (which orders its documents by
    /// the keyword ranks), and in hierarchical mode the BM25 section leg.
    fn lexical(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        with_sections: bool,
    ) -> Result<Lexical> {
        let (keyword, keyword_ms) = timed(|| {
            let global = keyword(self.store, plan, &req.filter, depth)?;
            self.deepen(global, &req.filter, |filter| keyword(self.store, plan, filter, depth))
        });
        let keyword = keyword?;
        let keyword_rank: HashMap<ChunkId, usize> =
            keyword.iter().enumerate().map(|(i, h)| (h.chunk.clone(), i)).collect();
        let (exact, exact_ms) = timed(|| exact(self.store, plan, &req.filter, depth, &keyword_rank));
        let sections = if with_sections {
            self.store.section_keyword(&req.query, &req.filter, depth)?
        } else {
            Vec::new()
        };
        Ok(Lexical { keyword, exact: exact?, keyword_ms, exact_ms, sections })
    }

    /// The dense leg and, in hierarchical mode, the dense section leg with the same query
    /// vector.
    fn dense_legs(
        &self,
        req: &SearchRequest,
        depth: usize,
        with_sections: bool,
    ) -> Result<(DenseLeg, Vec<SectionHit>)> {
        let mut leg = self.dense(&req.query, &req.filter, depth)?;
        let at = Instant::now();
        let global = std::mem::take(&mut leg.hits);
        leg.hits = self.deepen(global, &req.filter, |filter| self.store.dense(&leg.vector, filter, depth))?;
        leg.search_ms += ms_since(at);
        let sections = if with_sections {
            self.store.section_dense(&leg.vector, &req.filter, depth)?
        } else {
            Vec::new()
        };
        Ok((leg, sections))
    }

    /// The hybrid legs' lists (keyword, exact, and dense when it can run; in hierarchical
    /// mode also the section legs), the dense legs on their own thread beside the lexical ones.
    fn hybrid(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        timings: &mut Timings,
    ) -> Result<Retrieved> {
        let weights = self.weights;
        let with_sections = req.mode == Mode::Hierarchical && weights.sections > 0.0;
        let run_dense = self.has_dense() && weights.dense > 0.0;
        let (lexical, dense) = std::thread::scope(|s| {
            let dense = run_dense.then(|| s.spawn(|| self.dense_legs(req, depth, with_sections)));
            let lexical = self.lexical(req, plan, depth, with_sections);
            let dense =
                dense.map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("dense leg panicked".into()))));
            (lexical, dense)
        });
        let (lexical, dense) = (lexical?, dense.transpose()?);
        timings.keyword = Some(lexical.keyword_ms);
        timings.exact = Some(lexical.exact_ms);
        let ex = lexical.exact;
        let pinned: Vec<ChunkId> = ex.hits[..ex.identifier_hits].iter().map(|h| h.chunk.clone()).collect();
        let mut lists = vec![
            RankedList { leg: Leg::Keyword, weight: weights.keyword, hits: lexical.keyword },
            RankedList { leg: Leg::Exact, weight: weights.exact, hits: ex.hits },
        ];
        let mut vector = None;
        let mut section_lists = vec![SectionList {
            weight: weights.sections,
            sections: lexical.sections.into_iter().map(|s| (s.doc, s.node)).collect(),
        }];
        if let Some((dense, dense_sections)) = dense {
            timings.embed = dense.embed_ms.or(timings.embed);
            timings.dense = Some(dense.search_ms);
            lists.push(RankedList { leg: Leg::Dense, weight: weights.dense, hits: dense.hits });
            vector = Some(dense.vector);
            // An index without section vectors has no dense section leg: no list, no weight.
            if !dense_sections.is_empty() {
                let sections = dense_sections.into_iter().map(|s| (s.doc, s.node)).collect();
                section_lists.push(SectionList { weight: weights.sections, sections });
            }
        }
        Ok(Retrieved { lists, pinned, vector, sections: section_lists })
    }
}

impl Legs<'_> {
    /// A leg's `global` hits with its hits inside each document of the scope (`search` run
    /// with the filter narrowed to it), best score first. A leg scores a chunk alike with or
    /// without a document filter, so the merge is the leg's own ranking, deeper in those
    /// documents; on equal scores the global hits come first.
    fn deepen(
        &self,
        global: Vec<LegHit>,
        filter: &Filter,
        search: impl Fn(&Filter) -> Result<Vec<LegHit>>,
    ) -> Result<Vec<LegHit>> {
        if self.scope.is_empty() || filter.doc.is_some() {
            return Ok(global);
        }
        let mut seen: HashSet<ChunkId> = global.iter().map(|h| h.chunk.clone()).collect();
        let mut out = global;
        for doc in self.scope {
            let narrowed = Filter { doc: Some(doc.doc.clone()), ..filter.clone() };
            out.extend(search(&narrowed)?.into_iter().filter(|h| seen.insert(h.chunk.clone())));
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(out)
    }
}

/// The lexical legs' hits and times.
struct Lexical {
    keyword: Vec<LegHit>,
    exact: ExactHits,
    keyword_ms: f64,
    exact_ms: f64,
    sections: Vec<SectionHit>,
}

/// BM25 leg.
pub fn keyword(store: &dyn StoreRead, plan: &Plan, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
    store.keyword(&plan.query, filter, limit)
}

/// Exact leg: section identifiers first (nearest existing ancestor when the exact number has
/// no heading, so `102(b)` finds § 102), then chunks that hold a quoted phrase, then chunks
/// that define a term the query asks about.
///
/// Within an identifier's section, the chunk that holds the named subsection (`(b)` at the
/// start of a line or paragraph) comes first, then the section's chunks in order. Across
/// documents, the document whose chunks rank higher on `keyword_rank` comes first.
pub fn exact(
    store: &dyn StoreRead,
    plan: &Plan,
    filter: &Filter,
    limit: usize,
    keyword_rank: &HashMap<ChunkId, usize>,
) -> Result<ExactHits> {
    let mut out: Vec<LegHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for id in &plan.identifiers {
        let mut keys = vec![id.key.clone()];
        keys.extend(number::parents(&id.key));
        for (depth, key) in keys.iter().enumerate() {
            let hits = store.exact_numbers(std::slice::from_ref(key), filter, 1000)?;
            if hits.is_empty() {
                continue;
            }
            let suffix = &id.key[key.len()..];
            let ids: Vec<ChunkId> = hits.iter().map(|h| h.chunk.clone()).collect();
            let chunks = store.chunks(&ids)?;
            let mut doc_best: HashMap<&str, usize> = HashMap::new();
            for c in &chunks {
                let r = keyword_rank.get(&c.chunk.id).copied().unwrap_or(usize::MAX);
                let e = doc_best.entry(c.chunk.doc.as_str()).or_insert(usize::MAX);
                *e = (*e).min(r);
            }
            let mut ranked: Vec<(&StoredChunk, (usize, bool, u32))> = chunks
                .iter()
                .map(|c| {
                    let doc_rank = doc_best.get(c.chunk.doc.as_str()).copied().unwrap_or(usize::MAX);
                    let holds = !suffix.is_empty() && holds_subsection(&c.text, suffix);
                    (c, (doc_rank, !holds, c.chunk.ordinal))
                })
                .collect();
            ranked.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.chunk.doc.cmp(&b.0.chunk.doc)));
            for (c, _) in ranked {
                if seen.insert(c.chunk.id.clone()) {
                    out.push(LegHit { chunk: c.chunk.id.clone(), score: 1.0 / (1.0 + depth as f32) });
                }
            }
            break;
        }
    }
    let identifier_hits = out.len();
    for phrase in &plan.phrases {
        for hit in store.exact_phrase(phrase, filter, limit)? {
            if seen.insert(hit.chunk.clone()) {
                out.push(hit);
            }
        }
    }
    // Chunks that define a term score alike on the exact leg; the one the keyword leg ranks
    // higher (the definitions section over a passing "X includes") comes first.
    let mut defining = store.exact_terms(&plan.terms, filter, limit)?;
    defining.sort_by_key(|h| keyword_rank.get(&h.chunk).copied().unwrap_or(usize::MAX));
    for hit in defining {
        if seen.insert(hit.chunk.clone()) {
            out.push(hit);
        }
    }
    out.truncate(limit.max(LEG_DEPTH));
    Ok(ExactHits { identifier_hits: identifier_hits.min(out.len()), hits: out })
}

/// The exact leg's list; its first `identifier_hits` come from section identifiers.
#[derive(Debug, Clone, Default)]
pub struct ExactHits {
    /// Hits, best first.
    pub hits: Vec<LegHit>,
    /// How many leading hits matched a section identifier.
    pub identifier_hits: usize,
}

/// True when `text` has the first subsection marker of `suffix` (`(b)` of `(b)(1)`) at the
/// start of a line or paragraph.
fn holds_subsection(text: &str, suffix: &str) -> bool {
    let Some(end) = suffix.find(')') else { return false };
    let marker = &suffix[..=end];
    text.lines().any(|l| l.trim_start().to_ascii_lowercase().starts_with(marker))
}
