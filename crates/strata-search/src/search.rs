//! A search: plan → retrieve → fuse → assemble.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use serde::Serialize;
use strata_core::config::SearchConfig;
use strata_core::{ChunkKind, Error, PageRange, Result, Span};
use strata_index::{Filter, StoreRead};

use strata_embed::Embedder;

use crate::fuse::{Fused, Fusion, Leg, LegRank, RankedList, Rrf};
use crate::hierarchy;
use crate::plan::Plan;
use crate::retrieve::{self, LEG_DEPTH};

/// Search modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// BM25 only.
    Keyword,
    /// Section numbers, defined terms and quoted phrases only.
    Exact,
    /// Keyword and exact fused with RRF; exact hits first for identifier queries.
    Hybrid,
    /// Embeddings only (needs a dense index).
    Dense,
    /// The best sections (ranked by the chunk evidence under them, legs fused), then the best
    /// chunks inside each.
    Hierarchical,
}

impl Mode {
    /// Parses a mode name; the error lists the valid ones.
    pub fn parse(s: &str) -> Result<Mode> {
        Ok(match s {
            "keyword" => Mode::Keyword,
            "exact" => Mode::Exact,
            "hybrid" => Mode::Hybrid,
            "dense" => Mode::Dense,
            "hierarchical" => Mode::Hierarchical,
            other => {
                return Err(Error::user(format!(
                    "unknown mode {other:?}; use one of {}",
                    strata_core::config::MODES.join(", ")
                )))
            }
        })
    }
}

/// A search request, the same whichever front-end it came from.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// Mode.
    pub mode: Mode,
    /// Number of results, 1 to [`strata_core::config::MAX_K`].
    pub k: usize,
    /// Restrictions.
    pub filter: Filter,
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Source path.
    pub source_path: String,
    /// Node id of the section (`0042`).
    pub node_id: String,
    /// Heading path from the top section down.
    pub heading_path: Vec<String>,
    /// Section number key of the chunk's section, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_number: Option<String>,
    /// Pages.
    pub pages: PageRange,
    /// Byte span in the document text.
    pub span: Span,
    /// Chunk kind.
    pub kind: ChunkKind,
    /// Fused score.
    pub score: f64,
    /// Hierarchical mode: the rank (from 1) of the hit's section among the sections returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_rank: Option<usize>,
    /// Rank (from 1) and the leg's own score, per leg that found the chunk.
    pub legs: BTreeMap<Leg, LegRank>,
    /// The chunk's text.
    pub text: String,
}

/// What a search returns.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    /// The query.
    pub query: String,
    /// Mode used.
    pub mode: Mode,
    /// What the planner read in the query.
    pub plan: Plan,
    /// Results, best first.
    pub hits: Vec<SearchHit>,
    /// Milliseconds spent.
    pub took_ms: f64,
    /// Milliseconds per stage.
    pub timings: Timings,
}

/// Milliseconds spent in each stage of one search; `None` for a stage that did not run. In
/// hybrid mode the dense stages run beside the lexical ones, so the stages may add up to
/// more than the total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Reading the query (identifiers, phrases, terms).
    pub plan: f64,
    /// Embedding the query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<f64>,
    /// Vector search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense: Option<f64>,
    /// BM25.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<f64>,
    /// Identifiers, phrases and terms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<f64>,
    /// Fusing the legs' lists.
    pub fuse: f64,
    /// Hierarchical mode: ranking sections and picking their chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<f64>,
    /// Loading the returned chunks.
    pub fetch: f64,
    /// The whole search.
    pub total: f64,
}

impl Timings {
    /// The stages that ran, by name, in pipeline order.
    pub fn stages(&self) -> Vec<(&'static str, f64)> {
        let mut stages = vec![("plan", self.plan)];
        let optional =
            [("embed", self.embed), ("dense", self.dense), ("keyword", self.keyword), ("exact", self.exact)];
        stages.extend(optional.into_iter().filter_map(|(name, ms)| ms.map(|ms| (name, ms))));
        stages.push(("fuse", self.fuse));
        stages.extend(self.sections.map(|ms| ("sections", ms)));
        stages.extend([("fetch", self.fetch), ("total", self.total)]);
        stages
    }
}

fn ms_since(at: Instant) -> f64 {
    at.elapsed().as_secs_f64() * 1000.0
}

/// Runs `f` and returns its result with the milliseconds it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let at = Instant::now();
    let out = f();
    (out, ms_since(at))
}

/// Runs searches against a store.
pub struct Searcher<'s> {
    store: &'s dyn StoreRead,
    config: SearchConfig,
    defined_terms: Vec<String>,
    embedder: Option<&'s dyn Embedder>,
}

