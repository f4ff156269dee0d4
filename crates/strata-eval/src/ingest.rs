//! Ingesting a data set's documents once per ingest configuration (chunking × context) into
//! an embedded store, keeping what judging needs: each document's text, tree and pages, and
//! how its input text maps onto strata's text.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use strata_core::{Config, DocId, Document, Error, Result, Source, Span};
use strata_engine::driver::{Driver, Prepared};
use strata_engine::embed::Vectors;
use strata_engine::record::{ContextSink, ContextTally};
use strata_engine::Location;
use strata_index::{Manifest, StoreWrite};
use strata_ingest::context::{self, ContextCache};
use strata_ingest::pipeline::{Cut, Pipeline};
use strata_model::Embedder;

use crate::align::{Alignment, CharIndex};
use crate::dataset::{Content, Dataset, DocInput};
use crate::memory;
use crate::vector_cache::FolderCache;

/// How documents are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Chunking {
    /// The data set's own chunks (for pre-split sets).
    Given,
    /// strata's chunker at the size that fits the embedding model (`[chunk] max_tokens`
    /// lowered to the window, as `strata ingest` does).
    Auto,
    /// strata's chunker at this many tokens (of the embedding model's tokenizer when there
    /// is one); chunks longer than the model's window are truncated by it, and counted.
    Tokens(usize),
}

impl Chunking {
    /// Parses `given`, `auto` or a token count.
    pub fn parse(s: &str) -> Result<Chunking> {
        match s.trim() {
            "given" => Ok(Chunking::Given),
            "auto" => Ok(Chunking::Auto),
            n => match n.parse::<usize>() {
                Ok(n) if (16..=8192).contains(&n) => Ok(Chunking::Tokens(n)),
                _ => Err(Error::user(format!(
                    "chunk size {n:?} is not given, auto or a token count from 16 to 8192"
                ))),
            },
        }
    }

    /// Label in reports.
    pub fn label(&self) -> String {
        match self {
            Chunking::Given => "given".into(),
            Chunking::Auto => "auto".into(),
            Chunking::Tokens(n) => n.to_string(),
        }
    }
}

/// Which context is prepended to what the legs index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextMode {
    /// None: chunks are indexed as they are.
    None,
    /// `strata_ingest::context::structural`: title, heading path, section number, lead,
    /// defined terms.
    Structural,
    /// Written by the Anthropic Messages API (`[context.llm]`).
    Anthropic,
    /// Written by an OpenAI-compatible chat API (`[context.llm]`).
    OpenAi,
}

impl ContextMode {
    /// Parses `none`/`off`, `structural`/`on`, `anthropic` or `openai`.
    pub fn parse(s: &str) -> Result<ContextMode> {
        match s.trim() {
            "none" | "off" => Ok(ContextMode::None),
            "structural" | "on" => Ok(ContextMode::Structural),
            "anthropic" => Ok(ContextMode::Anthropic),
            "openai" => Ok(ContextMode::OpenAi),
            other => {
                Err(Error::user(format!("context {other:?} is not none, structural, anthropic or openai")))
            }
        }
    }

    /// Label in reports (also the `[context] kind` it stands for).
    pub fn label(&self) -> &'static str {
        match self {
            ContextMode::None => "none",
            ContextMode::Structural => "structural",
            ContextMode::Anthropic => "anthropic",
            ContextMode::OpenAi => "openai",
        }
    }
}

/// File, beside the ingests' indexes, where contexts a language model wrote are kept
/// between runs: each ingest's index is made anew, its contexts are not. One JSON object
/// `{"key", "context"}` per line, appended; a line cut by a crash is skipped when read.
pub const CONTEXT_CACHE_FILE: &str = "contexts.jsonl";

/// The contexts of [`CONTEXT_CACHE_FILE`], by cache key, appended to as they come.
struct FileCache {
    path: std::path::PathBuf,
    entries: HashMap<String, String>,
}

impl FileCache {
    fn open(path: std::path::PathBuf) -> Result<FileCache> {
        let mut entries = HashMap::new();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                for line in text.lines() {
                    #[derive(serde::Deserialize)]
                    struct Entry {
                        key: String,
                        context: String,
                    }
                    if let Ok(e) = serde_json::from_str::<Entry>(line) {
                        entries.insert(e.key, e.context);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        }
        Ok(FileCache { path, entries })
    }

    fn append(&mut self, new: &[(String, String)]) -> Result<()> {
        use std::io::Write;
        if new.is_empty() {
            return Ok(());
        }
        let mut out = String::new();
        for (key, context) in new {
            out.push_str(&serde_json::json!({"key": key, "context": context}).to_string());
            out.push('\n');
            self.entries.insert(key.clone(), context.clone());
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::io(format!("opening {}", self.path.display()), e))?;
        file.write_all(out.as_bytes()).map_err(|e| Error::io(format!("writing {}", self.path.display()), e))
    }
}

impl context::ContextCache for FileCache {
    fn get(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        Ok(keys.iter().filter_map(|k| Some((k.clone(), self.entries.get(k)?.clone()))).collect())
    }
}

/// How an ingest's chunks got their contexts from a language model (`cached`: from the
/// cache file).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContextStats {
    /// The contextualizer (`anthropic:claude-haiku-4-5@1`).
    pub contextualizer: String,
    /// What it did, as `strata ingest` counts it.
    #[serde(flatten)]
    pub tally: ContextTally,
}

