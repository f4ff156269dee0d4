//! [`StoreRead`] on the embedded store: documents, chunks and cached contexts from their
//! records, and every leg as a tantivy query or a vector search.

use std::collections::{BTreeSet, HashMap, HashSet};

use strata_core::{CachedVector, ChunkId, Definition, DocId, Error, NodeId, Result};
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::{DocMeta, EmbeddedStore};
use crate::schema::{
    KIND_CHUNK, KIND_CONTEXT, KIND_DEF, KIND_DOC, KIND_SECTION, KIND_SUMMARY, KIND_TEXT, KIND_VECTOR,
};
use crate::store::{
    DocSummary, Filter, LegHit, SectionHit, StoreRead, StoredChunk, StoredDocument, BOOST_HEADING,
    BOOST_TEXT, BOOST_TITLE, SECTION_BOOST_HEADING,
};
use crate::Manifest;

impl StoreRead for EmbeddedStore {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn documents(&self) -> Result<Vec<DocSummary>> {
        let summaries = BooleanQuery::new(self.base(KIND_SUMMARY, &Filter::default())?);
        let mut out = Vec::new();
        for (_, d) in self.all(&summaries)? {
            out.push(self.payload::<DocSummary>(&d)?);
        }
        // Documents put before summary records existed are summarized from their whole
        // record, tree included.
        let docs = BooleanQuery::new(self.base(KIND_DOC, &Filter::default())?);
        if self.count(&docs)? > out.len() {
            let known: HashSet<DocId> = out.iter().map(|s| s.id.clone()).collect();
            for (_, d) in self.all(&docs)? {
                if known.contains(&DocId(self.str_field(&d, self.f.doc_id))) {
                    continue;
                }
                let meta: DocMeta = self.payload(&d)?;
                let (chunks, definitions, references) =
                    (meta.chunks, meta.definitions.len(), meta.references.len());
                out.push(DocSummary::of(&meta.document, chunks, definitions, references));
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn document(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        let Some((_, meta)) = self.doc_meta(id)? else { return Ok(None) };
        let q =
            BooleanQuery::new(self.base(KIND_TEXT, &Filter { doc: Some(id.clone()), ..Filter::default() })?);
        let text = match self.all(&q)?.into_iter().next() {
            Some((_, d)) => {
                let bytes = d.get_first(self.f.payload).and_then(|v| v.as_bytes()).unwrap_or_default();
                String::from_utf8_lossy(bytes).into_owned()
            }
            None => {
                return Err(Error::Index {
                    path: self.dir.clone(),
                    reason: format!("document {id} has no stored text; re-ingest it"),
                })
            }
        };
        let mut document = meta.document;
        document.text = text;
        Ok(Some(StoredDocument {
            document,
            definitions: meta.definitions,
            references: meta.references,
            chunks: meta.chunks,
        }))
    }

    fn document_meta(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        Ok(self.doc_meta(id)?.map(|(_, meta)| StoredDocument {
            document: meta.document,
            definitions: meta.definitions,
            references: meta.references,
            chunks: meta.chunks,
        }))
    }

    fn content_hash(&self, id: &DocId) -> Result<Option<String>> {
        let q =
            BooleanQuery::new(self.base(KIND_DOC, &Filter { doc: Some(id.clone()), ..Filter::default() })?);
        Ok(self.all(&q)?.into_iter().next().map(|(_, d)| self.str_field(&d, self.f.hash)))
    }

    fn chunks(&self, ids: &[ChunkId]) -> Result<Vec<StoredChunk>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut by_id: HashMap<ChunkId, StoredChunk> = HashMap::new();
        for batch in ids.chunks(512) {
            let should: Vec<(Occur, Box<dyn Query>)> =
                batch.iter().map(|id| (Occur::Should, self.term_q(self.f.chunk_id, id.as_str()))).collect();
            let mut clauses = self.base(KIND_CHUNK, &Filter::default())?;
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
            for (_, d) in self.all(&BooleanQuery::new(clauses))? {
                let c: StoredChunk = self.payload(&d)?;
                by_id.insert(c.chunk.id.clone(), c);
            }
        }
        Ok(ids.iter().filter_map(|id| by_id.get(id).cloned()).collect())
    }

    /// From the `chunk_id` term and the `node` fast field: no stored record is loaded. A
    /// chunk id is `DOC:ORDINAL`, and only chunk records have such ids (sections have
    /// `DOC#NODE`, cached contexts hex keys).
    fn sections_of(&self, ids: &[ChunkId]) -> Result<Vec<(ChunkId, DocId, NodeId)>> {
        let searcher = self.searcher();
        let mut nodes = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            nodes.push(segment.fast_fields().u64("node").map_err(self.err())?);
        }
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let Some((doc, _)) = id.as_str().rsplit_once(':') else { continue };
            let found = searcher.search(&*self.term_q(self.f.chunk_id, id.as_str()), &DocSetCollector);
            let Some(at) = found.map_err(self.err())?.into_iter().min() else { continue };
            if let Some(node) = nodes[at.segment_ord as usize].first(at.doc_id) {
                out.push((id.clone(), DocId(doc.to_string()), NodeId(node as u32)));
            }
        }
        Ok(out)
    }

    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        let found = self.keyed(KIND_CONTEXT, keys)?;
        Ok(found
            .into_iter()
            .map(|(key, bytes)| (key, String::from_utf8_lossy(&bytes).into_owned()))
            .collect())
    }

    fn cached_vectors(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        let Some(dim) = self.manifest().dense.as_ref().map(|d| d.dim) else { return Ok(HashMap::new()) };
        let found = self.keyed(KIND_VECTOR, keys)?;
        Ok(found
            .into_iter()
            .filter_map(|(key, bytes)| CachedVector::decode(key.clone(), &bytes, dim).map(|v| (key, v)))
            .collect())
    }

    fn chunks_of(&self, doc: &DocId, nodes: Option<(NodeId, NodeId)>) -> Result<Vec<StoredChunk>> {
        let filter = Filter { doc: Some(doc.clone()), nodes, ..Filter::default() };
        let q = BooleanQuery::new(self.base(KIND_CHUNK, &filter)?);
        let mut out: Vec<StoredChunk> =
            self.all(&q)?.iter().map(|(_, d)| self.payload(d)).collect::<Result<_>>()?;
        out.sort_by_key(|c| c.chunk.ordinal);
        Ok(out)
    }

    fn keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let fields =
            [(self.f.text, BOOST_TEXT), (self.f.heading, BOOST_HEADING), (self.f.title, BOOST_TITLE)];
        let Some(bm25) = self.bm25(query, &fields)? else {
            return Ok(Vec::new());
        };
        // Only chunk records have these fields, so without a filter the union of term
        // queries stands alone: tantivy then prunes it with block-max WAND instead of
        // scoring every matching chunk under a `kind` intersection.
        if *filter == Filter::default() {
            return self.top(KIND_CHUNK, bm25.as_ref(), limit);
        }
        let mut clauses = self.base(KIND_CHUNK, filter)?;
        clauses.push((Occur::Must, bm25));
        self.top(KIND_CHUNK, &BooleanQuery::new(clauses), limit)
    }

    fn section_keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        // A format 1 index has no section records.
        let (Some(text), Some(heading)) = (self.f.section_text, self.f.section_heading) else {
            return Ok(Vec::new());
        };
        let Some(bm25) = self.bm25(query, &[(text, BOOST_TEXT), (heading, SECTION_BOOST_HEADING)])? else {
            return Ok(Vec::new());
        };
        let mut clauses = self.base(KIND_SECTION, &Filter { kind: None, ..filter.clone() })?;
        clauses.push((Occur::Must, bm25));
        self.top(KIND_SECTION, &BooleanQuery::new(clauses), limit)?
            .into_iter()
            .map(|hit| self.section_hit(hit))
            .collect()
    }

    fn exact_numbers(&self, keys: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let should: Vec<(Occur, Box<dyn Query>)> =
            keys.iter().map(|k| (Occur::Should, self.term_q(self.f.numbers, k))).collect();
        let mut clauses = self.base(KIND_CHUNK, filter)?;
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
        let mut hits: Vec<(String, u64, ChunkId)> = self
            .all(&BooleanQuery::new(clauses))?
            .iter()
            .map(|(_, d)| {
                let ordinal = d.get_first(self.f.ordinal).and_then(|v| v.as_u64()).unwrap_or(0);
                (self.str_field(d, self.f.doc_id), ordinal, ChunkId::from(self.str_field(d, self.f.chunk_id)))
            })
            .collect();
        hits.sort();
        hits.truncate(limit);
        Ok(hits.into_iter().map(|(_, _, chunk)| LegHit { chunk, score: 1.0 }).collect())
    }

    fn exact_terms(&self, terms: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let should: Vec<(Occur, Box<dyn Query>)> =
            terms.iter().map(|t| (Occur::Should, self.term_q(self.f.terms, t))).collect();
        let mut clauses = self.base(KIND_CHUNK, filter)?;
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
        self.top(KIND_CHUNK, &BooleanQuery::new(clauses), limit)
    }

    fn exact_phrase(&self, phrase: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let words = self.analyze(self.f.exact_text, phrase)?;
        let q: Box<dyn Query> = match words.len() {
            0 => return Ok(Vec::new()),
            1 => self.term_q(self.f.exact_text, &words[0]),
            _ => Box::new(PhraseQuery::new(
                words.iter().map(|w| Term::from_field_text(self.f.exact_text, w)).collect(),
            )),
        };
        let mut clauses = self.base(KIND_CHUNK, filter)?;
        clauses.push((Occur::Must, q));
        self.top(KIND_CHUNK, &BooleanQuery::new(clauses), limit)
    }

    fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if !self.dense_query(query, filter)? {
            return Ok(Vec::new());
        }
        self.vectors.search(query, filter, limit)
    }

    fn section_dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        if !self.dense_query(query, filter)? {
            return Ok(Vec::new());
        }
        let filter = Filter { kind: None, ..filter.clone() };
        self.section_vectors.search(query, &filter, limit)?.into_iter().map(|h| self.section_hit(h)).collect()
    }

    fn definitions(&self, term: &str) -> Result<Vec<Definition>> {
        let mut clauses = self.base(KIND_DEF, &Filter::default())?;
        clauses.push((Occur::Must, self.term_q(self.f.terms, term)));
        self.all(&BooleanQuery::new(clauses))?.iter().map(|(_, d)| self.payload(d)).collect()
    }

    fn defined_terms(&self) -> Result<Vec<String>> {
        let searcher = self.searcher();
        let mut out = BTreeSet::new();
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(self.f.terms).map_err(self.err())?;
            let mut stream =
                inverted.terms().stream().map_err(|e| Error::io("reading the term dictionary", e))?;
            while stream.advance() {
                // The term dictionary keeps the terms of deleted (replaced or removed)
                // records until a merge: list a term only while a live record holds it.
                if let Some(alive) = segment.alive_bitset() {
                    let postings = inverted
                        .read_postings_from_terminfo(stream.value(), IndexRecordOption::Basic)
                        .map_err(|e| Error::io("reading the term postings", e))?;
                    if postings.doc_freq_given_deletes(alive) == 0 {
                        continue;
                    }
                }
                out.insert(String::from_utf8_lossy(stream.key()).into_owned());
            }
        }
        Ok(out.into_iter().collect())
    }
}

