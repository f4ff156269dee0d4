//! The ingest loop of `strata ingest`, the server's jobs and Python: collect files, run the
//! [`Driver`]'s stages on both cores, write and commit.
//!
//! Files are read and processed by worker threads; the main thread owns the store and
//! writes. A bounded channel keeps at most a few processed documents in memory. One bad file
//! is reported and skipped; the others go on. Commits happen every `ingest.commit_every`
//! documents and at the end, so a crash loses at most the documents since the last commit.
//!
//! The workers also set each chunk's context (`[context] kind`, structural by default):
//! contexts a language model wrote earlier come from the store's cache (through a reader of
//! the last commit), the rest are asked for, at most `[context.llm] concurrency` calls in
//! flight across all workers; with a language model there are that many workers (up to 16),
//! since they wait on the network. The main thread stages the new contexts for the cache.
//!
//! The workers run each file through read → annotate → tree → chunk → enrich → context
//! ([`Driver::prepare`]); the main thread finishes each document with embed and record.
//! With the dense leg on, prepared documents wait in a queue until it holds [`EMBED_QUEUE`]
//! chunks (or the input ends); then all their chunks are embedded together (the embedder
//! uses every core itself) and the documents written. So a corpus of many
//! small files fills the embedder's batches as one large file does, and the workers read and
//! chunk the next documents meanwhile. Embedding goes in slices so the progress bar moves
//! inside long documents and reports the throughput.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use serde::Serialize;
use strata_core::{Config, DocId, Error, Format, Result, ResultExt};
use strata_index::{Manifest, StoreRead, StoreWrite};
use strata_ingest::context::{self, ContextCache};
pub use strata_ingest::open::Roots;
use strata_ingest::pipeline::{Ingested, Pipeline};
use strata_model::Embedder;

use crate::driver::{Driver, Prepared};
use crate::embed::{Embedded, Vectors};
use crate::models::Chosen;
use crate::ocr_cache::OcrCache;
pub use crate::ocr_cache::OcrTally;
use crate::progress::{Observer, Progress};
use crate::record::ContextSink;
pub use crate::record::ContextTally;
use crate::Location;

/// What happened to one file.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FileOutcome {
    /// The path as given.
    pub path: String,
    /// `ingested`, `unchanged` or `failed`.
    pub status: &'static str,
    /// Document id when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
    /// Chunks written.
    pub chunks: usize,
    /// Error or warnings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
}

/// The ingest summary.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Summary {
    /// Files considered.
    pub files: usize,
    /// Files (re)indexed.
    pub ingested: usize,
    /// Files skipped because unchanged.
    pub unchanged: usize,
    /// Files that failed.
    pub failed: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Embedding model, when the dense leg is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Chunks the model embedded.
    pub embedded: usize,
    /// Chunks whose vector came from the index's vector cache (their embedded text was
    /// there already: unchanged chunks of a re-ingested document, or repeated text).
    pub reused: usize,
    /// Section profiles embedded (the dense section leg).
    pub sections_embedded: usize,
    /// Seconds spent embedding chunks and sections.
    pub embed_seconds: f64,
    /// Chunks longer than the model's window (their tails are invisible to the dense leg).
    pub truncated: usize,
    /// What wrote the chunks' contexts (`structural@2`, `anthropic:claude-haiku-4-5@1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// How the chunks got their contexts.
    pub contexts: ContextTally,
    /// How scanned pages were read: OCR'd, or read from the index's cache.
    #[serde(skip_serializing_if = "OcrTally::is_empty")]
    pub ocr: OcrTally,
    /// Seconds.
    pub seconds: f64,
    /// Per file.
    pub outcomes: Vec<FileOutcome>,
}

/// The store as the context stage's cache.
pub(crate) struct StoreCache<'a>(pub(crate) &'a dyn StoreRead);

impl ContextCache for StoreCache<'_> {
    fn get(&self, keys: &[String]) -> strata_core::Result<HashMap<String, String>> {
        self.0.cached_contexts(keys)
    }
}

