//! Command-line arguments.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// strata: hierarchical retrieval over long structured documents.
#[derive(Debug, Parser)]
#[command(name = "strata", version, about, long_about = None)]
pub struct Cli {
    /// Index folder.
    #[arg(long, global = true, env = "STRATA_INDEX", default_value = ".strata")]
    pub index: PathBuf,

    /// Configuration file (default: ./strata.toml when present).
    #[arg(long, global = true, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,

    /// Embedding model for the dense leg: a sentence-transformers folder, or a name found in
    /// STRATA_MODELS or the cache (default from config: all-MiniLM-L6-v2).
    #[arg(long, global = true)]
    pub model: Option<String>,

    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read, chunk, enrich and index files, folders (recursively) and globs.
    Ingest(IngestArgs),
    /// Search the index.
    Search(SearchArgs),
    /// Print a document's outline with node ids, numbers and pages.
    Tree {
        /// Document id or part of its path.
        doc: String,
        /// Levels below the document to show (1: the top sections); deeper ones are counted.
        #[arg(long)]
        depth: Option<usize>,
    },
    /// Print a section's text: DOC#NODE (node id like 0042, or a section number).
    Show {
        /// DOC#NODE.
        target: String,
    },
    /// Print pages of a document as read: `strata read DOC --pages 5-7`.
    Read {
        /// Document id or part of its path.
        doc: String,
        /// A page (12) or a range (5-7) of physical page numbers from 1.
        #[arg(long, default_value = "1")]
        pages: String,
    },
    /// Look up a defined term in every document.
    Define {
        /// The term.
        term: String,
    },
    /// References out of and into a section: DOC#NODE (or DOC for the whole document).
    Refs {
        /// DOC#NODE.
        target: String,
    },
    /// List indexed documents.
    Docs,
    /// Verify the index without changing it: every segment's checksums and every vector.
    /// Exits 1 and names the damaged files when something is damaged.
    Check,
    /// Remove a document and everything derived from it.
    Remove {
        /// Document id or part of its path.
        doc: String,
    },
    /// Serve the HTTP API (JSON under /v1, /openapi.json, /metrics) and MCP at /mcp.
    Serve(ServeArgs),
    /// Serve MCP over stdin/stdout, for an agent that starts strata itself.
    Mcp,
    /// Distill a static embedding model from a local sentence-transformer (model2vec's
    /// method: every token through the encoder, PCA, frequency weights). It embeds thousands
    /// of chunks a second, at a cost in quality the eval reports show.
    Distill {
        /// The model to distill: a folder or a name (default: --model, else `[dense] model`).
        source: Option<String>,
        /// Output folder (default: the cache's models/NAME-static, which `--model
        /// NAME-static` finds).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Width of the static vectors (PCA components).
        #[arg(long, default_value_t = 256)]
        dims: usize,
    },
    /// Measure retrieval on a data set with gold labels: ingest it once per chunking and
    /// context, run every strategy, write report.{md,json,html} and charts.
    Eval(EvalArgs),
}

