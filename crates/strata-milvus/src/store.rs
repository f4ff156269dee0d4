//! `MilvusStore`: the `Store` traits with every vector in Milvus.
//!
//! Milvus has no transactions, so a commit is made atomic with generations:
//!
//! - every row carries the interval of generations `gen_from..gen_to` it is visible in, and
//!   every leg filters on the reader's generation `G` (`gen_from <= G and gen_to > G`);
//! - `commit` to `G + 1` first retires the rows of replaced and removed documents
//!   (`gen_to = G + 1`, whole-row upserts) and inserts the new rows (`gen_from = G + 1`),
//!   all invisible to readers of `G`; then
//! - it publishes `G + 1` with the side index's tantivy commit, which is the commit point:
//!   the records and the generation that makes their vectors visible change together; and
//! - rows retired before `G` are deleted afterwards, one generation late, so that a reader
//!   still on `G` finds everything it expects.
//!
//! A commit cut short leaves rows of `G + 1` that no reader sees; opening the index for
//! writing deletes them and brings the rows it retired back to life. Milvus accepts an
//! insert once it is durable (its write-ahead log), so no flush is needed before the commit
//! point.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use strata_core::{Definition, DocId, DocumentRecord, Error, NodeId, Result};
use strata_index::{
    check_vectors, DocSummary, EmbeddedStore, Filter, LegHit, Manifest, SectionHit, StoreRead, StoreWrite,
    StoredChunk, StoredDocument,
};

use crate::engine::Engine;
use crate::expr;
use crate::options::{check_collection_name, made_up_name};
use crate::rows::{overlong, rows_of, Row, LIVE, MAX_KEY, MAX_LIMIT};
use crate::MilvusOptions;

/// What the side index's commits publish about the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct EngineState {
    /// Always `milvus`.
    engine: String,
    /// The prefix of this index's collections.
    collection: String,
    /// The committed generation.
    generation: i64,
}

impl EngineState {
    fn parse(text: &str, dir: &Path) -> Result<EngineState> {
        serde_json::from_str::<EngineState>(text).ok().filter(|s| s.engine == "milvus").ok_or_else(|| {
            Error::Index {
                path: dir.to_path_buf(),
                reason: format!(
                    "its vectors are kept by an engine this strata does not know ({text}); \
                     open it with the strata that built it"
                ),
            }
        })
    }

    fn json(&self) -> String {
        serde_json::to_string(self).expect("plain struct")
    }
}

/// What a document's next commit does to its vector rows.
enum Staged {
    /// Replace them with these chunk and section rows.
    Put(Vec<Row>, Vec<Row>),
    /// Retire them.
    Removed,
}

/// An index whose records, text and keyword legs live in a local tantivy side-index (the
/// embedded store, in `--index DIR`) and whose chunk and section vectors live in Milvus,
/// which serves the dense legs with strata's filters pushed down.
pub struct MilvusStore {
    side: EmbeddedStore,
    engine: Engine,
    state: EngineState,
    /// Names of the chunk and section collections.
    chunks: String,
    sections: String,
    /// Whether the collections exist (they are made with the first vectors).
    ready: bool,
    /// Vector changes since the last commit, by document (writer only).
    staged: BTreeMap<DocId, Staged>,
    /// A commit failed and its rows could not be cleaned up: writing again needs a reopen.
    poisoned: bool,
}

impl MilvusStore {
    /// Opens an index for reading: the side index in `dir`, its vectors on the server of
    /// `options`.
    pub fn open(dir: &Path, options: &MilvusOptions) -> Result<MilvusStore> {
        let side = EmbeddedStore::open(dir)?;
        let state = match side.external() {
            Some(text) => EngineState::parse(text, dir)?,
            None => return Err(Self::not_milvus(dir)),
        };
        Self::connect(side, state, options)
    }

