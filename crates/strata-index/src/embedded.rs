//! The embedded store: one folder, one tantivy index, one manifest.
//!
//! ```text
//! .strata/
//!   manifest.json     format version, tokenizer, chunking parameters
//!   tantivy/          every record (see `schema.rs`); tantivy's commit is the transaction
//!   vectors/          dense vectors in segments (see `vectors.rs`); `vectors/sections/`
//!                     holds the section profiles' vectors alike; both are published by the same
//!                     commit through its payload
//! ```
//!
//! All records of a document are written between two commits, and tantivy publishes a commit
//! by atomically replacing its `meta.json`; a crash (even `kill -9`) mid-ingest therefore
//! leaves the last committed state readable, and re-running ingest completes the job. Readers
//! take no lock, so many processes can search one folder while one writes.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_core::{Chunk, Definition, DocId, Document, DocumentRecord, Error, NodeId, Reference, Result};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhraseQuery, Query, RangeQuery,
    TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term};

use crate::schema::{Fields, KIND_CHUNK, KIND_CONTEXT, KIND_DEF, KIND_DOC, KIND_SECTION, KIND_TEXT};
use crate::store::{
    check_vectors, DocSummary, Filter, LegHit, SectionHit, StoreRead, StoreWrite, StoredChunk,
    StoredDocument, BOOST_HEADING, BOOST_TEXT, BOOST_TITLE, SECTION_BOOST_HEADING,
};
use crate::vectors::{VectorState, Vectors};
use crate::{DenseManifest, Manifest};

/// What a tantivy commit carries besides the records: the vector state it publishes.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CommitPayload {
    #[serde(default)]
    vectors: VectorState,
    /// The vectors of section profiles (the dense section leg).
    #[serde(default)]
    sections: VectorState,
    /// The state of an external vector engine that holds this index's vectors instead
    /// (`strata-milvus`), published by the same commit as the records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    external: Option<String>,
}

/// Default number of vectors above which a segment gets an HNSW graph.
pub const DEFAULT_ANN_THRESHOLD: usize = 20_000;

/// Memory budget of the tantivy writer.
const WRITER_HEAP: usize = 128 * 1024 * 1024;

/// The `doc` record payload: the document without its text.
#[derive(Serialize, Deserialize)]
struct DocMeta {
    document: Document,
    definitions: Vec<Definition>,
    references: Vec<Reference>,
    chunks: usize,
}

/// Hits read past `limit` to see whether a tie crosses the cut.
const TIE_MARGIN: usize = 16;
/// The most hits read to settle a tie at the cut: `limit` times this, at least
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

/// The default store: tantivy in a local folder.
pub struct EmbeddedStore {
    dir: PathBuf,
    manifest: Manifest,
    index: Index,
    reader: IndexReader,
    writer: Option<IndexWriter>,
    /// Ids put since the last commit, so that `remove` also cancels a staged put.
    staged: std::collections::HashSet<DocId>,
    f: Fields,
    vectors: Vectors,
    /// Vectors of section profiles, beside the chunks' and published with them.
    section_vectors: Vectors,
    /// The manifest changed (first vectors) and must be written with the next commit.
    manifest_dirty: bool,
    /// [`CommitPayload::external`] of the last commit.
    external: Option<String>,
}

fn tv(dir: &Path) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
    move |e| Error::Index { path: dir.to_path_buf(), reason: e.to_string() }
}

impl EmbeddedStore {
    /// Opens an existing index for reading.
    pub fn open(dir: &Path) -> Result<EmbeddedStore> {
        let manifest = Manifest::read(dir)?.ok_or_else(|| Error::Index {
            path: dir.to_path_buf(),
            reason: "no strata index here; run `strata ingest PATH` first, or pass --index DIR".into(),
        })?;
        Self::open_with(dir, manifest)
    }

    /// Opens an index for writing, creating it when the folder has none. An existing index
    /// must have been built with the same settings as `wanted`, and keep its vectors here: a
    /// folder whose vectors an external engine keeps is refused (writing it as an embedded
    /// index would leave that engine's vectors of replaced documents live).
    pub fn open_or_create(dir: &Path, wanted: Manifest) -> Result<EmbeddedStore> {
        let store = Self::open_or_create_external(dir, wanted)?;
        if store.external.is_some() {
            return Err(Self::vectors_elsewhere(dir));
        }
        Ok(store)
    }