/// Arguments of `strata eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A data set: a folder in the anthropic, chroma or BEIR layout, or a .jsonl file.
    pub dataset: PathBuf,
    /// Data set format (default: detected from what the path holds).
    #[arg(long, value_parser = ["anthropic", "chroma", "beir", "jsonl"])]
    pub format: Option<String>,
    /// Folder of the documents a .jsonl data set names (default: the file's folder).
    #[arg(long)]
    pub docs: Option<PathBuf>,
    /// BEIR qrels split.
    #[arg(long, default_value = "test")]
    pub split: String,
    /// Strategies to run, comma-separated: keyword, exact, dense, hybrid, hierarchical, each
    /// with `+rerank` and `@key=value` search settings if wanted (--help lists them).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "keyword,dense,hybrid,hierarchical",
        long_help = strategies_help()
    )]
    pub strategies: Vec<String>,
    /// The reranker of `+rerank` strategies (cross-encoder, cohere, jina, voyage, anthropic,
    /// openai); default from `[rerank] kind`, or cross-encoder when --rerank-model is given.
    #[arg(long, value_name = "KIND")]
    pub rerank: Option<String>,
    /// The reranker's model: a cross-encoder folder, or the API's model name.
    #[arg(long, value_name = "MODEL")]
    pub rerank_model: Option<String>,
    /// Chunkings, comma-separated: given (the data set's own chunks), auto (fit to the
    /// model's window), or a token count (default: given,auto for pre-split sets, else auto).
    #[arg(long, value_delimiter = ',')]
    pub chunking: Vec<String>,
    /// Contexts prepended for indexing, comma-separated: none, structural, anthropic, openai
    /// (a language model, `[context.llm]`; its contexts are kept in INDEX_DIR/contexts.jsonl,
    /// so a second run calls nothing).
    #[arg(long, value_delimiter = ',', default_value = "none")]
    pub context: Vec<String>,
    /// Only the first N queries.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Report folder (default: eval-out/DATASET).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where the indexes of the run go, one folder per chunking (default: OUT/index).
    #[arg(long)]
    pub index_dir: Option<PathBuf>,
    /// A folder of vectors that runs share: a text whose vector it holds (same model,
    /// precision and embedded text) is not embedded again, and new vectors are added. A
    /// second run after a ranking-only change embeds nothing. Delete the folder to clear it.
    #[arg(long, value_name = "DIR")]
    pub vector_cache: Option<PathBuf>,
    /// Build the run's indexes in PostgreSQL at this URL instead of folders. Each ingest of
    /// the run first drops the strata tables of that database: give it a database of its
    /// own. `[store]` keyword, shards and read_url apply.
    #[arg(long, value_name = "URL", conflicts_with = "milvus")]
    pub postgres: Option<String>,
    /// Keep the vectors of the run's indexes in Milvus at this URL (`http://HOST:PORT`), in
    /// collections named `strata_eval_<chunking>_<context>_…`, which each ingest drops first.
    #[arg(long, value_name = "URL")]
    pub milvus: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `strata eval --strategies`' long help, its settings from the one table the parser reads
/// (`strata_eval::settings`).
fn strategies_help() -> String {
    format!(
        "Strategies to run, comma-separated: keyword, exact, dense, hybrid, hierarchical. Add \
         `+rerank` to rerank one (`hybrid+rerank`) with the reranker of --rerank / [rerank], and \
         `@key=value` to change a search setting for it (`hybrid@dense=2`, `hybrid@fusion=weighted`, \
         `hierarchical@headings=0`): {}. `@highlights=dense` or `lexical` also judges each hit's \
         highlighted sentences against span gold (highlight_p@1, highlight_p@3), \
         `@highlight_sentences=N` bounding the sentences a search embeds.",
        strata_eval::settings::usage()
    )
}

/// `strata ingest`'s arguments.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// Files, folders or glob patterns.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Re-index files even when their content is unchanged.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// What writes each chunk's context: structural (the default: title, heading path,
    /// section number, lead, defined terms), anthropic or openai (a language model,
    /// `[context.llm]`), or none. Overrides `[context] kind`.
    #[arg(long, value_name = "KIND")]
    pub contextualize: Option<String>,
    /// Read and chunk everything, then print the language-model calls, tokens and cost
    /// the contexts would take; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Metadata for every document of this ingest, `key=value` (repeatable): shown by
    /// `strata docs`, and names and dates (company, title, year, …) help search find
    /// the document. A sidecar `NAME.meta.json` beside a file goes over it. A file already
    /// indexed and unchanged keeps its metadata unless --force.
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// OCR of scanned PDF pages: auto (pages without a text layer, when Tesseract is
    /// installed; the default), off, or force (every page). Overrides `[ingest] ocr`.
    #[arg(long, value_name = "WHEN")]
    pub ocr: Option<String>,
}

