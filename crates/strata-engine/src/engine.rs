//! An index opened with its models, for front-ends that answer many requests.
//!
//! Readers and the writer never share a store. Every search and navigation reads one
//! [`Snapshot`]: a read-only store opened on the last commit, with the defined terms the
//! query planner needs read once. Ingests and removals run one at a time (a writer lock),
//! open the index for writing, and after each commit open a fresh read-only store and
//! publish it as the new snapshot. A request holds the snapshot it started with, so it sees
//! one commit from its first leg to its last, and old snapshots go when their last request
//! ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock, TryLockError};
use std::time::{Duration, Instant};

use strata_core::config::{ContextKind, OcrMode};
use strata_core::{Config, DocId, Result, ResultExt};
use strata_index::StoreRead;
use strata_ingest::open::Roots;
use strata_ingest::pipeline::Pipeline;
use strata_model::rerank::Reranker;
use strata_model::Embedder;
use strata_search::{navigate, Catalog, SearchResponse, Searcher};
use strata_text::tokenize::Tokenizer;

use crate::ingest::{self, Summary};
use crate::progress::Observer;
use crate::{models, Location, SearchOptions};

/// What [`Engine::open`] loads.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// The embedding model (`--model`), else `[dense] model` or what the index records.
    pub model: Option<String>,
    /// Load the query embedder when the index has vectors (a keyword-only CLI search skips
    /// the model).
    pub dense: bool,
    /// Create an empty index when the folder has none, and load the embedder ingest needs
    /// (a server that starts before its first document).
    pub create: bool,
    /// Navigation only (outline, sections, pages, references, definitions): no tokenizer
    /// or reranker is loaded, so searches assemble no context and are not reranked.
    pub navigate_only: bool,
}

/// What one ingest asks for besides its inputs (`strata ingest`'s flags, the Python
/// package's `Index.ingest` arguments).
#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    /// Re-index files whose content has not changed.
    pub force: bool,
    /// Draw a progress bar on standard error (hidden when it is not a terminal).
    pub progress: bool,
    /// What writes the chunks' contexts (`--contextualize`), else `[context] kind`.
    pub context: Option<ContextKind>,
    /// Metadata for every file (`--meta key=value`), over `[ingest] metadata`.
    pub metadata: BTreeMap<String, String>,
    /// OCR of scanned PDF pages (`--ocr`), else `[ingest] ocr`.
    pub ocr: Option<OcrMode>,
    /// Told how the ingest advances (files done, files in all, what it is doing).
    pub observer: Option<Observer>,
    /// Read only files whose real path lies under these folders (a server's path jobs):
    /// each input is then one file, checked where it is opened, and no folder is expanded.
    pub within: Option<Arc<Roots>>,
    /// Set, the ingest takes no further file: what was read is written and committed, and
    /// the files not started are reported failed (a server shutting down).
    pub stop: Option<Arc<AtomicBool>>,
}

impl IngestOptions {
    /// `config` with these options over it, checked.
    pub fn apply(&self, config: &Config) -> Result<Config> {
        let mut config = config.clone();
        if let Some(kind) = self.context {
            config.context.kind = kind;
        }
        if let Some(ocr) = self.ocr {
            config.ingest.ocr = ocr;
        }
        config.ingest.metadata.extend(self.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        config.validate("the ingest options")?;
        Ok(config)
    }
}

/// One commit of the index, as readers see it.
pub struct Snapshot {
    store: Box<dyn StoreRead>,
    catalog: Catalog,
    generation: u64,
    /// The commit's stamp ([`Location::stamp`]) as it was just before opening.
    stamp: Option<String>,
}

impl Snapshot {
    fn open(location: &Location, generation: u64) -> Result<Snapshot> {
        // Read before opening: a commit landing in between is seen by the next refresh.
        let stamp = location.stamp();
        let store = location.open()?;
        let catalog = Catalog::read(store.as_ref())?;
        Ok(Snapshot { store, catalog, generation, stamp })
    }

    /// The store at this commit.
    pub fn store(&self) -> &dyn StoreRead {
        self.store.as_ref()
    }