    /// Opens an index for writing, creating it when `dir` has none (its vectors in new
    /// collections named by `options.collection`). An existing index must have been built
    /// with `wanted`'s settings. A commit that an earlier writer did not finish is undone.
    pub fn open_or_create(dir: &Path, options: &MilvusOptions, wanted: Manifest) -> Result<MilvusStore> {
        let mut side = EmbeddedStore::open_or_create(dir, wanted)?;
        let state = match side.external() {
            Some(text) => EngineState::parse(text, dir)?,
            None if side.documents()?.is_empty() => {
                let collection = match &options.collection {
                    Some(name) => name.clone(),
                    None => made_up_name(),
                };
                check_collection_name(&collection)?;
                let state = EngineState { engine: "milvus".into(), collection, generation: 0 };
                // Marks the folder as Milvus-backed before any vector is written.
                side.commit_external(&state.json())?;
                state
            }
            None => return Err(Self::not_milvus(dir)),
        };
        let mut store = Self::connect(side, state, options)?;
        store.recover()?;
        Ok(store)
    }

    fn not_milvus(dir: &Path) -> Error {
        Error::Index {
            path: dir.to_path_buf(),
            reason: "it keeps its vectors in this folder, not in Milvus; open it with [store] \
                     kind = \"embedded\" (the default), or ingest into a new --index folder"
                .into(),
        }
    }

    fn connect(side: EmbeddedStore, state: EngineState, options: &MilvusOptions) -> Result<MilvusStore> {
        let dir = side.dir().to_path_buf();
        if let Some(wanted) = options.collection.as_ref().filter(|c| **c != state.collection) {
            return Err(Error::Index {
                path: dir,
                reason: format!(
                    "its vectors are in the Milvus collections {0}_chunks and {0}_sections, not {wanted}_…; \
                     set [store] collection = \"{0}\" or leave it out",
                    state.collection
                ),
            });
        }
        let engine = Engine::connect(options, &dir)?;
        let chunks = format!("{}_chunks", state.collection);
        let sections = format!("{}_sections", state.collection);
        let ready = engine.exists(&chunks)? && engine.exists(&sections)?;
        if ready {
            engine.load(&chunks)?;
            engine.load(&sections)?;
        }
        Ok(MilvusStore {
            side,
            engine,
            state,
            chunks,
            sections,
            ready,
            staged: BTreeMap::new(),
            poisoned: false,
        })
    }

    /// The side index's folder.
    pub fn dir(&self) -> &Path {
        self.side.dir()
    }

    /// The prefix of this index's collections.
    pub fn collection(&self) -> &str {
        &self.state.collection
    }

    /// The committed generation.
    pub fn generation(&self) -> i64 {
        self.state.generation
    }

    /// Size of the side index's files in bytes (the vectors' size is Milvus's).
    pub fn size_on_disk(&self) -> u64 {
        self.side.size_on_disk()
    }

    /// Drops the collections named by `options.collection`, to build an index of that name
    /// from scratch; `dir` names the index in errors.
    pub fn destroy(dir: &Path, options: &MilvusOptions) -> Result<()> {
        let name = options.collection.as_deref().ok_or_else(|| {
            Error::user("dropping an index's Milvus collections needs their name ([store] collection)")
        })?;
        check_collection_name(name)?;
        let engine = Engine::connect(options, dir)?;
        engine.drop_collection(&format!("{name}_chunks"))?;
        engine.drop_collection(&format!("{name}_sections"))
    }

    /// Drops this index's collections on the server. The side index is left to the caller.
    pub fn drop_collections(&self) -> Result<()> {
        self.engine.drop_collection(&self.chunks)?;
        self.engine.drop_collection(&self.sections)
    }

    /// Writes what a commit writes to Milvus and stops before the commit point, as a process
    /// that dies there would: for tests of recovery.
    #[doc(hidden)]
    pub fn write_without_publishing(&mut self) -> Result<()> {
        self.write_generation(self.state.generation + 1)
    }

    /// Undoes what a commit cut short wrote after the committed generation `G`: its new rows
    /// go, the rows it retired live again, and rows retired before `G` (left by a crash
    /// before the last clean-up) are deleted.
    fn recover(&mut self) -> Result<()> {
        if !self.ready {
            return Ok(());
        }
        let g = self.state.generation;
        for name in [&self.chunks, &self.sections] {
            self.engine.delete(name, &expr::written_after(g))?;
            loop {
                let (docs, more) = self.engine.docs(name, &expr::retired_after(g))?;
                for doc in &docs {
                    let filter = format!(
                        "{} == {} and {}",
                        crate::rows::field::DOC,
                        expr::quote(doc),
                        expr::retired_after(g)
                    );
                    let mut rows = self.engine.rows(name, &filter)?;
                    rows.iter_mut().for_each(|r| r.gen_to = LIVE);
                    self.engine.upsert(name, &rows)?;
                }
                if !more {
                    break;
                }
            }
            self.engine.delete(name, &expr::dead_at(g - 1))?;
        }
        Ok(())
    }