/// Expands files, folders (recursive; only supported extensions) and glob patterns.
pub fn collect(inputs: &[String]) -> (Vec<PathBuf>, Vec<FileOutcome>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    // Folders contribute only the formats this build reads; a file named explicitly is
    // always tried, so that an unsupported one gets a per-file error.
    let supported = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .and_then(Format::from_extension)
            .is_some_and(|f| strata_ingest::read::reader_for(f).is_some())
    };
    for input in inputs {
        let path = Path::new(input);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(path)
                .follow_links(true)
                .into_iter()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_file() && supported(e.path()))
                .map(|e| e.into_path())
                .collect();
            found.sort();
            files.extend(found);
        } else if path.exists() {
            files.push(path.to_path_buf());
        } else if input.contains(['*', '?', '[']) {
            match glob::glob(input) {
                Ok(paths) => {
                    let mut found: Vec<PathBuf> =
                        paths.filter_map(|p| p.ok()).filter(|p| p.is_file()).collect();
                    if found.is_empty() {
                        problems.push(failed(input, "the pattern matches no file".into()));
                    }
                    found.sort();
                    files.extend(found);
                }
                Err(e) => problems.push(failed(input, format!("bad glob pattern: {e}"))),
            }
        } else {
            problems.push(failed(input, "no such file or folder".into()));
        }
    }
    // The same file named twice (`dir dir/a.md`) is ingested once.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    (files, problems)
}

/// A failed input; its message names the input once (a read error names its file already).
fn failed(path: &str, msg: String) -> FileOutcome {
    let message = match msg.strip_prefix(path).is_some_and(|rest| rest.starts_with(": ")) {
        true => msg,
        false => format!("{path}: {msg}"),
    };
    FileOutcome { path: path.to_string(), status: "failed", doc_id: None, chunks: 0, messages: vec![message] }
}

enum Work {
    /// Read, chunked and situated (or why its contexts failed).
    Done(PathBuf, Box<Prepared>),
    Unchanged(PathBuf, DocId),
    Failed(PathBuf, String),
}

/// Chunks gathered across documents before they are embedded together. It bounds the
/// memory the queue holds (besides one document larger than it).
const EMBED_QUEUE: usize = 256;

/// Chunks embedded per call, so that progress shows inside long documents and a stop (Ctrl-C
/// in Python, a server shutting down) is seen between slices. The embedder sorts each call's
/// texts by length before batching, so a wider slice pads less: 64 takes about 0.7 s with
/// all-MiniLM-L6-v2 on 2 cores, at 3 % fewer texts a second than 256 (96 against 99 on
/// RFC 9110's 778 chunks, release build).
const EMBED_SLICE: usize = 64;

/// How an ingest re-reads and reports: its flags, and an observer of its progress.
#[derive(Debug, Clone, Default)]
pub struct Report<'a> {
    /// Re-index files whose content has not changed.
    pub force: bool,
    /// Draw strata's progress bar on standard error.
    pub progress: bool,
    /// Told each step of the progress as well.
    pub observer: Option<&'a Observer>,
    /// Only files whose real path lies under these folders, each input one file
    /// ([`crate::IngestOptions::within`]).
    pub within: Option<Arc<Roots>>,
    /// Set, no further file is taken ([`crate::IngestOptions::stop`]).
    pub stop: Option<&'a AtomicBool>,
}

