//! The ingest loop of `strata ingest` and of the server's jobs: collect files, run the
//! pipeline on both cores, write and commit.
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
//! With the dense leg on, the main thread also embeds each document's chunks before writing
//! them (the embedder uses every core itself), in slices so the progress bar moves inside
//! long documents and reports the embedding throughput.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use strata_core::{ChunkVectors, Config, DocId, Format};
use strata_embed::Embedder;
use strata_index::{Manifest, StoreRead, StoreWrite};
use strata_ingest::context::{self, ContextCache, Usage};
use strata_ingest::pipeline::Pipeline;
use strata_providers::choose::Chosen;

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
    /// Chunks embedded.
    pub embedded: usize,
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
    /// Seconds.
    pub seconds: f64,
    /// Per file.
    pub outcomes: Vec<FileOutcome>,
}

/// Contexts of an ingest, when a language model writes them.
#[derive(Debug, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ContextTally {
    /// Chunks whose context came from the cache.
    pub cached: usize,
    /// Chunks the model wrote a context for.
    pub written: usize,
    /// Chunks that fell back to their structural context.
    pub fallbacks: usize,
    /// Chunks of documents cut to fit the model's window.
    pub truncated: usize,
    /// What the provider reported.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub usage: Usage,
    /// What that cost in USD, when the model's price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The refusal that stopped the model's calls (a bad key, model or URL), when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
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

fn failed(path: &str, msg: String) -> FileOutcome {
    FileOutcome { path: path.to_string(), status: "failed", doc_id: None, chunks: 0, messages: vec![msg] }
}

enum Work {
    /// Read, chunked and situated (or why its contexts failed).
    Done(PathBuf, Box<strata_ingest::pipeline::Ingested>, strata_core::Result<context::Situation>),
    Unchanged(PathBuf, DocId),
    Failed(PathBuf, String),
}