    /// How many snapshots this engine published before this one (0 for the one it opened
    /// with).
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// An index with its query embedder, reranker and tokenizer.
pub struct Engine {
    config: Config,
    /// `config` with chunk sizes fitted to the embedder's window, as `strata ingest` does.
    ingest_config: Config,
    index: PathBuf,
    location: Location,
    embedder: Option<Box<dyn Embedder>>,
    reranker: Option<Box<dyn Reranker>>,
    tokenizer: Option<Arc<dyn Tokenizer>>,
    current: RwLock<Arc<Snapshot>>,
    /// Held while a snapshot is opened and swapped in, so that two reloads (the writer's and
    /// the refresh's) cannot publish an older commit over a newer one.
    reloading: Mutex<()>,
    writer: Mutex<()>,
}

impl Engine {
    /// Opens the index at `index` with the models `config` and `options` ask for.
    pub fn open(config: Config, index: &Path, options: &OpenOptions) -> Result<Engine> {
        let model = options.model.as_deref();
        let location = Location::of(&config, index)?;
        let manifest = location.manifest()?;
        let embedder = match &manifest {
            Some(m) if m.dense.is_some() && (options.dense || options.create) => {
                models::for_index(&config, m, model)?
            }
            // What `strata ingest` would embed with.
            _ if options.create => models::for_ingest(&config, model)?,
            _ => None,
        };
        let mut ingest_config = config.clone();
        if let Some(note) = embedder.as_deref().and_then(|e| models::fit_chunks(&mut ingest_config, e)) {
            tracing::info!("{note}");
        }
        if manifest.is_none() && options.create {
            // An empty index with the settings a first ingest would give it.
            Pipeline::new(&ingest_config)
                .context("loading the tokenizer")
                .and_then(|pipeline| ingest::open_for_ingest(&ingest_config, &location, &pipeline))
                .with_context(|| format!("creating an index in {}", location.describe()))?;
        }
        let snapshot = Snapshot::open(&location, 0)?;
        let (tokenizer, reranker) = if options.navigate_only {
            (None, None)
        } else {
            let manifest = snapshot.store.manifest();
            let tokenizer = match models::tokenizer_for_index(&config, manifest, embedder.as_deref(), model) {
                Ok(tokenizer) => Some(tokenizer),
                Err(why) => {
                    tracing::warn!("no context block: {why:#}");
                    None
                }
            };
            (tokenizer, crate::models::reranker(&config.rerank)?)
        };
        Ok(Engine {
            config,
            ingest_config,
            index: index.to_path_buf(),
            location,
            embedder,
            reranker,
            tokenizer,
            current: RwLock::new(Arc::new(snapshot)),
            reloading: Mutex::new(()),
            writer: Mutex::new(()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The index folder (for the embedded store, the index itself; for any store, where
    /// uploads are kept).
    pub fn index(&self) -> &Path {
        &self.index
    }

    /// Where the index lives.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The query embedder's model, when the dense leg can run.
    pub fn dense_model(&self) -> Option<&str> {
        self.embedder.as_deref().map(|e| e.info().model_id.as_str())
    }

    /// The reranker's id, when one is configured.
    pub fn reranker(&self) -> Option<&str> {
        self.reranker.as_deref().map(|r| r.id())
    }

    /// The last commit. Hold it for the whole of one request.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Publishes the index's last commit to readers (after an ingest by another process).
    pub fn reload(&self) -> Result<()> {
        // Opened under the lock: whichever reload runs last opens the latest commit.
        let _reloading = self.reloading.lock().unwrap_or_else(|p| p.into_inner());
        let generation = self.snapshot().generation + 1;
        let fresh = Arc::new(Snapshot::open(&self.location, generation)?);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = fresh;
        Ok(())
    }

    /// Publishes the last commit when another process (a `strata ingest`) committed since
    /// the current snapshot was opened; true when it did. A server calls this every few
    /// seconds.
    pub fn refresh(&self) -> Result<bool> {
        // While this engine writes, its own commits publish themselves.
        let Ok(_writer) = self.writer.try_lock() else { return Ok(false) };
        let current = self.snapshot();
        if current.stamp.is_some() && self.location.stamp() == current.stamp {
            return Ok(false);
        }
        self.reload()?;
        Ok(true)
    }

    fn reload_logged(&self) {
        if let Err(e) = self.reload() {
            tracing::error!("reopening the index after a commit failed; readers keep the previous one: {e}");
        }
    }

    /// Runs a search on the last commit.
    pub fn search(&self, options: &SearchOptions) -> Result<SearchResponse> {
        let snapshot = self.snapshot();
        let store = snapshot.store();
        let request = options.request(&self.config, store)?;
        let mut searcher =
            Searcher::with_catalog(store, self.config.search.clone(), snapshot.catalog.clone());
        if let Some(embedder) = self.embedder.as_deref() {
            searcher = searcher.with_embedder(embedder)?;
        }
        if let Some(reranker) = self.reranker.as_deref() {
            searcher = searcher.with_reranker(reranker, self.config.rerank.candidates);
        }
        if let Some(tokenizer) = &self.tokenizer {
            searcher = searcher.with_tokenizer(tokenizer.clone())?;
        }
        // tantivy's FST reader panics on a damaged term dictionary instead of failing.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| searcher.search(&request))) {
            Ok(answer) => answer,
            Err(panic) => Err(damaged(&self.location, panic.as_ref())),
        }
    }

    /// Ingests files, folders and globs (one writer at a time); readers see each commit as
    /// it lands.
    pub fn ingest(&self, inputs: &[String], force: bool) -> Result<Summary> {
        self.ingest_with(inputs, &IngestOptions { force, ..IngestOptions::default() })
    }

    /// Ingests files, folders and globs with `options` (one writer at a time); readers see
    /// each commit as it lands. The options are checked before anything is read.
    pub fn ingest_with(&self, inputs: &[String], options: &IngestOptions) -> Result<Summary> {
        let config = options.apply(&self.ingest_config)?;
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        // Each commit, the last one included, is published by `on_commit`.
        let report = ingest::Report {
            force: options.force,
            progress: options.progress,
            observer: options.observer.as_ref(),
            within: options.within.clone(),
            stop: options.stop.as_deref(),
        };
        ingest::run(&config, &self.location, inputs, &report, self.embedder.as_deref(), &|| {
            self.reload_logged()
        })
    }

    /// Removes a document (id or part of its path) and everything derived from it.
    pub fn remove(&self, doc: &str) -> Result<DocId> {
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        self.remove_holding_writer(doc)
    }

    /// [`Engine::remove`], waiting at most `wait` for the writer, which an ingest may hold
    /// for minutes: `Ok(None)` when it stayed busy, and then nothing was removed (a server
    /// answers at once instead of timing out while the removal goes on behind the answer).
    pub fn try_remove(&self, doc: &str, wait: Duration) -> Result<Option<DocId>> {
        let deadline = Instant::now() + wait;
        let _writer = loop {
            match self.writer.try_lock() {
                Ok(held) => break held,
                Err(TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(TryLockError::WouldBlock) => return Ok(None),
            }
        };
        self.remove_holding_writer(doc).map(Some)
    }

    fn remove_holding_writer(&self, doc: &str) -> Result<DocId> {
        let removed = remove(&self.location, doc);
        if removed.is_ok() {
            self.reload()?;
        }
        removed
    }
}

/// `strata ingest`: ingests `inputs` into the index at `index` (created when absent) through
/// [`Engine::ingest_with`], as the server's jobs and the Python package do, with the embedder
/// `model` (else `[dense] model`, or the one the index records). The options are checked
/// before anything is opened, so a bad flag leaves no empty index behind. Only the ingest's
/// models are loaded: no reranker.
pub fn ingest_files(
    config: Config,
    index: &Path,
    model: Option<&str>,
    inputs: &[String],
    options: &IngestOptions,
) -> Result<Summary> {
    options.apply(&config)?;
    let open =
        OpenOptions { model: model.map(str::to_string), create: true, navigate_only: true, dense: false };
    Engine::open(config, index, &open)?.ingest_with(inputs, options)
}

/// Removes a document (id or part of its path) from the index at `location` and commits.
pub fn remove(location: &Location, doc: &str) -> Result<DocId> {
    // Open for writing with the index's own settings; an absent index is the same clear error
    // as for reading.
    let manifest = match location.manifest()? {
        Some(manifest) => manifest,
        None => return Err(location.open().err().unwrap_or_else(|| no_manifest(location))),
    };
    let mut store = location.open_or_create(manifest, strata_index::DEFAULT_ANN_THRESHOLD)?;
    let id = navigate::resolve_doc(store.as_ref(), doc)?;
    if !store.remove(&id)? {
        return Err(strata_core::Error::not_found(format!("document {id} is not in the index")));
    }
    store.commit()?;
    Ok(id)
}

/// Verifies the index at `location` without changing it (`strata check`): every segment's
/// checksums and every vector of its folder (a Milvus location's records and keyword legs).
pub fn check(location: &Location) -> Result<strata_index::Check> {
    match location.dir() {
        Some(dir) => strata_index::EmbeddedStore::check(dir),
        None => Err(strata_core::Error::user(format!(
            "strata check verifies an index folder; {} is a PostgreSQL database, which checks its own pages \
             (its amcheck extension)",
            location.describe()
        ))),
    }
}

/// The error for a search that panicked inside the store: it names the index and the repair.
fn damaged(location: &Location, panic: &(dyn std::any::Any + Send)) -> strata_core::Error {
    let what = match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic".to_string(),
    };
    strata_core::Error::Index {
        path: location.describe().into(),
        reason: format!(
            "reading it failed ({what}), so it may be damaged: run `strata check` on it, and if it names \
             damaged files, ingest the same documents into a new index"
        ),
    }
}

fn no_manifest(location: &Location) -> strata_core::Error {
    strata_core::Error::Index { path: location.describe().into(), reason: "index has no manifest".into() }
}