/// `strata search`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The query: words, "quoted phrases", section numbers (§ 4.2, Section 102(b)).
    pub query: String,
    /// keyword, exact, dense, hybrid or hierarchical (default from config: hierarchical).
    #[arg(long)]
    pub mode: Option<String>,
    /// Number of results (1-100, default 10).
    #[arg(short, long)]
    pub k: Option<usize>,
    /// Only this document (id or part of its path), or one subtree as DOC#NODE.
    #[arg(long)]
    pub doc: Option<String>,
    /// Only documents whose metadata has this value, `key=value` (repeatable, all must
    /// hold; case-insensitive). `strata docs` lists each document's metadata.
    #[arg(long = "where", value_name = "KEY=VALUE")]
    pub r#where: Vec<String>,
    /// Only chunks of this kind (content, definition, requirement, table, code, list).
    #[arg(long)]
    pub kind: Option<String>,
    /// Only chunks on these pages: `12` or `5-7` (physical page numbers, from 1).
    #[arg(long, value_name = "FIRST[-LAST]")]
    pub page_range: Option<String>,
    /// Tokens of the assembled context block (default from config: 4000).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Return whole pages around each hit, with N more pages on each side (0: just the
    /// pages the hit touches).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "0")]
    pub pages: Option<u32>,
    /// Attach the sections the hits refer to (one hop).
    #[arg(long)]
    pub refs: bool,
    /// Auto-merge share: a section is returned whole when at least this share of its
    /// chunks are hits; 0 turns merging off (default from config: 0.5).
    #[arg(long, value_name = "SHARE")]
    pub merge: Option<f64>,
    /// Order of the hits in the context: position (grouped by document) or score.
    #[arg(long)]
    pub order: Option<String>,
    /// Print the assembled context block instead of the hit list.
    #[arg(long)]
    pub context: bool,
    /// Rerank the top fused results with: cross-encoder (a local folder, --rerank-model),
    /// cohere, jina, voyage (their /rerank APIs), anthropic or openai (listwise). Overrides
    /// `[rerank] kind`.
    #[arg(long, value_name = "KIND")]
    pub rerank: Option<String>,
    /// The reranker's model: a cross-encoder folder, or the API's model name.
    #[arg(long, value_name = "MODEL")]
    pub rerank_model: Option<String>,
    /// Fused results the reranker reads (default from config: 50).
    #[arg(long, value_name = "N")]
    pub rerank_candidates: Option<usize>,
    /// Do not rerank, whatever the configuration says.
    #[arg(long, conflicts_with = "rerank")]
    pub no_rerank: bool,
    /// Sentences highlighted per hit, 0 (off) to 20 (default from config: 3).
    #[arg(long, value_name = "N")]
    pub highlights: Option<usize>,
    /// Score highlights with the embedding model (BM25 breaking near-ties) instead of BM25
    /// over the hits' sentences: about 80 ms of CPU a search for 64 sentences
    /// (`[search] dense_highlights`).
    #[arg(long, conflicts_with = "lexical_highlights")]
    pub dense_highlights: bool,
    /// Score highlights with BM25 over the hits' sentences (the default; overrides
    /// `[search] dense_highlights = true`).
    #[arg(long)]
    pub lexical_highlights: bool,
    /// Definitions attached at most, 0 to 100: the terms the query names first, then those
    /// the most hits use (default from config: as many as the hits). The rest are named;
    /// `strata define TERM` reads one.
    #[arg(long, value_name = "N")]
    pub definitions: Option<usize>,
}

/// `strata serve`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (default from config: 127.0.0.1:7700; port 0 picks one).
    #[arg(long)]
    pub addr: Option<String>,
    /// Listen off loopback without API keys (anyone who reaches it can read and change
    /// the index).
    #[arg(long)]
    pub public: bool,
    /// A folder path-based ingest (POST /v1/documents {"paths": [...]}) may read from;
    /// repeat for more. Adds to `[serve] roots`.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Do not mount the MCP server at /mcp.
    #[arg(long)]
    pub no_mcp: bool,
}

/// Repeated `KEY=VALUE` flags (`--meta`, `--where`) as a map; `flag` names them in the error.
pub fn key_values(flag: &str, entries: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    entries
        .iter()
        .map(|entry| match entry.split_once('=') {
            Some((key, value)) => Ok((key.trim().to_string(), value.trim().to_string())),
            None => anyhow::bail!("{flag} {entry:?} is not KEY=VALUE; write it as {flag} company=Acme"),
        })
        .collect()
}
