//! Ingesting a data set's documents once per ingest configuration (chunking × context) into
//! an embedded store, keeping what judging needs: each document's text, tree and pages, and
//! how its input text maps onto strata's text.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use strata_core::{ChunkVectors, Config, DocId, Document, Error, Result, Source, Span};
use strata_embed::Embedder;
use strata_index::{EmbeddedStore, Manifest, StoreWrite};
use strata_ingest::context;
use strata_ingest::pipeline::{Ingested, Pipeline};
use strata_milvus::{MilvusOptions, MilvusStore};
use strata_postgres::{PgOptions, PgStore};

use crate::align::{Alignment, CharIndex};
use crate::dataset::{Content, Dataset, DocInput};
use crate::memory;

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

/// How an ingest's chunks got their contexts from a language model.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContextStats {
    /// The contextualizer (`anthropic:claude-haiku-4-5@1`).
    pub contextualizer: String,
    /// Chunks whose context came from the cache file.
    pub cached: usize,
    /// Chunks the model wrote a context for in this run.
    pub written: usize,
    /// Chunks that fell back to their structural context.
    pub fallbacks: usize,
    /// Chunks of documents cut to fit the model's window.
    pub truncated: usize,
    /// What the provider reported.
    pub usage: context::Usage,
    /// Its cost in USD, when the model's price is known.
    pub cost_usd: Option<f64>,
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