/// Runs an ingest of `inputs` into `location`, re-reading and reporting as `report` says;
/// `on_commit` is called after each commit (a server publishes the commit to its readers).
/// [`crate::Engine::ingest_with`] calls it, which every front-end goes through.
pub fn run(
    config: &Config,
    location: &Location,
    inputs: &[String],
    report: &Report<'_>,
    embedder: Option<&dyn Embedder>,
    on_commit: &dyn Fn(),
) -> Result<Summary> {
    let (force, started) = (report.force, Instant::now());
    refuse_without_vectors(location, embedder)?;
    let ocr_cache = Arc::new(OcrCache::new(location));
    let driver = Driver::new(config, pipeline(config, report, &ocr_cache)?, embedder)?
        .with_embed_slice(EMBED_SLICE)
        .with_stop(report.stop);
    let chosen = driver.contextualizer();
    let store = open_for_ingest(config, location, driver.pipeline())?;
    let stored = store.documents()?;
    let known: HashMap<DocId, String> =
        stored.iter().map(|d| (d.id.clone(), d.content_hash.clone())).collect();
    // Confined to roots, each input is a file its caller admitted: a folder or a pattern in
    // its place now is not expanded, and the open refuses it.
    let (files, outcomes) = match report.within {
        Some(_) => (inputs.iter().map(PathBuf::from).collect(), Vec::new()),
        None => collect(inputs),
    };
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 8);
    // A language model's calls wait on the network: more documents in flight keep the
    // shared limiter's slots busy (small documents have few chunks to fan out).
    let workers =
        if chosen.llm().is_some() { config.context.llm.concurrency.clamp(cores, 16) } else { cores };
    // The workers look up cached contexts through a reader of the last commit.
    let reader = if chosen.llm().is_some() { Some(location.open()?) } else { None };
    let mut writer = Writer {
        summary: Summary::new(files.len() + outcomes.len(), outcomes.len(), embedder, chosen),
        outcomes,
        // Which source path owns each id, committed or written in this run: a second path
        // with the same id is refused rather than allowed to replace the first.
        owners: stored.into_iter().map(|d| (d.id, d.path)).collect(),
        store,
        ocr_cache: &ocr_cache,
        driver: &driver,
        queue: Vec::new(),
        queued_chunks: 0,
        progress: Progress::new(report.progress, files.len(), report.observer),
        commit_every: location.commit_every(config),
        written: 0,
        since_commit: 0,
        on_commit,
    };
    let (tx, rx) = mpsc::sync_channel::<Work>(workers * 2);
    let next = AtomicUsize::new(0);
    let work =
        Workers { files: &files, next: &next, driver: &driver, known: &known, force, stop: report.stop };
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (work, reader) = (&work, reader.as_deref());
            scope.spawn(move || work.run(reader, tx));
        }
        drop(tx);
        rx.into_iter().try_for_each(|work| writer.take(work))
    })?;
    for path in files.get(next.load(Ordering::Relaxed)..).unwrap_or_default() {
        writer.fail(
            path,
            "not read: the ingest was stopped before this file (a server shutting down, an interrupt); ingest it again"
                .into(),
        );
    }
    let mut summary = writer.finish()?;
    summary.ocr = ocr_cache.tally();
    if let Some(llm) = chosen.llm() {
        summary.contexts.finish(llm);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The stages from read to enrich of `config`: PDF pages OCR'd through `ocr_cache`, files
/// confined to the roots the report names.
fn pipeline(config: &Config, report: &Report<'_>, ocr_cache: &Arc<OcrCache>) -> Result<Pipeline> {
    let pipeline = Pipeline::new(config).context("loading the tokenizer")?;
    let pipeline = match pipeline.ocrs() {
        true => pipeline.with_ocr_cache(ocr_cache.clone()),
        false => pipeline,
    };
    Ok(match &report.within {
        Some(roots) => pipeline.with_roots(roots.clone()),
        None => pipeline,
    })
}

/// The store an ingest writes, created with the settings of `config` when there is none.
/// An index that holds vectors refuses an ingest without the embedder: dense search would
/// never find the documents it adds.
fn refuse_without_vectors(location: &Location, embedder: Option<&dyn Embedder>) -> Result<()> {
    match (location.manifest()?.and_then(|m| m.dense), embedder) {
        (Some(dense), None) => Err(Error::user(format!(
            "index {} holds vectors of {}; an ingest with the dense leg off ([dense] enabled = false, \
             STRATA_DENSE_ENABLED=false) would add documents that dense search never finds: turn it on, \
             or ingest into a new --index folder",
            location.describe(),
            dense.model
        ))),
        _ => Ok(()),
    }
}

pub(crate) fn open_for_ingest(
    config: &Config,
    location: &Location,
    pipeline: &Pipeline,
) -> Result<Box<dyn StoreWrite>> {
    let wanted = Manifest::new(pipeline.tokenizer().id(), config.chunk.max_tokens, config.chunk.overlap);
    if let Some(index) = location.dir() {
        std::fs::create_dir_all(index)
            .map_err(|e| Error::io(format!("creating index folder {}", index.display()), e))?;
    }
    location.open_or_create(wanted, config.dense.ann_threshold)
}

impl Summary {
    fn new(files: usize, failed: usize, embedder: Option<&dyn Embedder>, chosen: &Chosen) -> Summary {
        Summary {
            files,
            ingested: 0,
            unchanged: 0,
            failed,
            chunks: 0,
            model: embedder.map(|e| e.info().model_id.clone()),
            embedded: 0,
            reused: 0,
            sections_embedded: 0,
            embed_seconds: 0.0,
            truncated: 0,
            context: chosen.get().map(|c| c.id().to_string()),
            contexts: ContextTally::default(),
            ocr: OcrTally::default(),
            seconds: 0.0,
            outcomes: Vec::new(),
        }
    }
}

/// What the worker threads share: they take the next file, read, chunk and situate it.
struct Workers<'a> {
    files: &'a [PathBuf],
    next: &'a AtomicUsize,
    driver: &'a Driver<'a>,
    known: &'a HashMap<DocId, String>,
    force: bool,
    stop: Option<&'a AtomicBool>,
}