    /// [`EmbeddedStore::open_or_create`] for a store that keeps this index's vectors in an
    /// external engine and the rest here, as its side index (`strata-milvus`).
    pub fn open_or_create_external(dir: &Path, wanted: Manifest) -> Result<EmbeddedStore> {
        let manifest = match Manifest::read(dir)? {
            Some(existing) => {
                existing.check_compatible(&wanted, dir)?;
                existing
            }
            None => {
                let tdir = dir.join("tantivy");
                std::fs::create_dir_all(&tdir)
                    .map_err(|e| Error::io(format!("creating {}", tdir.display()), e))?;
                let (schema, _) = Fields::build();
                if Index::open_in_dir(&tdir).is_err() {
                    Index::create_in_dir(&tdir, schema).map_err(tv(dir))?;
                }
                wanted.write(dir)?;
                wanted
            }
        };
        let mut store = Self::open_with(dir, manifest)?;
        let writer = store.index.writer(WRITER_HEAP).map_err(|e| match e {
            tantivy::TantivyError::LockFailure(..) => Error::Index {
                path: dir.to_path_buf(),
                reason: "another process is writing to this index; wait for it to finish".into(),
            },
            e => tv(dir)(e),
        })?;
        store.writer = Some(writer);
        Ok(store)
    }

    fn open_with(dir: &Path, manifest: Manifest) -> Result<EmbeddedStore> {
        let index = Index::open_in_dir(dir.join("tantivy")).map_err(tv(dir))?;
        let f = match (Fields::build(), Fields::build_v1()) {
            ((schema, f), _) if index.schema() == schema => f,
            (_, (schema, f)) if index.schema() == schema => f,
            _ => {
                return Err(Error::Index {
                    path: dir.to_path_buf(),
                    reason: "its tantivy schema differs from this strata's; re-create the index".into(),
                })
            }
        };
        let (reader, committed) = Self::reader_and_payload(&index, dir)?;
        let vectors = Vectors::open(dir, None, committed.vectors, DEFAULT_ANN_THRESHOLD)?;
        let section_vectors =
            Vectors::open(dir, Some("sections"), committed.sections, DEFAULT_ANN_THRESHOLD)?;
        Ok(EmbeddedStore {
            dir: dir.to_path_buf(),
            manifest,
            index,
            reader,
            writer: None,
            staged: Default::default(),
            f,
            vectors,
            section_vectors,
            manifest_dirty: false,
            external: committed.external,
        })
    }

    /// A reader of the last commit and that commit's payload. They are read one after the
    /// other, so a commit landing in between would pair the records of one commit with the
    /// vectors of the next; the pair is read again until both are of the same commit.
    fn reader_and_payload(index: &Index, dir: &Path) -> Result<(IndexReader, CommitPayload)> {
        let mut tries = 0;
        loop {
            let metas = index.load_metas().map_err(tv(dir))?;
            let reader: IndexReader =
                index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(tv(dir))?;
            let segments: std::collections::BTreeMap<_, _> =
                metas.segments.iter().map(|s| (s.id(), s.delete_opstamp())).collect();
            tries += 1;
            // A writer committing many times a second could keep them apart forever; after a
            // few tries the commits are so small and close that either pairing serves.
            if reader.searcher().generation().segments() == &segments || tries == 8 {
                return Ok((reader, Self::committed_vectors(&metas, dir)?));
            }
        }
    }

    fn vectors_elsewhere(dir: &Path) -> Error {
        Error::Index {
            path: dir.to_path_buf(),
            reason: "its vectors are kept by an external engine (Milvus), not in this folder; \
                     open it with [store] kind = \"milvus\" and the engine's url"
                .into(),
        }
    }

    /// The vector states of a commit.
    fn committed_vectors(metas: &tantivy::IndexMeta, dir: &Path) -> Result<CommitPayload> {
        match metas.payload.as_deref() {
            None | Some("") => Ok(CommitPayload::default()),
            Some(text) => serde_json::from_str::<CommitPayload>(text).map_err(|e| Error::Index {
                path: dir.to_path_buf(),
                reason: format!("the last commit's vector state is damaged ({e}); re-create the index"),
            }),
        }
    }

