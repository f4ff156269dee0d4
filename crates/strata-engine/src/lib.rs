//! What every strata front-end drives. The CLI, the HTTP API and the MCP server are thin
//! layers over this crate: they parse what a user or an agent asked, call [`Engine`] (or
//! [`ingest_files`]) and render the answer.
//!
//! - [`Engine`] is an index opened with its models (query embedder, reranker, the index's
//!   tokenizer). Searches and navigation (documents, outline, section, pages, references,
//!   definitions: every `DOC#NODE` and page range is resolved here) read a [`Snapshot`], the
//!   last commit; ingests and removals go through one writer at a time and publish a new
//!   snapshot when they commit, so readers never see a half-written document.
//! - [`SearchOptions`] are the options of `strata search` as data, the same for the CLI
//!   flags, the JSON of `POST /v1/search` and the MCP `search` tool.
//! - [`driver`] is the one ingest driver: read → annotate → tree → chunk → enrich → context
//!   → embed → record, the stages every ingest runs ([`embed`] and [`record`] are its last
//!   two): this crate's ingest loop, eval's and the latency bench's. [`ingest`] is the
//!   parallel ingest loop of `strata ingest`, the server's jobs and Python, [`progress`] what
//!   it shows while it runs; [`estimate`] predicts what a language model's contexts would
//!   cost; [`models`] picks the embedder, tokenizer, contextualizer and reranker an index
//!   needs.
//! - [`Location`] is where `[store]` says the index lives. The PostgreSQL and Milvus stores
//!   are the cargo features `postgres` and `milvus` (on by default).

pub mod driver;
pub mod embed;
mod engine;
pub mod estimate;
pub mod ingest;
mod location;
pub mod models;
mod navigate;
mod ocr_cache;
mod options;
pub mod progress;
pub mod record;
mod source;
#[cfg(test)]
mod testing;

pub use engine::{check, ingest_files, remove, Engine, IngestOptions, OpenOptions, Snapshot};
pub use location::Location;
pub use options::SearchOptions;
pub use source::SourceFile;
pub use strata_index::Check;