impl<'s> Searcher<'s> {
    /// A searcher over `store` with search settings.
    pub fn new(store: &'s dyn StoreRead, config: SearchConfig) -> Result<Searcher<'s>> {
        let defined_terms = store.defined_terms()?;
        Ok(Searcher { store, config, defined_terms, embedder: None })
    }

    /// Gives the searcher the query embedder of the dense leg. It must be the model the
    /// index's vectors were made with.
    pub fn with_embedder(mut self, embedder: &'s dyn Embedder) -> Result<Searcher<'s>> {
        if let Some(dense) = &self.store.manifest().dense {
            let info = embedder.info();
            if info.model_id != dense.model || info.dim != dense.dim {
                return Err(Error::user(format!(
                    "the index's vectors were made with {} ({} dimensions), the query embedder is {} ({}); \
                     pass --model {} or set [dense] model",
                    dense.model, dense.dim, info.model_id, info.dim, dense.model
                )));
            }
        }
        self.embedder = Some(embedder);
        Ok(self)
    }

    /// Whether the dense leg can run: the index has vectors and an embedder was given.
    pub fn has_dense(&self) -> bool {
        self.embedder.is_some() && self.store.manifest().dense.is_some()
    }

    /// The dense leg's hits, with the milliseconds spent embedding the query and searching.
    fn dense_leg(&self, query: &str, filter: &Filter, depth: usize) -> Result<DenseLeg> {
        match (self.embedder, &self.store.manifest().dense) {
            (Some(embedder), Some(_)) => {
                let (vector, embed_ms) = timed(|| embedder.embed_query(query));
                let (hits, search_ms) = timed(|| self.store.dense(&vector?, filter, depth));
                Ok(DenseLeg { hits: hits?, embed_ms, search_ms })
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

    /// Runs one search.
    #[tracing::instrument(name = "search", skip_all, fields(query = %req.query, mode = ?req.mode, k = req.k))]
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let started = Instant::now();
        if req.query.trim().is_empty() {
            return Err(Error::user(
                "the query is empty; give some words, a quoted phrase or a section number",
            ));
        }
        if !(1..=strata_core::config::MAX_K).contains(&req.k) {
            return Err(Error::user(format!(
                "k must be between 1 and {}, got {}",
                strata_core::config::MAX_K,
                req.k
            )));
        }
        let mut timings = Timings::default();
        let (plan, plan_ms) = timed(|| Plan::read(&req.query, &self.defined_terms));
        timings.plan = plan_ms;
        tracing::debug!(?plan, "plan");
        let depth = LEG_DEPTH.max(req.k);
        let mut section_rank: HashMap<String, usize> = HashMap::new();
        let fused: Vec<Fused> = match req.mode {
            Mode::Hierarchical => {
                let (lists, pinned) = self.hybrid_lists(req, &plan, depth, &mut timings)?;
                let mut fused = self.fuse(&lists, &mut timings);
                pin_first(&mut fused, &pinned, req.k);
                let at = Instant::now();
                let (ordered, ranks) = self.by_section(&lists, fused, &pinned)?;
                section_rank = ranks;
                timings.sections = Some(ms_since(at));
                ordered
            }
            Mode::Dense => {
                let dense = self.dense_leg(&req.query, &req.filter, depth)?;
                timings.embed = Some(dense.embed_ms);
                timings.dense = Some(dense.search_ms);
                let lists = [RankedList { leg: Leg::Dense, weight: 1.0, hits: dense.hits }];
                self.fuse(&lists, &mut timings)
            }
            Mode::Keyword => {
                let (hits, ms) = timed(|| retrieve::keyword(self.store, &plan, &req.filter, depth));
                timings.keyword = Some(ms);
                self.fuse(&[RankedList { leg: Leg::Keyword, weight: 1.0, hits: hits? }], &mut timings)
            }
            Mode::Exact => {
                let (hits, ms) =
                    timed(|| retrieve::exact(self.store, &plan, &req.filter, depth, &HashMap::new()));
                timings.exact = Some(ms);
                self.fuse(&[RankedList { leg: Leg::Exact, weight: 1.0, hits: hits?.hits }], &mut timings)
            }
            Mode::Hybrid => {
                let (lists, pinned) = self.hybrid_lists(req, &plan, depth, &mut timings)?;
                let mut fused = self.fuse(&lists, &mut timings);
                pin_first(&mut fused, &pinned, req.k);
                fused
            }
        };
        let top: Vec<&Fused> = fused.iter().take(req.k).collect();
        let ids: Vec<String> = top.iter().map(|f| f.chunk.clone()).collect();
        let fetch_at = Instant::now();
        let chunks = self.store.chunks(&ids)?;
        let by_id: HashMap<&str, _> = chunks.iter().map(|c| (c.chunk.id.as_str(), c)).collect();
        let hits = top
            .into_iter()
            .filter_map(|f| {
                let c = by_id.get(f.chunk.as_str())?;
                Some(SearchHit {
                    chunk_id: c.chunk.id.clone(),
                    doc_id: c.chunk.doc.to_string(),
                    doc_title: c.doc_title.clone(),
                    source_path: c.source_path.clone(),
                    node_id: c.chunk.node.to_string(),
                    heading_path: c.chunk.heading_path.clone(),
                    section_number: c.number.clone(),
                    pages: c.chunk.pages,
                    span: c.chunk.span,
                    kind: c.chunk.kind,
                    score: f.score,
                    section_rank: section_rank.get(&f.chunk).copied(),
                    legs: f.legs.clone(),
                    text: c.text.clone(),
                })
            })
            .collect();
        timings.fetch = ms_since(fetch_at);
        timings.total = ms_since(started);
        Ok(SearchResponse {
            query: req.query.clone(),
            mode: req.mode,
            plan,
            hits,
            took_ms: timings.total,
            timings,
        })
    }

    /// The hybrid legs' lists (keyword, exact, and dense when it can run, concurrently) and
    /// the exact identifier hits to pin first.
    fn hybrid_lists(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        timings: &mut Timings,
    ) -> Result<(Vec<RankedList>, Vec<String>)> {
        let weights = &self.config.weights;
        let lexical = || -> Result<_> {
            let (kw, kw_ms) = timed(|| retrieve::keyword(self.store, plan, &req.filter, depth));
            let kw = kw?;
            let kw_rank: HashMap<String, usize> =
                kw.iter().enumerate().map(|(i, h)| (h.chunk.clone(), i)).collect();
            let (ex, ex_ms) = timed(|| retrieve::exact(self.store, plan, &req.filter, depth, &kw_rank));
            Ok((kw, ex?, kw_ms, ex_ms))
        };
        // The dense leg (embedding the query is the slow part) runs beside the lexical legs.
        let run_dense = self.has_dense() && weights.dense > 0.0;
        let (lexical, dense) = std::thread::scope(|s| {
            let dense = run_dense.then(|| s.spawn(|| self.dense_leg(&req.query, &req.filter, depth)));
            let lexical = lexical();
            let dense =
                dense.map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("dense leg panicked".into()))));
            (lexical, dense)
        });
        let ((kw, ex, kw_ms, ex_ms), dense) = (lexical?, dense.transpose()?);
        timings.keyword = Some(kw_ms);
        timings.exact = Some(ex_ms);
        let pinned: Vec<String> = ex.hits[..ex.identifier_hits].iter().map(|h| h.chunk.clone()).collect();
        let mut lists = vec![
            RankedList { leg: Leg::Keyword, weight: weights.keyword, hits: kw },
            RankedList { leg: Leg::Exact, weight: weights.exact, hits: ex.hits },
        ];
        if let Some(dense) = dense {
            timings.embed = Some(dense.embed_ms);
            timings.dense = Some(dense.search_ms);
            lists.push(RankedList { leg: Leg::Dense, weight: weights.dense, hits: dense.hits });
        }
        Ok((lists, pinned))
    }

    /// Hierarchical order: the chosen sections in rank order, each with its best chunks; and
    /// each returned chunk's section rank.
    fn by_section(
        &self,
        lists: &[RankedList],
        fused: Vec<Fused>,
        pinned: &[String],
    ) -> Result<(Vec<Fused>, HashMap<String, usize>)> {
        let mut ids: Vec<String> =
            lists.iter().flat_map(|l| l.hits.iter().map(|h| h.chunk.clone())).collect();
        ids.sort();
        ids.dedup();
        let section_of: HashMap<String, hierarchy::SectionKey> = self
            .store
            .chunks(&ids)?
            .into_iter()
            .map(|c| (c.chunk.id.clone(), (c.chunk.doc.clone(), c.chunk.node)))
            .collect();
        let picked = hierarchy::select(
            lists,
            &fused,
            pinned,
            &section_of,
            self.config.rrf_k,
            self.config.sections,
            self.config.chunks_per_section,
        );
        let mut ordered = Vec::new();
        let mut ranks = HashMap::new();
        for (rank, section) in picked.iter().enumerate() {
            for &i in &section.chunks {
                ranks.insert(fused[i].chunk.clone(), rank + 1);
                ordered.push(fused[i].clone());
            }
        }
        Ok((ordered, ranks))
    }

    fn fuse(&self, lists: &[RankedList], timings: &mut Timings) -> Vec<Fused> {
        let (fused, ms) = timed(|| Rrf { k: self.config.rrf_k }.fuse(lists));
        timings.fuse = ms;
        fused
    }
}

/// What the dense leg found, and the time it took.
struct DenseLeg {
    hits: Vec<strata_index::LegHit>,
    embed_ms: f64,
    search_ms: f64,
}

/// Moves the exact identifier hits to the front, in their exact-leg order, so that a query
/// naming a section returns that section first whatever BM25 thinks. Only the first `k`
/// pinned hits move.
fn pin_first(fused: &mut Vec<Fused>, pinned: &[String], k: usize) {
    if pinned.is_empty() {
        return;
    }
    let mut front = Vec::new();
    for id in pinned.iter().take(k) {
        if let Some(i) = fused.iter().position(|f| &f.chunk == id) {
            front.push(fused.remove(i));
        }
    }
    front.append(fused);
    *fused = front;
}
