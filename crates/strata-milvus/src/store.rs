//! `MilvusStore`: the `Store` traits with every vector in Milvus.
//!
//! Milvus has no transactions, so a commit is made atomic with generations:
//!
//! - every row carries the interval of generations `gen_from..gen_to` it is visible in, and
//!   every leg filters on the reader's generation `G` (`gen_from <= G and gen_to > G`);
//! - `commit` to `G + 1` first retires the rows of replaced and removed documents
//!   (`gen_to = G + 1`, whole-row upserts) and writes the new rows (`gen_from = G + 1`),
//!   all invisible to readers of `G`; then
//! - it publishes `G + 1` with the side index's tantivy commit, which is the commit point:
//!   the records and the generation that makes their vectors visible change together; and
//! - rows a commit retired are deleted once that commit is [`KEEP_RETIRED`] old, so that a
//!   reader still on an older generation (a server between two refreshes) finds everything
//!   it expects.
//!
//! A commit cut short leaves rows of `G + 1` that no reader sees; opening the index for
//! writing deletes them and brings the rows it retired back to life. Milvus accepts a write
//! once it is durable (its write-ahead log), so no flush is needed before the commit point.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use strata_core::{ChunkId, Definition, DocId, DocumentRecord, Error, NodeId, Result};
use strata_index::{
    check_vectors, DocSummary, EmbeddedStore, Filter, LegHit, Manifest, SectionHit, StoreRead, StoreWrite,
    StoredChunk, StoredDocument,
};

use crate::engine::Engine;
use crate::expr;
use crate::options::{check_collection_name, made_up_name};
use crate::rows::{overlong, rows_of, Row, LIVE, MAX_KEY, MAX_LIMIT};
use crate::MilvusOptions;

/// How long the rows a commit retired stay: readers opened before it (a server refreshes its
/// snapshot within seconds of a commit) still read them.
pub const KEEP_RETIRED: Duration = Duration::from_secs(60);

/// The most commits [`EngineState::published`] remembers.
const MAX_PUBLISHED: usize = 1024;