/// One ingest of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct IngestConfig {
    /// How documents are cut.
    pub chunking: Chunking,
    /// Context prepended for indexing.
    pub context: ContextMode,
}

impl IngestConfig {
    /// Label in reports and the index folder's name (`auto+structural`).
    pub fn label(&self) -> String {
        match self.context {
            ContextMode::None => self.chunking.label(),
            c => format!("{}+{}", self.chunking.label(), c.label()),
        }
    }
}

/// What an ingest cost and produced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestStats {
    /// Wall-clock seconds, embedding included.
    pub seconds: f64,
    /// Of which embedding.
    pub embed_seconds: f64,
    /// Documents indexed.
    pub documents: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Chunks the model embedded.
    pub embedded: usize,
    /// Chunks whose vector came from the vector cache (`--vector-cache`) or repeats another
    /// chunk's text.
    pub reused: usize,
    /// Mean tokens per chunk (the chunk tokenizer's).
    pub mean_chunk_tokens: f64,
    /// The chunk size used (`chunk.max_tokens`), or 0 for given chunks.
    pub max_tokens: usize,
    /// Chunks longer than the embedding model's window (their tails are not embedded).
    pub truncated: usize,
    /// Size of the index folder.
    pub index_bytes: u64,
    /// Peak resident memory of the process during this ingest, when the OS tells.
    pub peak_rss_bytes: Option<u64>,
    /// Documents that failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Documents whose input text the reader changed, and the share of it kept verbatim
    /// (only documents with span gold or given chunks are aligned).
    pub realigned: Vec<(String, f64)>,
    /// What fitting chunks to the model changed, if anything.
    pub note: Option<String>,
    /// Language-model contexts, when the ingest had them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contexts: Option<ContextStats>,
}

/// A document as judging sees it.
pub struct DocView {
    /// Its id in the index.
    pub id: DocId,
    /// strata's text.
    pub text: String,
    /// Code points of `text`.
    pub chars: CharIndex,
    /// Input text → `text`.
    pub align: Alignment,
    /// The tree.
    pub tree: strata_core::Tree,
    /// Pages.
    pub pages: Vec<strata_core::Page>,
    /// Spans of its chunks, in order.
    pub chunk_spans: Vec<Span>,
}

/// An ingested configuration: the store and the documents by data set name.
pub struct IndexedSet {
    /// The configuration.
    pub config: IngestConfig,
    /// The store.
    pub store: Box<dyn StoreWrite>,
    /// Documents by name.
    pub docs: HashMap<String, DocView>,
    /// Document names by id.
    pub names: HashMap<DocId, String>,
    /// Cost.
    pub stats: IngestStats,
}

