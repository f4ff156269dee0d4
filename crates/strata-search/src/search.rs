//! A search, stage by stage: plan → retrieve → fuse → rerank → hierarchy → fetch → expand →
//! highlight → show → cite → assemble.
//!
//! The [`Searcher`] only wires the stages; each lives in its own module, named as in
//! [`Timings`]. The mode decides which legs retrieve and whether the hierarchy stage lifts
//! the sections a query names and caps the chunks per section; rerank, hierarchy, highlight
//! and assemble run only when the request (and the searcher) asks for them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use strata_core::config::{HeadingScope, SearchConfig};
use strata_core::{DocId, Error, Result};
use strata_index::StoreRead;
use strata_model::rerank::Reranker;
use strata_model::Embedder;
use strata_text::tokenize::Tokenizer;

use crate::documents::{DocumentHit, DocumentIndex, Stage};
use crate::expand::{self, Docs, Expanded};
use crate::fuse::{self, Fused, Fusion};
use crate::headings::Headings;
use crate::metas::Metas;
use crate::plan::Plan;
use crate::request::{Mode, SearchRequest};
use crate::response::{SearchResponse, Timings};
use crate::retrieve::{ms_since, timed, Legs, Retrieved, LEG_DEPTH};
use crate::within::Within;
use crate::{assemble, cite, fetch, hierarchy, highlight, rerank, show, weigh};

/// What a searcher reads from its store once (a server: once per commit): the defined terms
/// the plan stage looks for, and the document profiles the documents stage ranks.
#[derive(Clone)]
pub struct Catalog {
    /// Every normalized defined term ([`StoreRead::defined_terms`]).
    pub defined_terms: Arc<[String]>,
    /// The document leg's index of every document's profile.
    pub documents: Arc<DocumentIndex>,
    /// Each document's heading terms, read when a hierarchical search first needs them.
    pub headings: Arc<Headings>,
    /// The documents' decoded metadata, read when a search first cites them.
    pub metas: Arc<Metas>,
}

impl Catalog {
    /// Reads the catalog of `store`.
    pub fn read(store: &dyn StoreRead) -> Result<Catalog> {
        let metas = Arc::new(Metas::default());
        Ok(Catalog {
            defined_terms: store.defined_terms()?.into(),
            documents: Arc::new(DocumentIndex::read(store)?),
            headings: Arc::new(Headings::over(metas.clone())),
            metas,
        })
    }
}

/// Runs searches against a store.
pub struct Searcher<'s> {
    store: &'s dyn StoreRead,
    config: SearchConfig,
    catalog: Catalog,
    embedder: Option<&'s dyn Embedder>,
    tokenizer: Option<Arc<dyn Tokenizer>>,
    fusion: Arc<dyn Fusion + Send + Sync>,
    reranker: Option<(&'s dyn Reranker, usize)>,
}

impl<'s> Searcher<'s> {
    /// A searcher over `store` with search settings.
    pub fn new(store: &'s dyn StoreRead, config: SearchConfig) -> Result<Searcher<'s>> {
        Ok(Searcher::with_catalog(store, config, Catalog::read(store)?))
    }

    /// A searcher over `store` given the store's [`Catalog`], read once per commit by a
    /// server rather than once per search.
    pub fn with_catalog(store: &'s dyn StoreRead, config: SearchConfig, catalog: Catalog) -> Searcher<'s> {
        let fusion = fuse::fusion(&config);
        Searcher { store, config, catalog, embedder: None, tokenizer: None, fusion, reranker: None }
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
        self.legs(&[], None).has_dense()
    }

    /// What the retrieve stage searches, the documents in `scope` deeper.
    fn legs<'a>(&'a self, scope: &'a [DocumentHit], vector: Option<&'a [f32]>) -> Legs<'a> {
        Legs { store: self.store, embedder: self.embedder, weights: &self.config.weights, scope, vector }
    }