/// Ingests `dataset` with `ingest` into a new store at `dir` (emptied first). `on_doc` is
/// called after each document.
pub fn ingest(
    dataset: &Dataset,
    ingest: IngestConfig,
    base: &Config,
    embedder: Option<&dyn Embedder>,
    dir: &Path,
    backend: Backend,
    on_doc: &mut dyn FnMut(&str),
) -> Result<IndexedSet> {
    let started = Instant::now();
    memory::reset_peak();
    let (config, note) = config_for(base, ingest, embedder);
    let pipeline = Pipeline::new(&config)?;
    empty_index_dir(dir)?;
    let manifest = Manifest::new(pipeline.tokenizer().id(), config.chunk.max_tokens, config.chunk.overlap);
    let (mut store, size): (Box<dyn StoreWrite>, IndexSize) = match backend {
        Backend::Postgres(options) => {
            PgStore::destroy(&options)?;
            let options = PgOptions { ann_threshold: config.dense.ann_threshold, ..options };
            (Box::new(PgStore::open_or_create(options.clone(), manifest)?), IndexSize::Postgres(options))
        }
        Backend::Milvus(options) => {
            MilvusStore::destroy(dir, &options)?;
            let store = MilvusStore::open_or_create(dir, &options, manifest)?;
            (Box::new(store), IndexSize::Folder(dir.to_path_buf()))
        }
        Backend::Embedded => {
            let mut store = EmbeddedStore::open_or_create(dir, manifest)?;
            store.set_ann_threshold(config.dense.ann_threshold);
            (Box::new(store), IndexSize::Folder(dir.to_path_buf()))
        }
    };
    let mut stats = IngestStats {
        max_tokens: if ingest.chunking == Chunking::Given { 0 } else { config.chunk.max_tokens },
        note,
        ..IngestStats::default()
    };
    // Documents whose gold or chunks count positions in their input text.
    let mut aligned: HashSet<&str> =
        dataset.documents.iter().filter(|d| d.given_chunks.is_some()).map(|d| d.name.as_str()).collect();
    for q in &dataset.queries {
        for g in &q.gold {
            if let crate::dataset::Target::Span { doc, .. } = &g.target {
                aligned.insert(doc);
            }
        }
    }
    let model_contexts = matches!(ingest.context, ContextMode::Anthropic | ContextMode::OpenAi);
    let chosen = if model_contexts {
        let context_config = strata_core::config::ContextConfig {
            kind: ingest.context.label().parse()?,
            llm: config.context.llm.clone(),
        };
        strata_providers::choose::contextualizer(&context_config, pipeline.tokenizer().clone())?
    } else {
        strata_providers::choose::Chosen::None
    };
    let mut cache = match (model_contexts, dir.parent()) {
        (true, Some(parent)) => Some(FileCache::open(parent.join(CONTEXT_CACHE_FILE))?),
        _ => None,
    };
    if let Some(llm) = chosen.llm() {
        use strata_ingest::context::Contextualizer;
        stats.contexts =
            Some(ContextStats { contextualizer: llm.id().to_string(), ..ContextStats::default() });
    }
    let mut docs = HashMap::new();
    let mut names = HashMap::new();
    let mut ids: HashSet<DocId> = HashSet::new();
    let mut tokens = 0u64;
    for (n, input) in dataset.documents.iter().enumerate() {
        match read_one(&pipeline, dataset, input, ingest, aligned.contains(input.name.as_str()), &mut ids) {
            Ok((mut record, view)) => {
                if ingest.context == ContextMode::Structural {
                    context::add_structural(&record.document, &mut record.chunks);
                }
                if let (Some(contextualizer), Some(cache), Some(tally)) =
                    (chosen.get(), cache.as_mut(), stats.contexts.as_mut())
                {
                    let situation =
                        context::situate(contextualizer, cache, &record.document, &mut record.chunks)?;
                    cache.append(&situation.to_cache)?;
                    tally.cached += situation.cached;
                    tally.written += situation.written;
                    tally.fallbacks += situation.fallbacks;
                    tally.truncated += situation.truncated;
                }
                if let Some(embedder) = embedder {
                    let at = Instant::now();
                    let (vectors, truncated) = embed(embedder, pipeline.tokenizer().as_ref(), &record)?;
                    stats.truncated += truncated;
                    record.vectors = Some(vectors);
                    record.section_vectors =
                        strata_embed::sections::embed_sections(embedder, &record.document)?;
                    stats.embed_seconds += at.elapsed().as_secs_f64();
                }
                stats.documents += 1;
                stats.chunks += record.chunks.len();
                tokens += record.chunks.iter().map(|c| u64::from(c.tokens)).sum::<u64>();
                if aligned.contains(input.name.as_str()) && !view.align.is_identity() {
                    stats.realigned.push((input.name.clone(), view.align.coverage()));
                }
                store.put(&record)?;
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
    if let (Some(llm), Some(tally)) = (chosen.llm(), stats.contexts.as_mut()) {
        tally.usage = llm.usage();
        tally.cost_usd = llm.client().price().map(|p| strata_providers::cost::cost(&tally.usage, &p));
    }
    stats.seconds = started.elapsed().as_secs_f64();
    stats.mean_chunk_tokens = if stats.chunks == 0 { 0.0 } else { tokens as f64 / stats.chunks as f64 };
    stats.index_bytes = size.bytes()?;
    stats.peak_rss_bytes = memory::peak_rss();
    Ok(IndexedSet { config: ingest, store, docs, names, stats })
}

/// Where an eval run builds its indexes.
pub enum Backend {
    /// The embedded store, in the index folder.
    Embedded,
    /// PostgreSQL (its strata tables are dropped first).
    Postgres(PgOptions),
    /// Vectors in Milvus, in collections of the ingest's own name (dropped first).
    Milvus(MilvusOptions),
}

impl Backend {
    /// The backend of `grid` for the ingest labelled `label`.
    pub fn of(grid: &crate::Grid, label: &str) -> Backend {
        if let Some(options) = &grid.postgres {
            return Backend::Postgres(options.clone());
        }
        match &grid.milvus {
            Some(options) => {
                // Labels that differ only in punctuation get names of their own.
                let name: String =
                    label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
                let hash = label
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
                let collection = Some(format!("strata_eval_{name}_{:08x}", hash as u32));
                Backend::Milvus(MilvusOptions { collection, ..options.clone() })
            }
            None => Backend::Embedded,
        }
    }
}

/// How to measure the index's size once it is built. A Milvus-backed index counts its folder
/// only: the vectors' size is the engine's.
enum IndexSize {
    Folder(std::path::PathBuf),
    Postgres(PgOptions),
}

impl IndexSize {
    fn bytes(&self) -> Result<u64> {
        match self {
            IndexSize::Folder(dir) => Ok(EmbeddedStore::open(dir)?.size_on_disk()),
            IndexSize::Postgres(options) => PgStore::open(options.clone())?.size_on_disk(),
        }
    }
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

/// The configuration one ingest runs with, and what fitting it to the model changed.
fn config_for(
    base: &Config,
    ingest: IngestConfig,
    embedder: Option<&dyn Embedder>,
) -> (Config, Option<String>) {
    let mut config = base.clone();
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
    (config, note)
}

/// Reads and chunks one document; its id is made unique within the run.
fn read_one(
    pipeline: &Pipeline,
    dataset: &Dataset,
    input: &DocInput,
    ingest: IngestConfig,
    align: bool,
    ids: &mut HashSet<DocId>,
) -> Result<(Ingested, DocView)> {
    let (mut document, input_text): (Document, String) = match &input.content {
        Content::File(path) => {
            let (source, bytes) = pipeline.load(path)?;
            let input_text = String::from_utf8_lossy(&bytes).into_owned();
            (pipeline.read_bytes(source, &bytes)?, input_text)
        }
        Content::Text { title, text, format } => {
            let source = Source {
                path: format!("{}/{}", dataset.name, input.name),
                format: *format,
                content_hash: blake3::hash(text.as_bytes()).to_hex().to_string(),
                size: text.len() as u64,
                mtime: None,
            };
            let mut doc = pipeline.read_bytes(source, text.as_bytes())?;
            if let Some(title) = title {
                doc.title = title.clone();
            }
            (doc, text.clone())
        }
    };
    let mut id = document.id.clone();
    let mut n = 2;
    while !ids.insert(id.clone()) {
        id = DocId(format!("{}-{n}", document.id.as_str()));
        n += 1;
    }
    document.id = id;
    let align = if align { Alignment::new(&input_text, &document.text) } else { Alignment::unknown() };
    let record = match (ingest.chunking, &input.given_chunks) {
        (Chunking::Given, Some(given)) => {
            let spans: Vec<Span> = given
                .iter()
                .map(|s| Span::new(align.map(s.start), align.map(s.end)))
                .filter(|s| !s.is_empty())
                .collect();
            pipeline.process_at(document, &spans)?
        }
        (Chunking::Given, None) => {
            return Err(Error::user(format!(
                "document {} has no given chunks; use --chunking auto or a token count",
                input.name
            )))
        }
        _ => pipeline.try_process(document)?,
    };
    let doc = &record.document;
    let view = DocView {
        id: doc.id.clone(),
        chars: CharIndex::new(&doc.text),
        text: doc.text.clone(),
        align,
        tree: doc.tree.clone(),
        pages: doc.pages.clone(),
        chunk_spans: record.chunks.iter().map(|c| c.span).collect(),
    };
    Ok((record, view))
}

impl IndexedSet {
    /// Whether the store holds vectors (the dense leg can run).
    pub fn has_vectors(&self) -> bool {
        self.store.manifest().dense.is_some()
    }
}

/// Embeds a document's chunks as the legs index them; returns the vectors and how many
/// chunks the model truncated.
fn embed(
    embedder: &dyn Embedder,
    tokenizer: &dyn strata_ingest::tokenize::Tokenizer,
    record: &Ingested,
) -> Result<(ChunkVectors, usize)> {
    let info = embedder.info();
    let texts: Vec<std::borrow::Cow<'_, str>> = record
        .chunks
        .iter()
        .map(|c| context::embedded_text(c, &record.document.text, tokenizer, info.max_seq_len))
        .collect();
    let refs: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
    let vectors = embedder.embed_passages(&refs)?;
    let truncated = vectors.truncated().len();
    Ok((
        ChunkVectors { model: info.model_id.clone(), dim: info.dim, values: vectors.as_slice().to_vec() },
        truncated,
    ))
}