    /// Sets the number of vectors above which a vector segment gets an HNSW graph (default
    /// [`DEFAULT_ANN_THRESHOLD`]); below it, dense search scans every vector exactly.
    pub fn set_ann_threshold(&mut self, rows: usize) {
        self.vectors.set_ann_threshold(rows);
        self.section_vectors.set_ann_threshold(rows);
    }

    /// The state of the external vector engine that holds this index's vectors, as the last
    /// commit published it ([`EmbeddedStore::commit_external`]); `None` when the vectors
    /// are local.
    pub fn external(&self) -> Option<&str> {
        self.external.as_deref()
    }

    /// Records that this index's vectors are of `model` (`dim` dimensions) although they are
    /// kept by an external engine, not in this folder: the manifest names the model from the
    /// next commit on, and vectors of another model are refused.
    pub fn adopt_dense(&mut self, model: &str, dim: usize) -> Result<()> {
        self.manifest.check_dense(model, dim, &self.dir)?;
        if self.manifest.dense.is_none() {
            self.manifest.dense = Some(DenseManifest { model: model.to_string(), dim });
            self.manifest_dirty = true;
        }
        Ok(())
    }

    /// Commits like [`StoreWrite::commit`] and publishes `external`, the state of the
    /// external vector engine that holds this index's vectors, atomically with the records.
    /// It is the commit point of a store that writes its vectors elsewhere: what it names
    /// must be durable there before this is called.
    pub fn commit_external(&mut self, external: &str) -> Result<()> {
        self.commit_payload(Some(external.to_string()))
    }

    /// Live vectors in the last commit.
    pub fn vector_count(&self) -> usize {
        self.vectors.len()
    }