    /// The documents stage of this searcher.
    fn documents_stage(&self) -> Stage<'_> {
        Stage {
            config: &self.config,
            index: &self.catalog.documents,
            store: self.store,
            embedder: self.embedder.filter(|_| self.has_dense()),
        }
    }

    /// Runs one search.
    #[tracing::instrument(name = "search", skip_all, fields(query = %req.query, mode = ?req.mode, k = req.k))]
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        req.validate()?;
        if req.conditions.is_empty() {
            return self.run(req);
        }
        let docs = self.catalog.documents.matching(&req.conditions);
        if docs.is_empty() {
            let asked: Vec<String> = req.conditions.iter().map(|(k, v)| format!("{k}={v}")).collect();
            return Err(Error::user(format!(
                "no document has {}; `strata docs` lists each document's metadata",
                asked.join(" and ")
            )));
        }
        let within = Within::new(self.store, docs);
        let narrowed = Searcher { store: &within, ..self.clone_settings() };
        narrowed.run(&SearchRequest { conditions: Vec::new(), ..req.clone() })
    }

    /// Everything but the store.
    fn clone_settings(&self) -> Searcher<'s> {
        Searcher {
            store: self.store,
            config: self.config.clone(),
            catalog: self.catalog.clone(),
            embedder: self.embedder,
            tokenizer: self.tokenizer.clone(),
            fusion: self.fusion.clone(),
            reranker: self.reranker,
        }
    }

    /// Runs the stages of one checked search.
    fn run(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let started = Instant::now();
        let mut timings = Timings::default();
        let stage = self.documents_stage();
        let (plan, plan_ms) = timed(|| {
            let mut plan = Plan::read(&req.query, &self.catalog.defined_terms);
            stage.read_titles(req, &mut plan);
            plan
        });
        timings.plan = plan_ms;
        tracing::debug!(?plan, "plan");
        let named = stage.run(req, &plan, &mut timings)?;
        let shortlist = named.shortlist();
        // What the chunk legs search: the query, or without the words that name documents.
        let (legs_req, legs_plan) = match &named.rest {
            Some(query) => (
                Cow::Owned(SearchRequest { query: query.clone(), ..req.clone() }),
                Cow::Owned(Plan { query: query.clone(), ..plan.clone() }),
            ),
            None => (Cow::Borrowed(req), Cow::Borrowed(&plan)),
        };
        let mut retrieved = self.legs(shortlist, named.vector.as_deref()).retrieve(
            &legs_req,
            &legs_plan,
            LEG_DEPTH.max(req.k),
            &mut timings,
        )?;
        let lifts = named.lifts(self.fusion.as_ref(), self.config.weights.documents);
        let (mut fused, fuse_ms) = timed(|| {
            weigh::weigh(&mut retrieved.lists, self.config.leg_evidence);
            let mut fused = self.fusion.fuse(&retrieved.lists);
            fuse::lift_documents(&mut fused, &lifts);
            fused
        });
        timings.fuse = fuse_ms;
        let sections = match req.mode {
            Mode::Hierarchical => {
                Some(self.sections(&legs_req, named.named(), &retrieved, &mut fused, &mut timings)?)
            }
            _ => None,
        };
        let pinned = fuse::pin_first(&mut fused, &retrieved.pinned, req.k);
        let warnings = self.rerank(req, &mut fused, pinned, &mut timings);
        let mut section_rank = HashMap::new();
        if let Some(mut sections) = sections {
            let at = Instant::now();
            (fused, section_rank) = sections.order(fused, pinned, self.config.chunks_per_section, req.k)?;
            *timings.hierarchy.get_or_insert(0.0) += ms_since(at);
        }
        let (fetched, fetch_ms) = timed(|| fetch::fetch(self.store, &fused, &section_rank, req.k));
        timings.fetch = fetch_ms;
        let (hits, reserve) = fetched?;

        let mut docs = Docs::new(self.store, &self.catalog.metas);
        let (expanded, expand_ms) =
            timed(|| expand::expand(self.store, &mut docs, hits, reserve, req, &plan));
        timings.expand = expand_ms;
        let Expanded { mut hits, mut definitions, more_definitions, mut references } = expanded?;
        let x = &req.expand;
        if x.highlights > 0 && !hits.is_empty() {
            let dense = match (&retrieved.vector, self.embedder) {
                (Some(v), Some(e)) if x.dense_highlights => Some(highlight::DenseScoring {
                    query: v.as_slice(),
                    embedder: e,
                    sentences: x.dense_highlight_sentences,
                }),
                _ => None,
            };
            let (found, ms) = timed(|| highlight::highlight_hits(&req.query, &mut hits, x.highlights, dense));
            found?;
            timings.highlight = Some(ms);
        }

        show::show(&mut docs, &mut hits)?;
        cite::cite(&mut docs, &mut hits, &mut definitions, &mut references)?;
        let mut response = SearchResponse {
            query: req.query.clone(),
            mode: req.mode,
            plan,
            hits,
            definitions,
            more_definitions,
            references,
            context: None,
            warnings,
            took_ms: 0.0,
            timings,
        };
        if let (Some(budget), Some(tokenizer)) = (req.budget, &self.tokenizer) {
            let at = Instant::now();
            let blocks = assemble::blocks(&response);
            response.context = Some(assemble::assemble(&blocks, budget, req.order, tokenizer.as_ref()));
            response.timings.assemble = Some(ms_since(at));
        }
        response.timings.total = ms_since(started);
        response.took_ms = response.timings.total;
        Ok(response)
    }

    /// The hierarchy stage's first half (hierarchical mode): the sections' terms added to
    /// `fused` before the rerank stage sees it, exact for every place the response (and the
    /// reranker) can use.
    fn sections<'a>(
        &'a self,
        req: &SearchRequest,
        named: &[DocumentHit],
        retrieved: &Retrieved,
        fused: &mut [Fused],
        timings: &mut Timings,
    ) -> Result<hierarchy::Sections<'a>> {
        let at = Instant::now();
        let (headings, fusion) = (&self.catalog.headings, self.fusion.as_ref());
        let within = self.heading_scope(req, named, fused)?;
        let mut sections =
            hierarchy::Sections::new(self.store, headings, fusion, &self.config, &req.query, retrieved)
                .within(within);
        let reranked = match (req.rerank, self.reranker) {
            (true, Some((_, candidates))) => candidates,
            _ => 0,
        };
        let places = (req.k * 2).max(reranked);
        sections.lift(fused, retrieved.pinned.len(), self.config.chunks_per_section, places)?;
        timings.hierarchy = Some(ms_since(at));
        Ok(sections)
    }

    /// The documents whose headings the query can name (`[search] heading_scope`): those
    /// it `named`; `None` for every candidate's.
    fn heading_scope(
        &self,
        req: &SearchRequest,
        named: &[DocumentHit],
        fused: &[Fused],
    ) -> Result<Option<HashSet<DocId>>> {
        let scope = self.config.heading_scope;
        if scope == HeadingScope::All || req.filter.doc.is_some() || self.catalog.documents.len() < 2 {
            return Ok(None);
        }
        if scope == HeadingScope::Distinct {
            let query = crate::headings::query_terms(&req.query);
            let mut naming = 0;
            let mut seen = HashSet::new();
            for doc in fused.iter().take(LEG_DEPTH).map(|f| f.chunk.doc()).filter(|d| seen.insert(*d)) {
                let doc = DocId(doc.to_string());
                let headings = self.catalog.headings.of(self.store, &doc)?;
                naming +=
                    usize::from(headings.is_some_and(|h| h.names_any(&query, self.config.heading_span)));
                if naming > 1 {
                    break;
                }
            }
            if naming <= 1 {
                return Ok(None);
            }
        }
        Ok(Some(named.iter().map(|h| h.doc.clone()).collect()))
    }

    /// The rerank stage, when the request asks for it and the searcher has a reranker; a
    /// reranker that fails leaves the fused order and a warning.
    fn rerank(
        &self,
        req: &SearchRequest,
        fused: &mut [Fused],
        pinned: usize,
        timings: &mut Timings,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        if let (true, Some((reranker, candidates))) = (req.rerank, self.reranker) {
            let at = Instant::now();
            if let Err(e) = rerank::rerank(self.store, reranker, candidates, &req.query, fused, pinned) {
                tracing::warn!(reranker = reranker.id(), error = %e, "reranking failed; keeping the fused order");
                warnings.push(format!("reranker {} failed, results are in fused order: {e}", reranker.id()));
            }
            timings.rerank = Some(ms_since(at));
        }
        warnings
    }
}
