//! The tantivy query toolkit of the embedded store: restriction clauses, BM25 over chosen
//! fields with per-kind statistics, deterministic top hits (near-equal scores are one tie, see
//! [`crate::ties`]), and reading stored fields.

use std::collections::BTreeSet;
use std::ops::Bound;

use serde::Deserialize;
use strata_core::{ChunkId, Error, Result};
use tantivy::collector::{Count, DocSetCollector};
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use super::top::TopWithTies;
use super::{tv, EmbeddedStore};
use crate::store::{Filter, LegHit, SectionHit};
use crate::ties::sort_lexical;

/// The most hits kept to settle a tie at the cut: `limit` times this, at least
/// [`MIN_TIE_FETCH`]. A wider tie (thousands of chunks scoring exactly alike, as a common
/// defined term can give the exact leg) is cut where tantivy puts it.
const TIE_FETCH_FACTOR: usize = 8;
/// See [`TIE_FETCH_FACTOR`].
const MIN_TIE_FETCH: usize = 512;

/// BM25 statistics of one record kind. tantivy counts every record of the index as a
/// document, so documents, texts, definitions and sections would change how chunks score
/// (the IDF and the average field length use the number of documents). The number of
/// documents here is the number of records of the kind; token counts and document
/// frequencies are the index's own, since only that kind has the fields scored.
struct KindStats<'a> {
    searcher: &'a Searcher,
    num_docs: u64,
}

impl<'a> KindStats<'a> {
    fn new(searcher: &'a Searcher, kind: Term) -> tantivy::Result<KindStats<'a>> {
        let num_docs = Bm25StatisticsProvider::doc_freq(searcher, &kind)?;
        Ok(KindStats { searcher, num_docs })
    }
}

impl Bm25StatisticsProvider for KindStats<'_> {
    fn total_num_tokens(&self, field: tantivy::schema::Field) -> tantivy::Result<u64> {
        Bm25StatisticsProvider::total_num_tokens(self.searcher, field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.num_docs.max(1))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        // A field shared with another kind (`terms` is on definitions too) can count more
        // records than this kind has; tantivy's IDF asserts it never does.
        Ok(Bm25StatisticsProvider::doc_freq(self.searcher, term)?.min(self.num_docs.max(1)))
    }
}