    /// The index folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Total size of the index files in bytes.
    pub fn size_on_disk(&self) -> u64 {
        fn walk(p: &Path) -> u64 {
            std::fs::read_dir(p)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| match e.metadata() {
                            Ok(m) if m.is_dir() => walk(&e.path()),
                            Ok(m) => m.len(),
                            Err(_) => 0,
                        })
                        .sum()
                })
                .unwrap_or(0)
        }
        walk(&self.dir)
    }

    fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    fn err(&self) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
        tv(&self.dir)
    }

    fn term_q(&self, field: tantivy::schema::Field, value: &str) -> Box<dyn Query> {
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
    fn base(&self, kind: &str, filter: &Filter) -> Result<Vec<(Occur, Box<dyn Query>)>> {
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

    fn all(&self, query: &dyn Query) -> Result<Vec<(DocAddress, TantivyDocument)>> {
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
    /// BM25 statistics ([`KindStats`]), equal scores in chunk id order. tantivy breaks ties
    /// by segment and document number, which depend on indexing threads, so the same data
    /// could rank differently after another ingest; more hits are read while a tie crosses
    /// the cut.
    fn top(&self, kind: &str, query: &dyn Query, limit: usize) -> Result<Vec<LegHit>> {
        let searcher = self.searcher();
        let stats =
            KindStats::new(&searcher, Term::from_field_text(self.f.kind, kind)).map_err(self.err())?;
        let limit = limit.max(1);
        let cap = (limit * TIE_FETCH_FACTOR).max(MIN_TIE_FETCH);
        let mut fetch = limit + TIE_MARGIN;
        let top = loop {
            let top = searcher
                .search_with_statistics_provider(query, &TopDocs::with_limit(fetch).order_by_score(), &stats)
                .map_err(self.err())?;
            let tie_at_cut =
                top.len() == fetch && top.len() > limit && top[limit - 1].0 == top[top.len() - 1].0;
            if !tie_at_cut || fetch >= cap {
                break top;
            }
            fetch = (fetch * 4).min(cap);
        };
        // Only hits at or above the score at the cut can be returned; load no others.
        let floor = top.get(limit - 1).map_or(f32::MIN, |h| h.0);
        let mut hits = top
            .into_iter()
            .filter(|(score, _)| *score >= floor)
            .map(|(score, addr)| {
                let doc: TantivyDocument = searcher.doc(addr).map_err(self.err())?;
                Ok(LegHit { chunk: self.str_field(&doc, self.f.chunk_id), score })
            })
            .collect::<Result<Vec<_>>>()?;
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk.cmp(&b.chunk)));
        hits.truncate(limit);
        Ok(hits)
    }

    /// Checks a dense query against the index: false when the index has no vectors, an
    /// error for a vector of another dimension or a filter the index cannot apply.
    fn dense_query(&self, query: &[f32], filter: &Filter) -> Result<bool> {
        self.supports(filter)?;
        if self.external.is_some() {
            return Err(Self::vectors_elsewhere(&self.dir));
        }
        self.manifest.check_query(query, &self.dir)
    }

    /// A section hit from a hit whose id is `DOC#NODE`.
    fn section_hit(&self, hit: LegHit) -> Result<SectionHit> {
        SectionHit::from_id(&hit.chunk, hit.score).ok_or_else(|| Error::Index {
            path: self.dir.clone(),
            reason: format!("a section record has a bad id {:?}; re-ingest its document", hit.chunk),
        })
    }

    /// BM25 over the stemmed `fields` with their boosts; `None` when the query has no
    /// indexable term.
    fn bm25(&self, query: &str, fields: &[(tantivy::schema::Field, f32)]) -> Result<Option<Box<dyn Query>>> {
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

    fn str_field(&self, doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
        doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string()
    }

    fn payload<T: for<'de> Deserialize<'de>>(&self, doc: &TantivyDocument) -> Result<T> {
        let bytes = doc.get_first(self.f.payload).and_then(|v| v.as_bytes()).unwrap_or_default();
        serde_json::from_slice(bytes).map_err(|e| Error::Index {
            path: self.dir.clone(),
            reason: format!("a stored record is damaged ({e}); re-ingest the affected document"),
        })
    }

    fn analyze(&self, field: tantivy::schema::Field, text: &str) -> Result<Vec<String>> {
        let mut analyzer = self.index.tokenizer_for_field(field).map_err(self.err())?;
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push(t.text.clone());
        }
        Ok(out)
    }

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

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        let dir = self.dir.clone();
        self.writer.as_mut().ok_or_else(|| Error::Index { path: dir, reason: "opened read-only".into() })
    }

    fn json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
        serde_json::to_vec(value).map_err(|e| Error::Internal(format!("serializing a record: {e}")))
    }
}

