//! A search: plan → retrieve → fuse → (rerank) → (sections) → fetch → expand → highlight →
//! assemble.
//!
//! The [`Searcher`] runs the stages in that order for every mode; the mode only decides
//! which legs retrieve and whether sections are ranked before chunks. Each stage's time is
//! reported in [`Timings`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use strata_core::config::SearchConfig;
use strata_core::{DocId, Error, NodeId, Result};
use strata_embed::rerank::Reranker;
use strata_embed::Embedder;
use strata_index::{Filter, LegHit, StoreRead};
use strata_ingest::tokenize::Tokenizer;

use crate::assemble::{self, Block, Item};
use crate::expand::{self, Docs};
use crate::fuse::{self, Fused, Fusion, Leg, RankedList};
use crate::hierarchy::{self, SectionKey, SectionList};
use crate::highlight::{self, Passage};
use crate::plan::Plan;
use crate::request::{Mode, SearchRequest};
use crate::rerank;
use crate::response::{SearchHit, SearchResponse, Timings};
use crate::retrieve::{self, LEG_DEPTH};

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
    defined_terms: Arc<[String]>,
    embedder: Option<&'s dyn Embedder>,
    tokenizer: Option<Arc<dyn Tokenizer>>,
    fusion: Box<dyn Fusion + Send + Sync>,
    reranker: Option<(&'s dyn Reranker, usize)>,
}

/// What the retrieve stage hands on.
struct Retrieved {
    lists: Vec<RankedList>,
    /// Exact identifier hits, to rank first.
    pinned: Vec<String>,
    /// The query vector, when the dense leg ran.
    vector: Option<Vec<f32>>,
    /// Sections found by their profile, one list per section leg (hierarchical mode).
    sections: Vec<SectionList>,
}

impl<'s> Searcher<'s> {
    /// A searcher over `store` with search settings.
    pub fn new(store: &'s dyn StoreRead, config: SearchConfig) -> Result<Searcher<'s>> {
        let defined_terms = store.defined_terms()?.into();
        Ok(Searcher::with_defined_terms(store, config, defined_terms))
    }

    /// A searcher over `store` given the store's defined terms
    /// ([`StoreRead::defined_terms`]), read once per commit by a server rather than once per
    /// search.
    pub fn with_defined_terms(
        store: &'s dyn StoreRead,
        config: SearchConfig,
        defined_terms: Arc<[String]>,
    ) -> Searcher<'s> {
        let fusion = fuse::fusion(config.fusion, config.rrf_k);
        Searcher { store, config, defined_terms, embedder: None, tokenizer: None, fusion, reranker: None }
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

    /// Gives the searcher the tokenizer that counts the assembled context. It must be the
    /// index's own (the manifest names it), so that budgets mean what chunk sizes mean.
    pub fn with_tokenizer(mut self, tokenizer: Arc<dyn Tokenizer>) -> Result<Searcher<'s>> {
        let wanted = &self.store.manifest().tokenizer;
        if tokenizer.id() != wanted {
            return Err(Error::user(format!(
                "the index counts tokens with {wanted}, the searcher was given {}; use the index's tokenizer",
                tokenizer.id()
            )));
        }
        self.tokenizer = Some(tokenizer);
        Ok(self)
    }