impl Workers<'_> {
    /// Processes files until there are none left or the writer is gone.
    fn run(&self, reader: Option<&dyn StoreRead>, tx: mpsc::SyncSender<Work>) {
        loop {
            // Checked before a file is taken: every file below `next` was taken.
            if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                break;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = self.files.get(i) else { break };
            if tx.send(self.process(path, reader)).is_err() {
                break;
            }
        }
    }

    fn process(&self, path: &Path, reader: Option<&dyn StoreRead>) -> Work {
        let (source, bytes) = match self.driver.pipeline().load(path) {
            Ok(loaded) => loaded,
            Err(e) => return Work::Failed(path.to_path_buf(), e.to_string()),
        };
        let id = DocId::from_source(&source.path);
        if !self.force && self.known.get(&id) == Some(&source.content_hash) {
            return Work::Unchanged(path.to_path_buf(), id);
        }
        let prepared = match reader {
            Some(store) => self.driver.prepare(source, &bytes, None, &StoreCache(store)),
            None => self.driver.prepare(source, &bytes, None, &context::NoCache),
        };
        match prepared {
            Ok(prepared) => Work::Done(path.to_path_buf(), Box::new(prepared)),
            Err(e) => Work::Failed(path.to_path_buf(), e.to_string()),
        }
    }
}

/// The writing thread: owns the store, records each processed document, commits.
struct Writer<'a> {
    summary: Summary,
    outcomes: Vec<FileOutcome>,
    owners: HashMap<DocId, String>,
    store: Box<dyn StoreWrite>,
    /// Pages OCR'd in this ingest, staged with each commit.
    ocr_cache: &'a OcrCache,
    driver: &'a Driver<'a>,
    /// Documents waiting to be embedded together.
    queue: Vec<(PathBuf, Box<Prepared>)>,
    queued_chunks: usize,
    progress: Progress<'a>,
    commit_every: usize,
    written: usize,
    since_commit: usize,
    on_commit: &'a dyn Fn(),
}