    /// Checks a dense query: false when there are no vectors to search.
    fn dense_query(&self, query: &[f32]) -> Result<bool> {
        let Some(dense) = &self.side.manifest().dense else { return Ok(false) };
        if query.len() != dense.dim {
            return Err(Error::Index {
                path: self.dir().to_path_buf(),
                reason: format!(
                    "its vectors have {} dimensions ({}), the query vector {}; embed queries with {}",
                    dense.dim,
                    dense.model,
                    query.len(),
                    dense.model
                ),
            });
        }
        Ok(self.ready)
    }

    fn poisoned(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::Index {
                path: self.dir().to_path_buf(),
                reason: "an earlier commit failed half-way in Milvus; open the index again (that \
                         undoes it) and run the same command again"
                    .into(),
            });
        }
        Ok(())
    }

    /// Steps 1 and 2 of a commit to `next`: retire the rows of every staged document and
    /// insert its new ones, all invisible to readers until the generation is published.
    fn write_generation(&mut self, next: i64) -> Result<()> {
        let any_rows =
            self.staged.values().any(|s| matches!(s, Staged::Put(c, s) if !c.is_empty() || !s.is_empty()));
        if any_rows && !self.ready {
            let dim = self.side.manifest().dense.as_ref().map(|d| d.dim).ok_or_else(|| {
                Error::Internal("vectors staged without a dense model in the manifest".into())
            })?;
            for name in [&self.chunks, &self.sections] {
                if !self.engine.exists(name)? {
                    self.engine.create(name, dim)?;
                }
            }
            self.ready = true;
        }
        if !self.ready {
            return Ok(());
        }
        let g = self.state.generation;
        for (doc, staged) in &self.staged {
            let new = match staged {
                Staged::Put(chunks, sections) => [Some(chunks), Some(sections)],
                Staged::Removed => [None, None],
            };
            for (name, new) in [&self.chunks, &self.sections].into_iter().zip(new) {
                let mut live = self.engine.rows(name, &expr::live_of(g, doc.as_str()))?;
                if live.len() >= MAX_LIMIT {
                    return Err(Error::Index {
                        path: self.dir().to_path_buf(),
                        reason: format!(
                            "{doc}: more than {MAX_LIMIT} vectors of one document in {name}, more than \
                             one Milvus query returns; split the document"
                        ),
                    });
                }
                live.iter_mut().for_each(|r| r.gen_to = next);
                self.engine.upsert(name, &live)?;
                if let Some(rows) = new {
                    // Upserts, not inserts: Milvus does not refuse a second row of one
                    // primary key, and a commit tried again writes the same keys again.
                    let rows: Vec<Row> = rows.iter().map(|r| Row { gen_from: next, ..r.clone() }).collect();
                    self.engine.upsert(name, &rows)?;
                }
            }
        }
        Ok(())
    }
}

impl StoreRead for MilvusStore {
    fn manifest(&self) -> &Manifest {
        self.side.manifest()
    }

    fn documents(&self) -> Result<Vec<DocSummary>> {
        self.side.documents()
    }

    fn document(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        self.side.document(id)
    }

    fn document_meta(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        self.side.document_meta(id)
    }

    fn content_hash(&self, id: &DocId) -> Result<Option<String>> {
        self.side.content_hash(id)
    }

    fn chunks(&self, ids: &[String]) -> Result<Vec<StoredChunk>> {
        self.side.chunks(ids)
    }

    fn chunks_of(&self, doc: &DocId, nodes: Option<(NodeId, NodeId)>) -> Result<Vec<StoredChunk>> {
        self.side.chunks_of(doc, nodes)
    }