impl EmbeddedStore {
    fn doc_meta(&self, id: &DocId) -> Result<Option<(TantivyDocument, DocMeta)>> {
        let q =
            BooleanQuery::new(self.base(KIND_DOC, &Filter { doc: Some(id.clone()), ..Filter::default() })?);
        match self.all(&q)?.into_iter().next() {
            Some((_, d)) => {
                let meta = self.payload(&d)?;
                Ok(Some((d, meta)))
            }
            None => Ok(None),
        }
    }
}

impl EmbeddedStore {
    /// The payloads of the `kind` records (cached contexts, vector cache entries) whose key
    /// is one of `keys`, by key.
    fn keyed(&self, kind: &str, keys: &[String]) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        for batch in keys.chunks(512) {
            let should: Vec<(Occur, Box<dyn Query>)> =
                batch.iter().map(|k| (Occur::Should, self.term_q(self.f.chunk_id, k))).collect();
            let clauses: Vec<(Occur, Box<dyn Query>)> = vec![
                (Occur::Must, self.term_q(self.f.kind, kind)),
                (Occur::Must, Box::new(BooleanQuery::new(should))),
            ];
            for (_, d) in self.all(&BooleanQuery::new(clauses))? {
                let bytes =
                    d.get_first(self.f.payload).and_then(|v| v.as_bytes()).unwrap_or_default().to_vec();
                out.push((self.str_field(&d, self.f.chunk_id), bytes));
            }
        }
        Ok(out)
    }
}