impl EmbeddedStore {
    pub(super) fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    pub(super) fn err(&self) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
        tv(&self.dir)
    }

    pub(super) fn term_q(&self, field: tantivy::schema::Field, value: &str) -> Box<dyn Query> {
        Box::new(TermQuery::new(Term::from_field_text(field, value), IndexRecordOption::Basic))
    }

    /// Refuses a filter this index cannot apply (pages in format 1).
    fn supports(&self, filter: &Filter) -> Result<()> {
        if filter.pages.is_some() && self.f.pages.is_none() {
            return Err(Error::Index {
                path: self.dir.clone(),
                reason: "this format 1 index cannot filter by page; re-create it (ingest into a new --index folder)"
                    .into(),
            });
        }
        Ok(())
    }

    /// `kind = K` plus the filter, as MUST clauses.
    pub(super) fn base(&self, kind: &str, filter: &Filter) -> Result<Vec<(Occur, Box<dyn Query>)>> {
        self.supports(filter)?;
        let mut clauses = vec![(Occur::Must, self.term_q(self.f.kind, kind))];
        if let Some(doc) = &filter.doc {
            clauses.push((Occur::Must, self.term_q(self.f.doc_id, doc.as_str())));
        }
        if let Some(kind) = filter.kind {
            clauses.push((Occur::Must, self.term_q(self.f.chunk_kind, kind.name())));
        }
        if let Some((first, last)) = filter.nodes {
            clauses.push((
                Occur::Must,
                Box::new(RangeQuery::new(
                    Bound::Included(Term::from_field_u64(self.f.node, first.0 as u64)),
                    Bound::Included(Term::from_field_u64(self.f.node, last.0 as u64)),
                )),
            ));
        }
        if let (Some((first, last)), Some((page_first, page_last))) = (filter.pages, self.f.pages) {
            // Overlap: the record starts on or before `last` and ends on or after `first`.
            let range = |field, lo: u64, hi: u64| -> Box<dyn Query> {
                Box::new(RangeQuery::new(
                    Bound::Included(Term::from_field_u64(field, lo)),
                    Bound::Included(Term::from_field_u64(field, hi)),
                ))
            };
            clauses.push((Occur::Must, range(page_first, 0, last as u64)));
            clauses.push((Occur::Must, range(page_last, first as u64, u64::MAX)));
        }
        // Restrictions select, they do not score: a leg's score is its own clauses' alone.
        Ok(clauses
            .into_iter()
            .map(|(occur, q)| (occur, Box::new(ConstScoreQuery::new(q, 0.0)) as Box<dyn Query>))
            .collect())
    }

    pub(super) fn count(&self, query: &dyn Query) -> Result<usize> {
        self.searcher().search(query, &Count).map_err(self.err())
    }

    pub(super) fn all(&self, query: &dyn Query) -> Result<Vec<(DocAddress, TantivyDocument)>> {
        let searcher = self.searcher();
        let mut addrs: Vec<DocAddress> =
            searcher.search(query, &DocSetCollector).map_err(self.err())?.into_iter().collect();
        addrs.sort();
        addrs
            .into_iter()
            .map(|a| searcher.doc::<TantivyDocument>(a).map(|d| (a, d)).map_err(self.err()))
            .collect()
    }

    /// The best `limit` hits of `query` among records of `kind`, scored with that kind's own
    /// BM25 statistics ([`KindStats`]), tied scores in chunk id order. tantivy breaks ties
    /// by segment and document number and sums term scores in an order that follows the
    /// segment layout, both of which depend on indexing threads and merges, so the same data
    /// could rank differently after another ingest; scores within [`crate::SCORE_TIE`] are
    /// one tie, and a tie that crosses the cut is read whole ([`TopWithTies`]).
    pub(super) fn top(&self, kind: &str, query: &dyn Query, limit: usize) -> Result<Vec<LegHit>> {
        let searcher = self.searcher();
        let stats =
            KindStats::new(&searcher, Term::from_field_text(self.f.kind, kind)).map_err(self.err())?;
        let limit = limit.max(1);
        let cap = (limit * TIE_FETCH_FACTOR).max(MIN_TIE_FETCH);
        let top = searcher
            .search_with_statistics_provider(query, &TopWithTies::new(limit, cap), &stats)
            .map_err(self.err())?;
        let mut hits = top
            .into_iter()
            .map(|(score, addr)| {
                let doc: TantivyDocument = searcher.doc(addr).map_err(self.err())?;
                Ok(LegHit { chunk: ChunkId::from(self.str_field(&doc, self.f.chunk_id)), score })
            })
            .collect::<Result<Vec<_>>>()?;
        sort_lexical(&mut hits);
        hits.truncate(limit);
        Ok(hits)
    }

    /// Checks a dense query against the index: false when the index has no vectors, an
    /// error for a vector of another dimension or a filter the index cannot apply.
    pub(super) fn dense_query(&self, query: &[f32], filter: &Filter) -> Result<bool> {
        self.supports(filter)?;
        if self.external.is_some() {
            return Err(Self::vectors_elsewhere(&self.dir));
        }
        self.manifest.check_query(query, &self.dir)
    }

    /// A section hit from a hit whose id is `DOC#NODE`.
    pub(super) fn section_hit(&self, hit: LegHit) -> Result<SectionHit> {
        SectionHit::from_id(hit.chunk.as_str(), hit.score).ok_or_else(|| Error::Index {
            path: self.dir.clone(),
            reason: format!("a section record has a bad id {:?}; re-ingest its document", hit.chunk.as_str()),
        })
    }

    /// BM25 over the stemmed `fields` with their boosts; `None` when the query has no
    /// indexable term.
    pub(super) fn bm25(
        &self,
        query: &str,
        fields: &[(tantivy::schema::Field, f32)],
    ) -> Result<Option<Box<dyn Query>>> {
        let terms: BTreeSet<String> = self.analyze(self.f.text, query)?.into_iter().collect();
        if terms.is_empty() {
            return Ok(None);
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for &(field, boost) in fields {
            for t in &terms {
                let q = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost))));
            }
        }
        Ok(Some(Box::new(BooleanQuery::new(should))))
    }

    pub(super) fn str_field(&self, doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
        doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string()
    }

    pub(super) fn payload<T: for<'de> Deserialize<'de>>(&self, doc: &TantivyDocument) -> Result<T> {
        let bytes = doc.get_first(self.f.payload).and_then(|v| v.as_bytes()).unwrap_or_default();
        serde_json::from_slice(bytes).map_err(|e| Error::Index {
            path: self.dir.clone(),
            reason: format!("a stored record is damaged ({e}); re-ingest the affected document"),
        })
    }

    pub(super) fn analyze(&self, field: tantivy::schema::Field, text: &str) -> Result<Vec<String>> {
        let mut analyzer = self.index.tokenizer_for_field(field).map_err(self.err())?;
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push(t.text.clone());
        }
        Ok(out)
    }
}