/// What the side index's commits publish about the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct EngineState {
    /// Always `milvus`.
    engine: String,
    /// The prefix of this index's collections.
    collection: String,
    /// The committed generation.
    generation: i64,
    /// Recent commits whose retired rows may still be read: (generation, Unix seconds when
    /// it was published), oldest first.
    #[serde(default)]
    published: Vec<(i64, u64)>,
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
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

    /// The newest generation whose retired rows no reader needs any more at `now`: rows with
    /// `gen_to` at or below it may go.
    fn collectable(&self, now: u64) -> Option<i64> {
        self.published.iter().filter(|(_, at)| at + KEEP_RETIRED.as_secs() <= now).map(|(g, _)| *g).max()
    }

    /// This state after a commit of `generation` published at `now`, whose clean-up deletes
    /// the rows retired at or before `collected`.
    fn after_commit(&self, generation: i64, now: u64, collected: Option<i64>) -> EngineState {
        let mut published: Vec<(i64, u64)> =
            self.published.iter().copied().filter(|(g, _)| collected.is_none_or(|c| *g > c)).collect();
        published.push((generation, now));
        // Forgetting the oldest only delays their clean-up to that of a newer commit.
        let excess = published.len().saturating_sub(MAX_PUBLISHED);
        published.drain(..excess);
        EngineState { generation, published, ..self.clone() }
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
    /// A commit failed and its outcome is unknown: writing again needs a reopen.
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
        let engine = Engine::connect(options, dir)?;
        Self::with(side, state, engine, options)
    }

    /// Opens an index for writing, creating it when `dir` has none (its vectors in new
    /// collections named by `options.collection`, which must not exist yet). An existing
    /// index must have been built with `wanted`'s settings. A commit that an earlier writer
    /// did not finish is undone.
    pub fn open_or_create(dir: &Path, options: &MilvusOptions, wanted: Manifest) -> Result<MilvusStore> {
        let mut side = EmbeddedStore::open_or_create_external(dir, wanted)?;
        let existing = match side.external() {
            Some(text) => Some(EngineState::parse(text, dir)?),
            None if side.documents()?.is_empty() => None,
            None => return Err(Self::not_milvus(dir)),
        };
        let engine = Engine::connect(options, dir)?;
        let state = match existing {
            Some(state) => state,
            None => {
                let collection = options.collection.clone().unwrap_or_else(made_up_name);
                check_collection_name(&collection)?;
                let (chunks, sections) = Self::names(&collection);
                for name in [&chunks, &sections] {
                    if engine.exists(name)? {
                        return Err(Error::Index {
                            path: dir.to_path_buf(),
                            reason: format!(
                                "a new index cannot keep its vectors in the Milvus collection {name}: it \
                                 exists already (another index's?); choose another [store] collection \
                                 (STRATA_STORE_COLLECTION), or drop it if nothing uses it"
                            ),
                        });
                    }
                }
                let state =
                    EngineState { engine: "milvus".into(), collection, generation: 0, published: Vec::new() };
                // Marks the folder as Milvus-backed before any vector is written.
                side.commit_external(&state.json())?;
                state
            }
        };
        let mut store = Self::with(side, state, engine, options)?;
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

    /// The chunk and section collections of the index named `collection`.
    fn names(collection: &str) -> (String, String) {
        (format!("{collection}_chunks"), format!("{collection}_sections"))
    }

    fn with(
        side: EmbeddedStore,
        state: EngineState,
        engine: Engine,
        options: &MilvusOptions,
    ) -> Result<MilvusStore> {
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
        let (chunks, sections) = Self::names(&state.collection);
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
        let (chunks, sections) = Self::names(name);
        engine.drop_collection(&chunks)?;
        engine.drop_collection(&sections)
    }

    /// Drops this index's collections on the server. The side index is left to the caller.
    pub fn drop_collections(&self) -> Result<()> {
        self.engine.drop_collection(&self.chunks)?;
        self.engine.drop_collection(&self.sections)
    }

    /// Writes what a commit writes to Milvus and stops before the commit point, as a process
    /// that dies there would: for tests of recovery.
    #[cfg(feature = "fault-injection")]
    pub fn write_without_publishing(&mut self) -> Result<()> {
        self.write_generation(self.state.generation + 1)
    }

    /// Undoes what a commit cut short wrote after the committed generation `G`: its new rows
    /// go, the rows it retired live again, and rows no reader needs any more (left by a crash
    /// before a clean-up) are deleted.
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
                    let filter = format!("{} and {}", expr::of_doc(doc), expr::retired_after(g));
                    let mut rows = self.engine.rows(name, &filter, self.dim())?;
                    rows.iter_mut().for_each(|r| r.gen_to = LIVE);
                    self.engine.upsert(name, &rows)?;
                }
                if !more {
                    break;
                }
            }
            if let Some(collected) = self.state.collectable(unix_now()) {
                self.engine.delete(name, &expr::dead_at(collected))?;
            }
        }
        Ok(())
    }

    /// The dimension of the index's vectors (0 before the first).
    fn dim(&self) -> usize {
        self.side.manifest().dense.as_ref().map_or(0, |d| d.dim)
    }

    /// Checks a dense query: false when there are no vectors to search.
    fn dense_query(&self, query: &[f32]) -> Result<bool> {
        Ok(self.side.manifest().check_query(query, self.dir())? && self.ready)
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
    /// write its new ones, all invisible to readers until the generation is published.
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
        let (g, dim) = (self.state.generation, self.dim());
        for (doc, staged) in &self.staged {
            let new = match staged {
                Staged::Put(chunks, sections) => [Some(chunks), Some(sections)],
                Staged::Removed => [None, None],
            };
            for (name, new) in [&self.chunks, &self.sections].into_iter().zip(new) {
                let mut live = self.engine.rows(name, &expr::live_of(g, doc.as_str()), dim)?;
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

    fn chunks(&self, ids: &[ChunkId]) -> Result<Vec<StoredChunk>> {
        self.side.chunks(ids)
    }

    fn sections_of(&self, ids: &[ChunkId]) -> Result<Vec<(ChunkId, DocId, NodeId)>> {
        self.side.sections_of(ids)
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
        Ok(hits.into_iter().map(|(chunk, score)| LegHit { chunk: ChunkId::from(chunk), score }).collect())
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

    fn cached_vectors(&self, keys: &[String]) -> Result<HashMap<String, strata_core::CachedVector>> {
        self.side.cached_vectors(keys)
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
        let rows = chunks.len().max(sections.len());
        if rows >= MAX_LIMIT {
            return Err(Error::Index {
                path: self.dir().to_path_buf(),
                reason: format!(
                    "{}: {rows} chunks, and Milvus returns at most {MAX_LIMIT} rows of one document; \
                     split the document, or raise chunk.max_tokens for a new index",
                    record.document.id
                ),
            });
        }
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
        if self.staged.is_empty() {
            // No vector changed: the same generation, published with the other records.
            return self.side.commit_external(&self.state.json());
        }
        let next = self.state.generation + 1;
        if let Err(e) = self.write_generation(next) {
            // Undo what was written, keeping what is staged so that the commit can be tried
            // again; when even that fails, the next writer's open undoes it.
            if self.recover().is_err() {
                self.poisoned = true;
            }
            return Err(e);
        }
        let now = unix_now();
        let collected = self.state.collectable(now);
        let state = self.state.after_commit(next, now, collected);
        // The commit point. When it fails, whether it took is unknown here (tantivy may have
        // published before a later step failed): only a new open reads which generation is
        // committed, and undoes the rest.
        if let Err(e) = self.side.commit_external(&state.json()) {
            self.poisoned = true;
            return Err(e);
        }
        self.state = state;
        self.staged.clear();
        if let (true, Some(collected)) = (self.ready, collected) {
            for name in [&self.chunks, &self.sections] {
                if let Err(e) = self.engine.delete(name, &expr::dead_at(collected)) {
                    tracing::warn!(
                        "clean-up of retired vectors in {name} failed (the next writer retries): {e}"
                    );
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(published: Vec<(i64, u64)>) -> EngineState {
        EngineState { engine: "milvus".into(), collection: "c".into(), generation: 9, published }
    }

    #[test]
    fn retired_rows_stay_until_their_commit_is_old_enough() {
        let keep = KEEP_RETIRED.as_secs();
        let s = state(vec![(7, 1000), (8, 1010), (9, 1020)]);
        assert_eq!(s.collectable(1000 + keep - 1), None, "no commit old enough yet");
        assert_eq!(s.collectable(1010 + keep), Some(8), "readers opened before 9 may still read");
        let after = s.after_commit(10, 1010 + keep, Some(8));
        assert_eq!(after.generation, 10);
        assert_eq!(after.published, vec![(9, 1020), (10, 1010 + keep)], "what was collected is forgotten");
    }

    #[test]
    fn the_commit_history_is_bounded() {
        let s = state((0..MAX_PUBLISHED as i64).map(|g| (g, 5000)).collect());
        let after = s.after_commit(MAX_PUBLISHED as i64, 5001, None);
        assert_eq!(after.published.len(), MAX_PUBLISHED);
        assert_eq!(after.published[0].0, 1, "the oldest goes first");
    }

    #[test]
    fn states_of_older_writers_still_parse() {
        let s = EngineState::parse(r#"{"engine":"milvus","collection":"c","generation":3}"#, Path::new("i"))
            .unwrap();
        assert!(s.published.is_empty());
        let e = EngineState::parse(r#"{"engine":"qdrant"}"#, Path::new("i")).unwrap_err().to_string();
        assert!(e.contains("does not know"), "{e}");
    }
}