    /// Gives the searcher a reranker for the top `candidates` fused results of requests
    /// that ask for it ([`SearchRequest::rerank`]).
    pub fn with_reranker(mut self, reranker: &'s dyn Reranker, candidates: usize) -> Searcher<'s> {
        self.reranker = Some((reranker, candidates.max(1)));
        self
    }

    /// The reranker's id, when the searcher has one.
    pub fn reranker(&self) -> Option<&str> {
        self.reranker.map(|(r, _)| r.id())
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
                let vector = vector?;
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

    /// Runs one search.
    #[tracing::instrument(name = "search", skip_all, fields(query = %req.query, mode = ?req.mode, k = req.k))]
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let started = Instant::now();
        self.validate(req)?;
        let mut timings = Timings::default();
        let (plan, plan_ms) = timed(|| Plan::read(&req.query, &self.defined_terms));
        timings.plan = plan_ms;
        tracing::debug!(?plan, "plan");
        let depth = LEG_DEPTH.max(req.k);

        let retrieved = self.retrieve(req, &plan, depth, &mut timings)?;
        let (mut fused, fuse_ms) = timed(|| self.fusion.fuse(&retrieved.lists));
        timings.fuse = fuse_ms;
        let pinned = pin_first(&mut fused, &retrieved.pinned, req.k);
        let mut warnings = Vec::new();
        if let (true, Some((reranker, candidates))) = (req.rerank, self.reranker) {
            let at = Instant::now();
            if let Err(e) = rerank::rerank(self.store, reranker, candidates, &req.query, &mut fused, pinned) {
                tracing::warn!(reranker = reranker.id(), error = %e, "reranking failed; keeping the fused order");
                warnings.push(format!("reranker {} failed, results are in fused order: {e}", reranker.id()));
            }
            timings.rerank = Some(ms_since(at));
        }
        let mut section_rank: HashMap<String, usize> = HashMap::new();
        if req.mode == Mode::Hierarchical {
            let at = Instant::now();
            let (ordered, ranks) = self.by_section(req, &retrieved, fused)?;
            fused = ordered;
            section_rank = ranks;
            timings.sections = Some(ms_since(at));
        }

        // Fetch twice k: merging and dedupe can fold hits together, and the next ones fill
        // the freed places.
        let fetch_at = Instant::now();
        let top: Vec<&Fused> = fused.iter().take(req.k * 2).collect();
        let ids: Vec<String> = top.iter().map(|f| f.chunk.clone()).collect();
        let chunks = self.store.chunks(&ids)?;
        let by_id: HashMap<&str, _> = chunks.iter().map(|c| (c.chunk.id.as_str(), c)).collect();
        let mut hits: Vec<SearchHit> = top
            .into_iter()
            .filter_map(|f| {
                let mut hit = expand::chunk_hit(by_id.get(f.chunk.as_str())?);
                hit.score = f.score;
                hit.legs = f.legs.clone();
                hit.section_rank = section_rank.get(&f.chunk).copied();
                Some(hit)
            })
            .collect();
        let reserve = hits.split_off(hits.len().min(req.k));
        timings.fetch = ms_since(fetch_at);

        let expand_at = Instant::now();
        let mut docs = Docs::new(self.store);
        let x = &req.expand;
        hits = expand::auto_merge(self.store, hits, x.auto_merge, &req.filter)?;
        if let Some(around) = x.pages {
            hits = expand::whole_pages(&mut docs, hits, around, &req.filter)?;
        }
        hits = expand::dedupe(&mut docs, hits)?;
        for next in reserve {
            if hits.len() >= req.k {
                break;
            }
            let mut more = vec![next];
            if let Some(around) = x.pages {
                more = expand::whole_pages(&mut docs, more, around, &req.filter)?;
            }
            hits.extend(more);
            hits = expand::dedupe(&mut docs, hits)?;
        }
        let definitions = if x.definitions {
            expand::definitions(self.store, &mut docs, &plan, &hits, &req.filter)?
        } else {
            Vec::new()
        };
        let references = if x.references {
            expand::references(self.store, &mut docs, &hits, &req.filter)?
        } else {
            Vec::new()
        };
        timings.expand = ms_since(expand_at);

        if x.highlights > 0 && !hits.is_empty() {
            let at = Instant::now();
            let passages: Vec<Passage<'_>> =
                hits.iter().map(|h| Passage { text: &h.text, start: h.span.start }).collect();
            let dense = match (&retrieved.vector, self.embedder) {
                (Some(v), Some(e)) if x.dense_highlights => Some((v.as_slice(), e)),
                _ => None,
            };
            let found = highlight::highlight(&req.query, &passages, x.highlights, dense)?;
            for (hit, h) in hits.iter_mut().zip(found) {
                hit.highlights = h;
            }
            timings.highlight = Some(ms_since(at));
        }

        let mut response = SearchResponse {
            query: req.query.clone(),
            mode: req.mode,
            plan,
            hits,
            definitions,
            references,
            context: None,
            warnings,
            took_ms: 0.0,
            timings,
        };
        if let (Some(budget), Some(tokenizer)) = (req.budget, &self.tokenizer) {
            let at = Instant::now();
            let blocks = blocks(&mut docs, &response)?;
            response.context = Some(assemble::assemble(&blocks, budget, req.order, tokenizer.as_ref()));
            response.timings.assemble = Some(ms_since(at));
        }
        response.timings.total = ms_since(started);
        response.took_ms = response.timings.total;
        Ok(response)
    }

    fn validate(&self, req: &SearchRequest) -> Result<()> {
        if req.query.trim().is_empty() {
            return Err(Error::user(
                "the query is empty; give some words, a quoted phrase or a section number",
            ));
        }
        let max = strata_core::config::MAX_K;
        if !(1..=max).contains(&req.k) {
            return Err(Error::user(format!("k must be between 1 and {max}, got {}", req.k)));
        }
        if let Some(budget) = req.budget {
            let max = strata_core::config::MAX_BUDGET;
            if !(1..=max).contains(&budget) {
                return Err(Error::user(format!(
                    "the budget must be between 1 and {max} tokens, got {budget}"
                )));
            }
        }
        let merge = req.expand.auto_merge;
        if !(merge.is_finite() && (0.0..=1.0).contains(&merge)) {
            return Err(Error::user(format!(
                "the auto-merge share (--merge, [search] auto_merge) must be between 0 (off) and 1, got {merge}"
            )));
        }
        Ok(())
    }

    /// The retrieve stage for the request's mode.
    fn retrieve(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        timings: &mut Timings,
    ) -> Result<Retrieved> {
        let single = |leg: Leg, hits: Vec<LegHit>| vec![RankedList { leg, weight: 1.0, hits }];
        let none = |lists| Retrieved { lists, pinned: Vec::new(), vector: None, sections: Vec::new() };
        Ok(match req.mode {
            Mode::Hybrid | Mode::Hierarchical => self.hybrid_lists(req, plan, depth, timings)?,
            Mode::Dense => {
                let dense = self.dense_leg(&req.query, &req.filter, depth)?;
                timings.embed = Some(dense.embed_ms);
                timings.dense = Some(dense.search_ms);
                Retrieved { vector: Some(dense.vector), ..none(single(Leg::Dense, dense.hits)) }
            }
            Mode::Keyword => {
                let (hits, ms) = timed(|| retrieve::keyword(self.store, plan, &req.filter, depth));
                timings.keyword = Some(ms);
                none(single(Leg::Keyword, hits?))
            }
            Mode::Exact => {
                let (hits, ms) =
                    timed(|| retrieve::exact(self.store, plan, &req.filter, depth, &HashMap::new()));
                timings.exact = Some(ms);
                none(single(Leg::Exact, hits?.hits))
            }
        })
    }

    /// The hybrid legs' lists (keyword, exact, and dense when it can run; in hierarchical
    /// mode also the section leg), the dense leg on its own thread beside the lexical ones.
    fn hybrid_lists(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        depth: usize,
        timings: &mut Timings,
    ) -> Result<Retrieved> {
        let weights = &self.config.weights;
        let with_sections = req.mode == Mode::Hierarchical && weights.sections > 0.0;
        let lexical = || -> Result<_> {
            let (kw, kw_ms) = timed(|| retrieve::keyword(self.store, plan, &req.filter, depth));
            let kw = kw?;
            let kw_rank: HashMap<String, usize> =
                kw.iter().enumerate().map(|(i, h)| (h.chunk.clone(), i)).collect();
            let (ex, ex_ms) = timed(|| retrieve::exact(self.store, plan, &req.filter, depth, &kw_rank));
            let sections = if with_sections {
                self.store.section_keyword(&req.query, &req.filter, depth)?
            } else {
                Vec::new()
            };
            Ok((kw, ex?, kw_ms, ex_ms, sections))
        };
        let run_dense = self.has_dense() && weights.dense > 0.0;
        // The dense thread also runs the dense section leg, with the same query vector.
        let dense_legs = || -> Result<(DenseLeg, Vec<strata_index::SectionHit>)> {
            let leg = self.dense_leg(&req.query, &req.filter, depth)?;
            let sections = if with_sections {
                self.store.section_dense(&leg.vector, &req.filter, depth)?
            } else {
                Vec::new()
            };
            Ok((leg, sections))
        };
        let (lexical, dense) = std::thread::scope(|s| {
            let dense = run_dense.then(|| s.spawn(dense_legs));
            let lexical = lexical();
            let dense =
                dense.map(|h| h.join().unwrap_or_else(|_| Err(Error::Internal("dense leg panicked".into()))));
            (lexical, dense)
        });
        let ((kw, ex, kw_ms, ex_ms, sections), dense) = (lexical?, dense.transpose()?);
        timings.keyword = Some(kw_ms);
        timings.exact = Some(ex_ms);
        let pinned: Vec<String> = ex.hits[..ex.identifier_hits].iter().map(|h| h.chunk.clone()).collect();
        let mut lists = vec![
            RankedList { leg: Leg::Keyword, weight: weights.keyword, hits: kw },
            RankedList { leg: Leg::Exact, weight: weights.exact, hits: ex.hits },
        ];
        let mut vector = None;
        let mut section_lists = vec![SectionList {
            weight: weights.sections,
            sections: sections.into_iter().map(|s| (s.doc, s.node)).collect(),
        }];
        if let Some((dense, dense_sections)) = dense {
            timings.embed = Some(dense.embed_ms);
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

    /// Hierarchical order: the best sections in rank order, each with its best chunks; and
    /// each returned chunk's section rank.
    fn by_section(
        &self,
        req: &SearchRequest,
        retrieved: &Retrieved,
        fused: Vec<Fused>,
    ) -> Result<(Vec<Fused>, HashMap<String, usize>)> {
        let per_section = self.config.chunks_per_section;
        let wanted = self.config.sections.max(req.k.div_ceil(per_section));
        let mut ids: Vec<String> =
            retrieved.lists.iter().flat_map(|l| l.hits.iter().map(|h| h.chunk.clone())).collect();
        ids.sort();
        ids.dedup();
        let section_of: HashMap<String, SectionKey> = self
            .store
            .chunks(&ids)?
            .into_iter()
            .map(|c| (c.chunk.id.clone(), (c.chunk.doc.clone(), c.chunk.node)))
            .collect();
        let ranked = hierarchy::rank_sections(
            &retrieved.lists,
            &retrieved.sections,
            &retrieved.pinned,
            &section_of,
            self.config.rrf_k,
        );
        let mut taken = vec![false; fused.len()];
        let mut docs = Docs::new(self.store);
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
            // A section inside the filter's subtree only (section legs honour the filter,
            // but an ancestor's subtree may reach outside it).
            let (first, last) = match (&req.filter.doc, req.filter.nodes) {
                (Some(d), Some((lo, hi))) if d == doc => ((*node).max(lo), last.min(hi)),
                _ => (*node, last),
            };
            // Every ranked section has chunk evidence among the fused chunks; a section whose
            // chunks a better section already took is passed over.
            let chosen = hierarchy::assign(&fused, &section_of, doc, (first, last), per_section, &mut taken);
            if chosen.is_empty() {
                continue;
            }
            // The rest of this subtree's chunks stay with it: a section above it, ranked
            // lower, must not return them as its own (beyond chunks_per_section here).
            for (i, f) in fused.iter().enumerate() {
                if let Some((d, n)) = section_of.get(&f.chunk) {
                    if d == doc && (first..=last).contains(n) {
                        taken[i] = true;
                    }
                }
            }
            returned.push((doc.clone(), first, last));
            picked += 1;
            for i in chosen {
                ranks.insert(fused[i].chunk.clone(), picked);
                ordered.push(fused[i].clone());
            }
        }
        Ok((ordered, ranks))
    }
}

/// The context's blocks in importance order: hits by rank, each followed by the definitions
/// it uses (those the query names right after the first hit), then the references.
fn blocks(docs: &mut Docs<'_>, r: &SearchResponse) -> Result<Vec<Block>> {
    let mut label = |doc: &str, pages: strata_core::PageRange| -> Result<(String, String)> {
        Ok(match docs.meta(doc)? {
            Some(m) => (m.document.page_label(pages.first), m.document.page_label(pages.last)),
            None => (pages.first.to_string(), pages.last.to_string()),
        })
    };
    let mut defs: Vec<Block> = Vec::new();
    for (i, d) in r.definitions.iter().enumerate() {
        let (a, b) = label(&d.doc_id, d.pages)?;
        let citation = assemble::citation(&d.doc_title, &d.heading_path, (&a, &b));
        defs.push(Block {
            item: Item::Definition(i),
            group: d.doc_title.clone(),
            position: (d.doc_id.clone(), d.span.start),
            citation,
            text: format!("{}: {}", d.term, d.text),
        });
    }
    let mut out = Vec::new();
    let mut placed = vec![false; defs.len()];
    for (i, h) in r.hits.iter().enumerate() {
        let (a, b) = label(&h.doc_id, h.pages)?;
        out.push(Block {
            item: Item::Hit(i),
            group: h.doc_title.clone(),
            position: (h.doc_id.clone(), h.span.start),
            citation: assemble::citation(&h.doc_title, &h.heading_path, (&a, &b)),
            text: h.text.clone(),
        });
        for (j, d) in r.definitions.iter().enumerate() {
            let due = (i == 0 && d.in_query) || d.used_by.contains(&h.chunk_id);
            if due && !placed[j] {
                placed[j] = true;
                out.push(defs[j].clone());
            }
        }
    }
    out.extend(defs.iter().zip(&placed).filter(|(_, p)| !**p).map(|(d, _)| d.clone()));
    for (i, x) in r.references.iter().enumerate() {
        let (a, b) = label(&x.doc_id, x.pages)?;
        out.push(Block {
            item: Item::Reference(i),
            group: x.doc_title.clone(),
            position: (x.doc_id.clone(), x.span.start),
            citation: format!(
                "{} (referred to as {:?})",
                assemble::citation(&x.doc_title, &x.heading_path, (&a, &b)),
                x.raw
            ),
            text: x.text.clone(),
        });
    }
    Ok(out)
}

/// What the dense leg found, the query vector, and the time it took.
struct DenseLeg {
    hits: Vec<LegHit>,
    vector: Vec<f32>,
    embed_ms: f64,
    search_ms: f64,
}

/// Moves the exact identifier hits to the front, in their exact-leg order, so that a query
/// naming a section returns that section first whatever BM25 thinks. Only the first `k`
/// pinned hits move.
fn pin_first(fused: &mut Vec<Fused>, pinned: &[String], k: usize) -> usize {
    if pinned.is_empty() {
        return 0;
    }
    let mut front = Vec::new();
    for id in pinned.iter().take(k) {
        if let Some(i) = fused.iter().position(|f| &f.chunk == id) {
            front.push(fused.remove(i));
        }
    }
    let count = front.len();
    front.append(fused);
    *fused = front;
    count
}