/// Ingests `dataset` with `ingest` into a new store at `location` (emptied first; `dir` is
/// its folder, or the folder beside which a PostgreSQL index keeps its context cache).
/// Vectors come from `vectors` when it holds them, and new ones are added to it. `on_doc`
/// is called after each document.
#[allow(clippy::too_many_arguments)]
pub fn ingest(
    dataset: &Dataset,
    ingest: IngestConfig,
    base: &Config,
    embedder: Option<&dyn Embedder>,
    dir: &Path,
    location: &Location,
    mut vectors: Option<&mut FolderCache>,
    on_doc: &mut dyn FnMut(&str),
) -> Result<IndexedSet> {
    let started = Instant::now();
    memory::reset_peak();
    let (config, note) = config_for(base, ingest, embedder)?;
    let driver = Driver::new(&config, Pipeline::new(&config)?, embedder)?.with_section_vectors(true);
    empty_index_dir(dir)?;
    location.destroy()?;
    let manifest = Manifest::new(driver.tokenizer().id(), config.chunk.max_tokens, config.chunk.overlap);
    let mut store = location.open_or_create(manifest, config.dense.ann_threshold)?;
    let mut stats = IngestStats {
        max_tokens: if ingest.chunking == Chunking::Given { 0 } else { config.chunk.max_tokens },
        note,
        ..IngestStats::default()
    };
    let aligned = aligned_documents(dataset);
    let chosen = driver.contextualizer();
    let mut cache = match (chosen.llm(), dir.parent()) {
        (Some(_), Some(parent)) => Some(FileCache::open(parent.join(CONTEXT_CACHE_FILE))?),
        _ => None,
    };
    let mut tally = ContextTally::default();
    let mut docs = HashMap::new();
    let mut names = HashMap::new();
    let mut ids: HashSet<DocId> = HashSet::new();
    let mut tokens = 0u64;
    for (n, input) in dataset.documents.iter().enumerate() {
        // A document that cannot be read is reported and skipped; a failure past reading (a
        // model or the store) stops the run, which would otherwise score a partial index.
        let context_cache: &dyn ContextCache = match &cache {
            Some(cache) => cache,
            None => &context::NoCache,
        };
        let align = aligned.contains(input.name.as_str());
        match prepare(&driver, dataset, input, ingest, align, &mut ids, context_cache) {
            Ok((Prepared { ingested: mut record, situation }, view)) => {
                let mut keep = |new: &[(String, String)]| cache.as_mut().map_or(Ok(()), |c| c.append(new));
                let sink =
                    if chosen.llm().is_some() { ContextSink::Other(&mut keep) } else { ContextSink::Store };
                let lookup = match &vectors {
                    Some(cache) => Vectors::Other(&**cache),
                    None => Vectors::Store,
                };
                let recorded = driver
                    .finish(&mut record, situation, sink, lookup, &mut tally, store.as_mut(), &mut |_, _| {})
                    .map_err(|f| Error::from(f).context(format!("ingesting {}", input.name)))?;
                if let Some(cache) = vectors.as_deref_mut() {
                    cache.append(&record.cached_vectors)?;
                }
                stats.embedded += recorded.embedded;
                stats.reused += recorded.reused;
                stats.truncated += recorded.truncated;
                stats.embed_seconds += recorded.embed_seconds;
                stats.documents += 1;
                stats.chunks += record.chunks.len();
                tokens += record.chunks.iter().map(|c| u64::from(c.tokens)).sum::<u64>();
                if aligned.contains(input.name.as_str()) && !view.align.is_identity() {
                    stats.realigned.push((input.name.clone(), view.align.coverage()));
                }
                names.insert(view.id.clone(), input.name.clone());
                docs.insert(input.name.clone(), view);
            }
            Err(e) => stats.failed.push((input.name.clone(), e.to_string())),
        }
        if (n + 1) % 64 == 0 {
            store.commit()?;
        }
        on_doc(&input.name);
    }
    store.commit()?;
    if let Some(llm) = chosen.llm() {
        use strata_model::context::Contextualizer;
        tally.finish(llm);
        stats.contexts = Some(ContextStats { contextualizer: llm.id().to_string(), tally });
    }
    stats.seconds = started.elapsed().as_secs_f64();
    stats.mean_chunk_tokens = if stats.chunks == 0 { 0.0 } else { tokens as f64 / stats.chunks as f64 };
    stats.index_bytes = location.size_on_disk()?;
    stats.peak_rss_bytes = memory::peak_rss();
    Ok(IndexedSet { config: ingest, store, docs, names, stats })
}

/// Documents whose gold or chunks count positions in their input text.
fn aligned_documents(dataset: &Dataset) -> HashSet<&str> {
    let mut aligned: HashSet<&str> =
        dataset.documents.iter().filter(|d| d.given_chunks.is_some()).map(|d| d.name.as_str()).collect();
    for q in &dataset.queries {
        for g in &q.gold {
            if let crate::dataset::Target::Span { doc, .. } = &g.target {
                aligned.insert(doc);
            }
        }
    }
    aligned
}

/// Where an eval run builds the index of the ingest labelled `label`: the embedded store in
/// `dir`, PostgreSQL (its strata tables are dropped first), or vectors in Milvus, in
/// collections of the ingest's own name (dropped first).
pub fn location(grid: &crate::Grid, label: &str, dir: &Path) -> Location {
    #[cfg(feature = "postgres")]
    if let Some(options) = &grid.postgres {
        return Location::Postgres(options.clone());
    }
    #[cfg(feature = "milvus")]
    if let Some(options) = &grid.milvus {
        // Labels that differ only in punctuation get names of their own.
        let name: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let hash =
            label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        let collection = Some(format!("strata_eval_{name}_{:08x}", hash as u32));
        return Location::Milvus(
            dir.to_path_buf(),
            strata_milvus::MilvusOptions { collection, ..options.clone() },
        );
    }
    let _ = (grid, label);
    Location::Embedded(dir.to_path_buf())
}

