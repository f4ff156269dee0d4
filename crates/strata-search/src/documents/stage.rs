//! The documents stage as a search runs it, in one place: it reads the query for the
//! documents it names (a quoted title, every word of a name), ranks them (BM25 over the
//! profiles, blended with the dense profile leg), and decides what follows from that: the
//! shortlist the retrieve stage searches deeper, the query the chunk legs search (its names
//! left out), and each named document's lift, as firm as the query names it.

use std::collections::HashMap;
use std::time::Instant;

use strata_core::config::{HeadingScope, NameDrop, NameEvidence, SearchConfig};
use strata_core::{NodeId, Result};
use strata_index::{Filter, StoreRead};
use strata_model::Embedder;

use super::{DocumentHit, DocumentIndex, DocumentRanking};
use crate::fuse::{self, DocumentLift, Evidence, Fusion};
use crate::plan::Plan;
use crate::request::{Mode, SearchRequest};
use crate::response::Timings;
use crate::retrieve::{ms_since, timed};

/// What the documents stage reads: the search settings, the profiles, and for the dense
/// profile leg the store and the query embedder.
pub(crate) struct Stage<'a> {
    pub config: &'a SearchConfig,
    pub index: &'a DocumentIndex,
    pub store: &'a dyn StoreRead,
    /// The query embedder, when the dense leg can run.
    pub embedder: Option<&'a dyn Embedder>,
}

/// What the documents stage decided for one query.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// The documents the query is about, best first.
    pub ranking: DocumentRanking,
    /// The query's embedding, when the dense profile leg computed it and the chunk legs
    /// search the query as it is (the dense chunk leg reuses it).
    pub vector: Option<Vec<f32>>,
    /// What the chunk legs search instead of the query: it without the words (or the quoted
    /// title) that name its documents, when `[search] drop_names` says so.
    pub rest: Option<String>,
    evidence: Evidence,
    /// The documents were ranked only to scope the heading lift (the document leg is off):
    /// they add nothing to the chunk legs.
    scope_only: bool,
}

impl Named {
    /// The documents the query names ([`DocumentRanking::shortlist`]), which the chunk legs
    /// search deeper; none when the document leg is off.
    pub fn shortlist(&self) -> &[DocumentHit] {
        if self.scope_only {
            return &[];
        }
        self.ranking.shortlist()
    }

    /// The documents the query names, whose headings it can name (`[search] heading_scope =
    /// "named"`), with the document leg on or off.
    pub fn named(&self) -> &[DocumentHit] {
        self.ranking.shortlist()
    }

    /// What each shortlisted document adds to its chunks ([`fuse::document_lifts`]).
    pub fn lifts(&self, fusion: &dyn Fusion, weight: f64) -> HashMap<&str, DocumentLift> {
        fuse::document_lifts(fusion, self.shortlist(), weight, self.evidence)
    }
}

impl Stage<'_> {
    /// Whether the stage ranks documents for `req`: in the modes that use them, unless the
    /// request filters to one document already or the index holds one.
    fn ranks(&self, req: &SearchRequest) -> bool {
        matches!(req.mode, Mode::Hybrid | Mode::Hierarchical)
            && self.config.weights.documents > 0.0
            && req.filter.doc.is_none()
            && self.index.len() >= 2
    }

    /// Whether the stage reads the query for the documents it names only to scope the
    /// heading lift: the document leg is off (`[search.weights] documents = 0`), and the
    /// hierarchical mode lifts a named heading only in the documents the query names.
    fn scopes_headings(&self, req: &SearchRequest) -> bool {
        req.mode == Mode::Hierarchical
            && self.config.heading_scope != HeadingScope::All
            && self.config.weights.documents <= 0.0
            && req.filter.doc.is_none()
            && self.index.len() >= 2
    }

    /// Marks the quoted phrases of `plan` that are a document's name as titles, read as
    /// naming it rather than searched as phrases: in the searches whose documents stage
    /// ranks (`[search] title_phrases`).
    pub fn read_titles(&self, req: &SearchRequest, plan: &mut Plan) {
        if self.config.title_phrases && self.ranks(req) {
            plan.set_titles(|p| self.index.is_title(p));
        }
    }

    /// Ranks the documents of `req` (read by the plan stage as `plan`) and decides what
    /// follows from them.
    pub fn run(&self, req: &SearchRequest, plan: &Plan, timings: &mut Timings) -> Result<Named> {
        if !self.ranks(req) {
            if !self.scopes_headings(req) {
                return Ok(Named::default());
            }
            let (ranking, ms) = timed(|| self.index.rank(&req.query, self.config.name_evidence));
            timings.documents = Some(ms);
            return Ok(Named { ranking, scope_only: true, ..Named::default() });
        }
        let (mut ranking, ms) = timed(|| self.index.rank(&req.query, self.config.name_evidence));
        timings.documents = Some(ms);
        tracing::debug!(shortlist = ?ranking.shortlist(), "documents");
        let vector = self.similarity(req, &mut ranking, timings)?;
        let rest = self.without_names(req, plan, ranking.shortlist());
        let evidence = match (self.config.name_evidence, plan.titles.is_empty()) {
            (NameEvidence::Off, _) => Evidence::Ignored,
            (_, true) => Evidence::Read,
            (_, false) => Evidence::Firm,
        };
        let vector = vector.filter(|_| rest.is_none());
        Ok(Named { ranking, vector, rest, evidence, scope_only: false })
    }

    /// The dense document leg: when the query names several documents and
    /// `[search.weights] documents_dense` is above 0, the query is embedded (once: the dense
    /// leg reuses the vector, which it returns) and compared with each named document's
    /// profile (its root's vector), and the similarities are blended into `ranking`. An
    /// index without documents' vectors (made before them) leaves the ranking alone.
    fn similarity(
        &self,
        req: &SearchRequest,
        ranking: &mut DocumentRanking,
        timings: &mut Timings,
    ) -> Result<Option<Vec<f32>>> {
        let weight = self.config.weights.documents_dense;
        let candidates = ranking.dense_candidates();
        let Some(embedder) = self.embedder.filter(|_| weight > 0.0 && !candidates.is_empty()) else {
            return Ok(None);
        };
        let (vector, ms) = timed(|| embedder.embed_query(&req.query));
        timings.embed = Some(ms);
        let vector = vector?;
        let at = Instant::now();
        let mut similarity = HashMap::new();
        let wanted = candidates.len();
        for doc in candidates {
            let root = Filter {
                doc: Some(doc.clone()),
                nodes: Some((NodeId::ROOT, NodeId::ROOT)),
                ..Filter::default()
            };
            if let Some(hit) = self.store.section_dense(&vector, &root, 1)?.first() {
                similarity.insert(doc, hit.score);
            }
        }
        if similarity.len() == wanted {
            ranking.blend(&similarity, weight as f32);
        }
        *timings.documents.get_or_insert(0.0) += ms_since(at);
        Ok(Some(vector))
    }

    /// The query without the words (or the quoted title) that name the documents it names,
    /// when `[search] drop_names` is on and it names any; `None` to search it as it is.
    fn without_names(&self, req: &SearchRequest, plan: &Plan, shortlist: &[DocumentHit]) -> Option<String> {
        let drop = match self.config.drop_names {
            NameDrop::Off => false,
            NameDrop::Titles => !plan.titles.is_empty(),
            NameDrop::All => !shortlist.is_empty() || !plan.titles.is_empty(),
        };
        if !drop {
            return None;
        }
        let rest = self.index.without_names(&req.query, shortlist, &plan.titles);
        (rest != req.query && rest.chars().any(char::is_alphanumeric)).then_some(rest)
    }
}