/// Runs an ingest; `on_commit` is called after each commit (a server publishes the commit to
/// its readers).
pub fn run(
    config: &Config,
    location: &Location,
    inputs: &[String],
    force: bool,
    progress: bool,
    embedder: Option<&dyn Embedder>,
    on_commit: &dyn Fn(),
) -> Result<Summary> {
    let started = Instant::now();
    let pipeline = Pipeline::new(config).context("loading the tokenizer")?;
    let chosen = strata_providers::choose::contextualizer(&config.context, pipeline.tokenizer().clone())?;
    let wanted = Manifest::new(pipeline.tokenizer().id(), config.chunk.max_tokens, config.chunk.overlap);
    if let Some(index) = location.dir() {
        std::fs::create_dir_all(index)
            .with_context(|| format!("creating index folder {}", index.display()))?;
    }
    let mut store = location.open_or_create(wanted, config.dense.ann_threshold)?;
    let commit_every = location.commit_every(config);
    let stored = store.documents()?;
    let known: HashMap<DocId, String> =
        stored.iter().map(|d| (d.id.clone(), d.content_hash.clone())).collect();
    // Which source path owns each id, committed or written in this run: a second path with
    // the same id is refused rather than allowed to replace the first.
    let mut owners: HashMap<DocId, String> = stored.into_iter().map(|d| (d.id, d.path)).collect();

    let (files, mut outcomes) = collect(inputs);
    let bar = if progress {
        let bar = ProgressBar::new(files.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}")
                .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let next = AtomicUsize::new(0);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 8);
    // A language model's calls wait on the network: more documents in flight keep the
    // shared limiter's slots busy (small documents have few chunks to fan out).
    let workers =
        if chosen.llm().is_some() { config.context.llm.concurrency.clamp(cores, 16) } else { cores };
    // The workers look up cached contexts through a reader of the last commit.
    let reader = if chosen.llm().is_some() { Some(location.open()?) } else { None };
    let (tx, rx) = mpsc::sync_channel::<Work>(workers * 2);
    let mut written = 0usize;
    let mut since_commit = 0usize;
    let mut summary = Summary {
        files: files.len() + outcomes.len(),
        ingested: 0,
        unchanged: 0,
        failed: outcomes.len(),
        chunks: 0,
        model: embedder.map(|e| e.info().model_id.clone()),
        embedded: 0,
        sections_embedded: 0,
        embed_seconds: 0.0,
        truncated: 0,
        context: chosen.get().map(|c| c.id().to_string()),
        contexts: ContextTally::default(),
        seconds: 0.0,
        outcomes: Vec::new(),
    };
    let write_result: Result<()> = std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (files, next, pipeline, known, chosen, reader) =
                (&files, &next, &pipeline, &known, &chosen, &reader);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let work = match pipeline.load(path) {
                    Err(e) => Work::Failed(path.clone(), e.to_string()),
                    Ok((source, bytes)) => {
                        let id = DocId::from_source(&source.path);
                        if !force && known.get(&id) == Some(&source.content_hash) {
                            Work::Unchanged(path.clone(), id)
                        } else {
                            match pipeline.read_bytes(source, &bytes).and_then(|d| pipeline.try_process(d)) {
                                Ok(mut ing) => {
                                    let situation = situate(chosen, reader.as_deref(), &mut ing);
                                    Work::Done(path.clone(), Box::new(ing), situation)
                                }
                                Err(e) => Work::Failed(path.clone(), e.to_string()),
                            }
                        }
                    }
                };
                if tx.send(work).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for work in rx {
            match work {
                Work::Done(path, mut ing, situation) => {
                    bar.set_message(path.display().to_string());
                    let id = ing.document.id.clone();
                    let source = ing.document.source.path.clone();
                    if let Some(owner) = owners.get(&id).filter(|o| **o != source) {
                        summary.failed += 1;
                        let msg = format!(
                            "{}: its document id {id} is already used by {owner}; rename one of the files",
                            path.display()
                        );
                        outcomes.push(failed(&path.display().to_string(), msg));
                        bar.inc(1);
                        continue;
                    }
                    let mut messages = ing.document.warnings.clone();
                    if let Err(e) = situation.and_then(|s| {
                        record(&s, &chosen, store.as_mut(), &mut summary.contexts, &mut messages)
                    }) {
                        summary.failed += 1;
                        let msg = format!("{}: writing its chunks' contexts failed: {e}", path.display());
                        outcomes.push(failed(&path.display().to_string(), msg));
                        bar.inc(1);
                        continue;
                    }
                    if let Some(embedder) = embedder {
                        let started = Instant::now();
                        match embed(embedder, pipeline.tokenizer().as_ref(), &ing, &bar, &summary) {
                            Ok((vectors, truncated)) => {
                                summary.embedded += vectors.len();
                                summary.truncated += truncated;
                                if truncated > 0 {
                                    messages.push(format!(
                                        "{truncated} chunks are longer than {}'s {}-token window; their tails \
                                         are invisible to the dense leg (lower [chunk] max_tokens)",
                                        embedder.info().model_id,
                                        embedder.info().max_seq_len
                                    ));
                                }
                                ing.vectors = Some(vectors);
                                let sections = if config.dense.sections {
                                    strata_embed::sections::embed_sections(embedder, &ing.document)
                                } else {
                                    Ok(None)
                                };
                                match sections {
                                    Ok(sections) => {
                                        summary.sections_embedded +=
                                            sections.as_ref().map_or(0, |s| s.nodes.len());
                                        ing.section_vectors = sections;
                                    }
                                    Err(e) => {
                                        summary.failed += 1;
                                        let msg =
                                            format!("{}: embedding its sections failed: {e}", path.display());
                                        outcomes.push(failed(&path.display().to_string(), msg));
                                        bar.inc(1);
                                        continue;
                                    }
                                }
                            }
                            Err(e) => {
                                summary.failed += 1;
                                let msg = format!("{}: embedding failed: {e}", path.display());
                                outcomes.push(failed(&path.display().to_string(), msg));
                                bar.inc(1);
                                continue;
                            }
                        }
                        summary.embed_seconds += started.elapsed().as_secs_f64();
                    }
                    if let Err(e) = store.put(&ing) {
                        summary.failed += 1;
                        outcomes
                            .push(failed(&path.display().to_string(), format!("{}: {e}", path.display())));
                        bar.inc(1);
                        continue;
                    }
                    owners.insert(id, source);
                    written += 1;
                    since_commit += 1;
                    summary.ingested += 1;
                    summary.chunks += ing.chunks.len();
                    outcomes.push(FileOutcome {
                        path: path.display().to_string(),
                        status: "ingested",
                        doc_id: Some(ing.document.id.to_string()),
                        chunks: ing.chunks.len(),
                        messages,
                    });
                    if since_commit >= commit_every {
                        store.commit()?;
                        on_commit();
                        since_commit = 0;
                    }
                }
                Work::Unchanged(path, id) => {
                    summary.unchanged += 1;
                    outcomes.push(FileOutcome {
                        path: path.display().to_string(),
                        status: "unchanged",
                        doc_id: Some(id.to_string()),
                        chunks: 0,
                        messages: vec![],
                    });
                }
                Work::Failed(path, msg) => {
                    summary.failed += 1;
                    outcomes.push(failed(&path.display().to_string(), msg));
                }
            }
            bar.inc(1);
        }
        Ok(())
    });
    write_result?;
    if written > 0 {
        store.commit()?;
        drop(store);
        on_commit();
    }
    bar.finish_and_clear();
    if let Some(llm) = chosen.llm() {
        summary.contexts.usage = llm.usage();
        summary.contexts.stopped = llm.stopped().map(str::to_string);
        summary.contexts.cost_usd =
            llm.client().price().map(|p| strata_providers::cost::cost(&summary.contexts.usage, &p));
    }
    summary.seconds = started.elapsed().as_secs_f64();
    summary.outcomes = outcomes;
    Ok(summary)
}