    fn keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.side.keyword(query, filter, limit)
    }

    fn section_keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        self.side.section_keyword(query, filter, limit)
    }

    fn section_dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        if limit == 0 || !self.dense_query(query)? {
            return Ok(Vec::new());
        }
        let expr = expr::leg(self.state.generation, filter, false);
        let hits = self.engine.search(&self.sections, &expr, query, limit)?;
        hits.into_iter()
            .map(|(id, score)| {
                SectionHit::from_id(&id, score).ok_or_else(|| Error::Index {
                    path: self.dir().to_path_buf(),
                    reason: format!(
                        "a section vector in {} has a bad id {id:?}; re-ingest its document",
                        self.sections
                    ),
                })
            })
            .collect()
    }

    fn exact_numbers(&self, keys: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.side.exact_numbers(keys, filter, limit)
    }

    fn exact_terms(&self, terms: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.side.exact_terms(terms, filter, limit)
    }

    fn exact_phrase(&self, phrase: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.side.exact_phrase(phrase, filter, limit)
    }

    fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        if limit == 0 || !self.dense_query(query)? {
            return Ok(Vec::new());
        }
        let expr = expr::leg(self.state.generation, filter, true);
        let hits = self.engine.search(&self.chunks, &expr, query, limit)?;
        Ok(hits.into_iter().map(|(chunk, score)| LegHit { chunk, score }).collect())
    }

    fn definitions(&self, term: &str) -> Result<Vec<Definition>> {
        self.side.definitions(term)
    }

    fn defined_terms(&self) -> Result<Vec<String>> {
        self.side.defined_terms()
    }

    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        self.side.cached_contexts(keys)
    }
}

impl StoreWrite for MilvusStore {
    fn put(&mut self, record: &DocumentRecord) -> Result<()> {
        self.poisoned()?;
        check_vectors(record)?;
        if let Some(v) = &record.vectors {
            self.side.adopt_dense(&v.model, v.dim)?;
        }
        if let Some(sv) = &record.section_vectors {
            self.side.adopt_dense(&sv.vectors.model, sv.vectors.dim)?;
        }
        let (chunks, sections) = rows_of(record, self.state.generation + 1);
        if let Some(key) = overlong(&chunks).or(overlong(&sections)) {
            return Err(Error::Index {
                path: self.dir().to_path_buf(),
                reason: format!(
                    "{}: the key {key:?} is longer than Milvus's VARCHAR({MAX_KEY}) allows; give the document a shorter id",
                    record.document.id
                ),
            });
        }
        let text_only = DocumentRecord { vectors: None, section_vectors: None, ..record.clone() };
        self.side.put(&text_only)?;
        self.staged.insert(record.document.id.clone(), Staged::Put(chunks, sections));
        Ok(())
    }

    fn remove(&mut self, id: &DocId) -> Result<bool> {
        self.poisoned()?;
        let removed = self.side.remove(id)?;
        if removed {
            self.staged.insert(id.clone(), Staged::Removed);
        }
        Ok(removed)
    }

    fn cache_contexts(&mut self, entries: &[(String, String)]) -> Result<()> {
        self.side.cache_contexts(entries)
    }

    fn commit(&mut self) -> Result<()> {
        self.poisoned()?;
        let next = self.state.generation + 1;
        if let Err(e) = self.write_generation(next) {
            // Undo what was written, keeping what is staged so that the commit can be tried
            // again; when even that fails, the next writer's open undoes it.
            if self.recover().is_err() {
                self.poisoned = true;
            }
            return Err(e);
        }
        let state = EngineState { generation: next, ..self.state.clone() };
        // The commit point. When it fails, whether it took is unknown here (tantivy may have
        // published before a later step failed): only a new open reads which generation is
        // committed, and undoes the rest.
        if let Err(e) = self.side.commit_external(&state.json()) {
            self.poisoned = true;
            return Err(e);
        }
        self.state = state;
        self.staged.clear();
        if self.ready {
            for name in [&self.chunks, &self.sections] {
                if let Err(e) = self.engine.delete(name, &expr::dead_at(next - 1)) {
                    tracing::warn!(
                        "clean-up of retired vectors in {name} failed (the next writer retries): {e}"
                    );
                }
            }
        }
        Ok(())
    }
}