impl Writer<'_> {
    fn take(&mut self, work: Work) -> Result<()> {
        match work {
            Work::Done(path, prepared) => self.enqueue(path, prepared)?,
            Work::Unchanged(path, id) => {
                self.summary.unchanged += 1;
                self.outcomes.push(FileOutcome {
                    path: path.display().to_string(),
                    status: "unchanged",
                    doc_id: Some(id.to_string()),
                    chunks: 0,
                    messages: vec![],
                });
            }
            Work::Failed(path, msg) => self.fail(&path, msg),
        }
        self.progress.inc();
        Ok(())
    }

    fn fail(&mut self, path: &Path, msg: String) {
        self.summary.failed += 1;
        self.outcomes.push(failed(&path.display().to_string(), msg));
    }

    /// Queues a processed document for embedding (or records it at once without the dense
    /// leg); embeds and records the queue once it holds [`EMBED_QUEUE`] chunks.
    fn enqueue(&mut self, path: PathBuf, prepared: Box<Prepared>) -> Result<()> {
        let id = &prepared.ingested.document.id;
        let source = &prepared.ingested.document.source.path;
        let queued_owner = self
            .queue
            .iter()
            .map(|(_, q)| &q.ingested)
            .find(|q| q.document.id == *id)
            .map(|q| &q.document.source.path);
        if let Some(owner) = self.owners.get(id).or(queued_owner).filter(|o| *o != source) {
            let msg = format!(
                "{}: its document id {id} is already used by {owner}; rename one of the files",
                path.display()
            );
            self.fail(&path, msg);
            return Ok(());
        }
        if self.driver.embedder().is_none() {
            return self.record(&path, prepared, None);
        }
        self.queued_chunks += prepared.ingested.chunks.len();
        self.queue.push((path, prepared));
        if self.queued_chunks >= EMBED_QUEUE {
            self.flush()?;
        }
        Ok(())
    }

    /// Embeds the chunks of every queued document together, then records each.
    fn flush(&mut self) -> Result<()> {
        let queue = std::mem::take(&mut self.queue);
        self.queued_chunks = 0;
        let Some(embedder) = self.driver.embedder() else { return Ok(()) };
        if queue.is_empty() {
            return Ok(());
        }
        let what = match queue.as_slice() {
            [(path, ..)] => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            many => format!("{} documents", many.len()),
        };
        let (bar, embedded_before, started) = (&self.progress, self.summary.embedded, Instant::now());
        let mut progress = |done: usize, total: usize| {
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            // Rate first: a narrow terminal cuts the end of the message, not the numbers.
            bar.message(format!(
                "embedding {rate:.0} chunks/s · {done}/{total} of {what} · {} in all",
                embedded_before + done
            ));
        };
        let docs: Vec<&Ingested> = queue.iter().map(|(_, prepared)| &prepared.ingested).collect();
        let embedded = {
            let cache = self.driver.cache(Vectors::Store, self.store.as_ref());
            self.driver.embed(embedder, cache.as_ref(), &docs, &mut progress)
        };
        for ((path, prepared), embedded) in queue.into_iter().zip(embedded) {
            self.record(&path, prepared, Some(embedded))?;
        }
        Ok(())
    }

    /// Runs the record stage on one document, its chunks embedded beforehand when the dense
    /// leg is on, and commits every `commit_every` documents.
    fn record(
        &mut self,
        path: &Path,
        prepared: Box<Prepared>,
        embedded: Option<Result<Embedded>>,
    ) -> Result<()> {
        self.progress.message(path.display().to_string());
        let Prepared { ingested: mut ing, situation } = *prepared;
        let id = ing.document.id.clone();
        let source = ing.document.source.path.clone();
        let tally = &mut self.summary.contexts;
        let recorded = self.driver.record(
            &mut ing,
            situation,
            embedded,
            ContextSink::Store,
            Vectors::Store,
            tally,
            self.store.as_mut(),
        );
        let recorded = match recorded {
            Ok(recorded) => recorded,
            Err(failure) => {
                self.fail(path, format!("{}: {failure}", path.display()));
                return Ok(());
            }
        };
        let summary = &mut self.summary;
        summary.embedded += recorded.embedded;
        summary.reused += recorded.reused;
        summary.sections_embedded += recorded.sections_embedded;
        summary.truncated += recorded.truncated;
        summary.embed_seconds += recorded.embed_seconds;
        summary.ingested += 1;
        summary.chunks += ing.chunks.len();
        let mut messages = ing.document.warnings.clone();
        messages.extend(recorded.messages);
        self.outcomes.push(FileOutcome {
            path: path.display().to_string(),
            status: "ingested",
            doc_id: Some(id.to_string()),
            chunks: ing.chunks.len(),
            messages,
        });
        self.owners.insert(id, source);
        self.written += 1;
        self.since_commit += 1;
        // The pages OCR'd so far go to the store's writer with each document, not only at a
        // commit: a run of long scans between two commits then never holds their glyphs.
        self.ocr_cache.stage(self.store.as_mut())?;
        if self.since_commit >= self.commit_every {
            self.commit()?;
            (self.on_commit)();
            self.since_commit = 0;
        }
        Ok(())
    }

    /// Commits what is staged, with the pages OCR'd and not yet staged.
    fn commit(&mut self) -> Result<()> {
        self.ocr_cache.stage(self.store.as_mut())?;
        self.store.commit()
    }

    /// The last commit, and the summary.
    fn finish(mut self) -> Result<Summary> {
        self.flush()?;
        if self.written > 0 {
            self.commit()?;
            drop(self.store);
            (self.on_commit)();
        }
        self.progress.finish();
        self.summary.outcomes = self.outcomes;
        Ok(self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_input_error_names_the_path() {
        let (files, problems) =
            collect(&["/no/such/strata-input.md".to_string(), "/no/such/*.md".to_string()]);
        assert!(files.is_empty());
        let messages: Vec<&str> = problems.iter().map(|p| p.messages[0].as_str()).collect();
        assert_eq!(
            messages,
            [
                "/no/such/strata-input.md: no such file or folder",
                "/no/such/*.md: the pattern matches no file"
            ]
        );
    }

    /// `ln -s /dev/zero z.md; strata ingest z.md` read without end; a FIFO blocked forever.
    /// Both are refused as failed files, and the good file beside them is ingested.
    #[cfg(unix)]
    #[test]
    fn device_and_fifo_fail_alone_while_the_other_files_ingest() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.md");
        std::fs::write(&good, "# Good\n\nA plain paragraph of text.\n").unwrap();
        let zero = dir.path().join("z.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = dir.path().join("pipe.txt");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let mut config = Config::default();
        config.dense.enabled = false;
        let location = Location::of(&config, &dir.path().join("index")).unwrap();
        let inputs: Vec<String> = [&good, &zero, &fifo].iter().map(|p| p.display().to_string()).collect();
        let summary = run(&config, &location, &inputs, &Report::default(), None, &|| {}).unwrap();
        assert_eq!((summary.ingested, summary.failed), (1, 2), "{:?}", summary.outcomes);
        for name in ["z.md", "pipe.txt"] {
            let outcome = summary.outcomes.iter().find(|o| o.path.ends_with(name)).unwrap();
            assert_eq!(outcome.status, "failed");
            assert!(outcome.messages[0].contains(name), "{:?}", outcome.messages);
            assert!(outcome.messages[0].contains("not a regular file"), "{:?}", outcome.messages);
        }
    }
}