/// Empties `dir` for a new index: it must not exist, be empty, or hold a strata index (a
/// folder the user named is never wiped otherwise).
fn empty_index_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        let is_index = dir.join("manifest.json").exists();
        let is_empty = std::fs::read_dir(dir).map(|mut d| d.next().is_none()).unwrap_or(false);
        if !is_index && !is_empty {
            return Err(Error::user(format!(
                "{} exists and is not a strata index; eval writes one index per chunking there and \
                 will not delete other files (choose another --index-dir)",
                dir.display()
            )));
        }
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(format!("emptying {}", dir.display()), e))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))
}

/// The configuration one ingest runs with (its chunking and its context), and what fitting
/// it to the model changed.
fn config_for(
    base: &Config,
    ingest: IngestConfig,
    embedder: Option<&dyn Embedder>,
) -> Result<(Config, Option<String>)> {
    let mut config = base.clone();
    config.context.kind = ingest.context.label().parse()?;
    let mut note = None;
    match ingest.chunking {
        Chunking::Tokens(n) => {
            config.chunk.max_tokens = n;
            config.chunk.overlap = config.chunk.overlap.min(n / 2);
            if let Some(e) = embedder {
                if config.tokenizer.model.is_none() {
                    config.tokenizer.model = e.info().tokenizer.clone();
                }
            }
        }
        Chunking::Auto | Chunking::Given => {
            if let Some(e) = embedder {
                note = strata_embed::choose::fit_chunks(&mut config, e);
            }
        }
    }
    if ingest.chunking == Chunking::Given {
        config.chunk.overlap = 0;
        note = None;
    }
    Ok((config, note))
}

/// Runs one document through the driver's stages from read to context. Once it is read, it
/// takes the data set's title, its id is made unique within the run, its input text is
/// aligned with strata's (for span gold), and it is cut at the data set's spans when the
/// configuration asks for them.
fn prepare(
    driver: &Driver<'_>,
    dataset: &Dataset,
    input: &DocInput,
    ingest: IngestConfig,
    align: bool,
    ids: &mut HashSet<DocId>,
    cache: &dyn ContextCache,
) -> Result<(Prepared, DocView)> {
    let (source, bytes, title) = match &input.content {
        Content::File(path) => {
            let (source, bytes) = driver.pipeline().load(path)?;
            (source, Cow::Owned(bytes), None)
        }
        Content::Text { title, text, format } => {
            let source = Source {
                path: format!("{}/{}", dataset.name, input.name),
                format: *format,
                content_hash: blake3::hash(text.as_bytes()).to_hex().to_string(),
                size: text.len() as u64,
                mtime: None,
            };
            (source, Cow::Borrowed(text.as_bytes()), title.as_ref())
        }
    };
    let mut alignment = None;
    let mut adjust = |document: &mut Document| {
        if let Some(title) = title {
            document.title = title.clone();
        }
        document.id = unique_id(ids, &document.id);
        let align = match align {
            true => Alignment::new(&String::from_utf8_lossy(&bytes), &document.text),
            false => Alignment::unknown(),
        };
        let cut = cut(input, ingest, &align);
        alignment = Some(align);
        cut
    };
    let prepared = driver.prepare(source, &bytes, Some(&mut adjust), cache)?;
    let doc = &prepared.ingested.document;
    let view = DocView {
        id: doc.id.clone(),
        chars: CharIndex::new(&doc.text),
        text: doc.text.clone(),
        align: alignment.unwrap_or_else(Alignment::unknown),
        tree: doc.tree.clone(),
        pages: doc.pages.clone(),
        chunk_spans: prepared.ingested.chunks.iter().map(|c| c.span).collect(),
    };
    Ok((prepared, view))
}

/// `id`, or `id-2`, `id-3`, … when the run has it already; taken.
fn unique_id(ids: &mut HashSet<DocId>, id: &DocId) -> DocId {
    let mut unique = id.clone();
    let mut n = 2;
    while !ids.insert(unique.clone()) {
        unique = DocId(format!("{}-{n}", id.as_str()));
        n += 1;
    }
    unique
}

/// How the chunk stage cuts `input`: at its given spans (mapped into strata's text by
/// `align`) when the configuration asks for them, by strata's chunker otherwise.
fn cut(input: &DocInput, ingest: IngestConfig, align: &Alignment) -> Result<Cut> {
    match (ingest.chunking, &input.given_chunks) {
        (Chunking::Given, Some(given)) => Ok(Cut::Spans(
            given
                .iter()
                .map(|s| Span::new(align.map(s.start), align.map(s.end)))
                .filter(|s| !s.is_empty())
                .collect(),
        )),
        (Chunking::Given, None) => Err(Error::user(format!(
            "document {} has no given chunks; use --chunking auto or a token count",
            input.name
        ))),
        _ => Ok(Cut::Chunker),
    }
}

impl IndexedSet {
    /// Whether the store holds vectors (the dense leg can run).
    pub fn has_vectors(&self) -> bool {
        self.store.manifest().dense.is_some()
    }
}