impl StoreRead for EmbeddedStore {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn documents(&self) -> Result<Vec<DocSummary>> {
        let q = BooleanQuery::new(self.base(KIND_DOC, &Filter::default())?);
        let mut out = Vec::new();
        for (_, d) in self.all(&q)? {
            let meta: DocMeta = self.payload(&d)?;
            out.push(DocSummary::of(
                &meta.document,
                meta.chunks,
                meta.definitions.len(),
                meta.references.len(),
            ));
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

    fn chunks(&self, ids: &[String]) -> Result<Vec<StoredChunk>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut by_id: HashMap<String, StoredChunk> = HashMap::new();
        for batch in ids.chunks(512) {
            let should: Vec<(Occur, Box<dyn Query>)> =
                batch.iter().map(|id| (Occur::Should, self.term_q(self.f.chunk_id, id))).collect();
            let mut clauses = self.base(KIND_CHUNK, &Filter::default())?;
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
            for (_, d) in self.all(&BooleanQuery::new(clauses))? {
                let c: StoredChunk = self.payload(&d)?;
                by_id.insert(c.chunk.id.clone(), c);
            }
        }
        Ok(ids.iter().filter_map(|id| by_id.get(id).cloned()).collect())
    }

    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        let mut out = HashMap::new();
        for batch in keys.chunks(512) {
            let should: Vec<(Occur, Box<dyn Query>)> =
                batch.iter().map(|k| (Occur::Should, self.term_q(self.f.chunk_id, k))).collect();
            let clauses: Vec<(Occur, Box<dyn Query>)> = vec![
                (Occur::Must, self.term_q(self.f.kind, KIND_CONTEXT)),
                (Occur::Must, Box::new(BooleanQuery::new(should))),
            ];
            for (_, d) in self.all(&BooleanQuery::new(clauses))? {
                let key = self.str_field(&d, self.f.chunk_id);
                let bytes = d.get_first(self.f.payload).and_then(|v| v.as_bytes()).unwrap_or_default();
                out.insert(key, String::from_utf8_lossy(bytes).into_owned());
            }
        }
        Ok(out)
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
        let mut hits: Vec<(String, u64, String)> = self
            .all(&BooleanQuery::new(clauses))?
            .iter()
            .map(|(_, d)| {
                let ordinal = d.get_first(self.f.ordinal).and_then(|v| v.as_u64()).unwrap_or(0);
                (self.str_field(d, self.f.doc_id), ordinal, self.str_field(d, self.f.chunk_id))
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

impl StoreWrite for EmbeddedStore {
    fn put(&mut self, record: &DocumentRecord) -> Result<()> {
        let f = self.f;
        let doc = &record.document;
        let id = doc.id.as_str().to_string();
        let mut docs: Vec<TantivyDocument> =
            Vec::with_capacity(record.chunks.len() + record.definitions.len() + doc.tree.len() + 2);

        let mut text = TantivyDocument::default();
        text.add_text(f.kind, KIND_TEXT);
        text.add_text(f.doc_id, &id);
        text.add_bytes(f.payload, doc.text.as_bytes());
        docs.push(text);

        let meta = DocMeta {
            document: Document { text: String::new(), ..doc.clone() },
            definitions: record.definitions.clone(),
            references: record.references.clone(),
            chunks: record.chunks.len(),
        };
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_DOC);
        d.add_text(f.doc_id, &id);
        d.add_text(f.hash, &doc.source.content_hash);
        d.add_bytes(f.payload, &Self::json(&meta)?);
        docs.push(d);

        for def in &record.definitions {
            let mut d = TantivyDocument::default();
            d.add_text(f.kind, KIND_DEF);
            d.add_text(f.doc_id, &id);
            d.add_text(f.terms, &def.normalized);
            d.add_bytes(f.payload, &Self::json(def)?);
            docs.push(d);
        }

        for chunk in &record.chunks {
            docs.push(self.chunk_doc(doc, chunk)?);
        }

        // Format 1 indexes have no section fields: their documents get no section records.
        let section_fields = f.section_text.zip(f.section_heading);
        for profile in section_fields.map(|_| strata_core::section_profiles(doc)).unwrap_or_default() {
            let (text, heading) = section_fields.expect("checked above");
            let mut d = TantivyDocument::default();
            d.add_text(f.kind, KIND_SECTION);
            d.add_text(f.doc_id, &id);
            d.add_text(f.chunk_id, format!("{id}#{}", profile.node));
            d.add_u64(f.node, profile.node.0 as u64);
            d.add_text(text, format!("{}\n{}", profile.lead, profile.children));
            d.add_text(heading, &profile.heading_path);
            if let (Some((first, last)), Some(node)) = (f.pages, doc.tree.get(profile.node)) {
                d.add_u64(first, node.pages.first as u64);
                d.add_u64(last, node.pages.last as u64);
            }
            if let Some(number) = doc.tree.get(profile.node).and_then(|n| n.number.as_ref()) {
                d.add_text(f.numbers, number.key());
            }
            docs.push(d);
        }

        check_vectors(record)?;
        if let Some(v) = &record.vectors {
            self.manifest.check_dense(&v.model, v.dim, &self.dir)?;
        }
        if let Some(sv) = &record.section_vectors {
            self.manifest.check_dense(&sv.vectors.model, sv.vectors.dim, &self.dir)?;
        }
        if let (Some(v), None) = (&record.vectors, &self.manifest.dense) {
            self.manifest.dense = Some(DenseManifest { model: v.model.clone(), dim: v.dim });
            self.manifest_dirty = true;
        }

        let dir = self.dir.clone();
        let writer = self.writer()?;
        writer.delete_term(Term::from_field_text(f.doc_id, &id));
        for d in docs {
            writer.add_document(d).map_err(tv(&dir))?;
        }
        self.staged.insert(doc.id.clone());
        self.vectors.put(&doc.id, &record.chunks, record.vectors.as_ref());
        // A format 1 index has no section leg: it keeps no section vectors either.
        let sections = record.section_vectors.as_ref().filter(|_| f.section_text.is_some()).map(|sv| {
            let rows = sv
                .nodes
                .iter()
                .map(|n| {
                    let pages = doc.tree.get(*n).map_or((1, 1), |x| (x.pages.first, x.pages.last));
                    (format!("{id}#{n}"), n.0, strata_core::ChunkKind::Content, pages)
                })
                .collect();
            (rows, &sv.vectors)
        });
        match sections {
            Some((rows, vectors)) => self.section_vectors.put_rows(&doc.id, rows, Some(vectors)),
            None => self.section_vectors.remove(&doc.id),
        }
        Ok(())
    }

    fn remove(&mut self, id: &DocId) -> Result<bool> {
        if !self.staged.remove(id) && self.content_hash(id)?.is_none() {
            return Ok(false);
        }
        let f = self.f;
        self.writer()?.delete_term(Term::from_field_text(f.doc_id, id.as_str()));
        self.vectors.remove(id);
        self.section_vectors.remove(id);
        Ok(true)
    }

    fn cache_contexts(&mut self, entries: &[(String, String)]) -> Result<()> {
        let (f, dir) = (self.f, self.dir.clone());
        let writer = self.writer()?;
        for (key, context) in entries {
            writer.delete_term(Term::from_field_text(f.chunk_id, key));
            let mut d = TantivyDocument::default();
            d.add_text(f.kind, KIND_CONTEXT);
            d.add_text(f.chunk_id, key);
            d.add_bytes(f.payload, context.as_bytes());
            writer.add_document(d).map_err(tv(&dir))?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<()> {
        self.commit_payload(self.external.clone())
    }
}

impl EmbeddedStore {
    fn commit_payload(&mut self, external: Option<String>) -> Result<()> {
        let dir = self.dir.clone();
        let (model, dim) = self.manifest.dense.as_ref().map(|d| (d.model.clone(), d.dim)).unwrap_or_default();
        // Vector files first; the tantivy commit below publishes them with the records.
        let state = self.vectors.prepare(&model, dim)?;
        let sections = self.section_vectors.prepare(&model, dim)?;
        if self.manifest_dirty {
            self.manifest.write(&dir)?;
            self.manifest_dirty = false;
        }
        let payload = serde_json::to_string(&CommitPayload {
            vectors: state.clone(),
            sections: sections.clone(),
            external: external.clone(),
        })
        .map_err(|e| Error::Internal(e.to_string()))?;
        let mut prepared = self.writer()?.prepare_commit().map_err(tv(&dir))?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(tv(&dir))?;
        self.staged.clear();
        self.reader.reload().map_err(tv(&dir))?;
        self.vectors.published(state)?;
        self.section_vectors.published(sections)?;
        self.external = external;
        Ok(())
    }

    fn chunk_doc(&self, doc: &Document, chunk: &Chunk) -> Result<TantivyDocument> {
        let f = self.f;
        let stored = StoredChunk::of(doc, chunk);
        let indexed = chunk.indexed_span().slice(&doc.text);
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_CHUNK);
        d.add_text(f.doc_id, doc.id.as_str());
        d.add_text(f.chunk_id, &chunk.id);
        d.add_u64(f.ordinal, chunk.ordinal as u64);
        d.add_u64(f.node, chunk.node.0 as u64);
        d.add_text(f.chunk_kind, chunk.kind.name());
        if let Some((first, last)) = f.pages {
            d.add_u64(first, chunk.pages.first as u64);
            d.add_u64(last, chunk.pages.last as u64);
        }
        d.add_text(f.text, chunk.indexed_text(&doc.text));
        d.add_text(f.heading, chunk.heading_path.join(" > "));
        d.add_text(f.title, &doc.title);
        d.add_text(f.exact_text, indexed);
        if let Some(key) = &stored.number {
            d.add_text(f.numbers, key);
        }
        for term in &chunk.defines {
            d.add_text(f.terms, term);
        }
        d.add_bytes(f.payload, &Self::json(&stored)?);
        Ok(d)
    }
}