/// Sets the contexts of `ing`'s chunks (in a worker), taking cached ones from `reader`.
fn situate(
    chosen: &Chosen,
    reader: Option<&dyn StoreRead>,
    ing: &mut strata_ingest::pipeline::Ingested,
) -> strata_core::Result<context::Situation> {
    let Some(contextualizer) = chosen.get() else { return Ok(context::Situation::default()) };
    match reader {
        Some(store) => context::situate(contextualizer, &StoreCache(store), &ing.document, &mut ing.chunks),
        None => context::situate(contextualizer, &context::NoCache, &ing.document, &mut ing.chunks),
    }
}

/// Counts what `situate` did, tells the file's outcome, and stages new contexts for the
/// cache (on the writing thread).
fn record(
    situation: &context::Situation,
    chosen: &Chosen,
    store: &mut dyn StoreWrite,
    tally: &mut ContextTally,
    messages: &mut Vec<String>,
) -> strata_core::Result<()> {
    let Some(contextualizer) = chosen.get() else { return Ok(()) };
    tally.cached += situation.cached;
    tally.written += situation.written;
    tally.fallbacks += situation.fallbacks;
    tally.truncated += situation.truncated;
    if situation.fallbacks > 0 {
        messages.push(format!(
            "{} chunks got their structural context: {} did not answer for them (see the warnings above)",
            situation.fallbacks,
            contextualizer.id()
        ));
    }
    if situation.truncated > 0 {
        messages.push(format!(
            "longer than the model's window: it was shown its beginning and end only ({} chunks flagged)",
            situation.truncated
        ));
    }
    if !situation.to_cache.is_empty() {
        store.cache_contexts(&situation.to_cache)?;
    }
    Ok(())
}

/// Chunks embedded per call, so that progress shows inside long documents.
const EMBED_SLICE: usize = 64;

/// Embeds the chunks of `ing` (`context::embedded_text`: the context cut to the room the
/// chunk leaves in the model's window, or the overlap, then the chunk's own text); returns
/// the vectors and how many chunks the model truncated.
fn embed(
    embedder: &dyn Embedder,
    tokenizer: &dyn strata_ingest::tokenize::Tokenizer,
    ing: &strata_ingest::pipeline::Ingested,
    bar: &ProgressBar,
    summary: &Summary,
) -> Result<(ChunkVectors, usize)> {
    let texts: Vec<std::borrow::Cow<'_, str>> = ing
        .chunks
        .iter()
        .map(|c| context::embedded_text(c, &ing.document.text, tokenizer, embedder.info().max_seq_len))
        .collect();
    let info = embedder.info();
    let mut values = Vec::with_capacity(texts.len() * info.dim);
    let mut truncated = 0;
    let started = Instant::now();
    for (i, slice) in texts.chunks(EMBED_SLICE).enumerate() {
        let refs: Vec<&str> = slice.iter().map(|t| t.as_ref()).collect();
        let vectors = embedder.embed_passages(&refs)?;
        truncated += vectors.truncated().len();
        values.extend_from_slice(vectors.as_slice());
        let done = summary.embedded + (i * EMBED_SLICE + slice.len());
        let rate = (i * EMBED_SLICE + slice.len()) as f64 / started.elapsed().as_secs_f64().max(1e-9);
        // Rate first: a narrow terminal cuts the end of the message, not the numbers.
        let name = Path::new(&ing.document.source.path).file_name().map(|n| n.to_string_lossy().into_owned());
        bar.set_message(format!(
            "embedding {rate:.0} chunks/s · {}/{} of {} · {done} in all",
            i * EMBED_SLICE + slice.len(),
            texts.len(),
            name.unwrap_or_default()
        ));
    }
    Ok((ChunkVectors { model: info.model_id.clone(), dim: info.dim, values }, truncated))
}
