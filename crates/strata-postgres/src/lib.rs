//! The `Store` traits on PostgreSQL with pgvector ([`PgStore`]).
//!
//! Everything the embedded store keeps in tantivy lives in tables (see `schema.rs`), and
//! every leg is answered by the server:
//! - **keyword and section legs**: BM25 computed in SQL over strata's own postings table,
//!   with tantivy's analyzers, IDF and field-norm rounding, so the ranking equals the
//!   embedded store's (`bm25.rs`); or PostgreSQL's `ts_rank` over a weighted `tsvector`
//!   (`[store] keyword = "ts_rank"`), which has no IDF;
//! - **dense legs**: pgvector, exact below `ann_threshold` vectors or under a document
//!   filter, HNSW with iterative scans above it;
//! - **exact legs**: section numbers and defined terms as indexed columns, phrases from the
//!   positions in the postings;
//! - **filters**: SQL predicates on document, node range, kind and pages.
//!
//! One transaction per commit, one savepoint per document, one writer per database (an
//! advisory lock). Reads come from a pool, optionally on a hot standby (`read_url`), and the
//! records can be hash-partitioned over shards through `postgres_fdw` (`shards.rs`).
//!
//! ```no_run
//! use strata_index::{Filter, StoreRead};
//! use strata_postgres::{PgOptions, PgStore};
//! let store = PgStore::open(PgOptions::new("postgres://postgres@127.0.0.1:5432/strata"))?;
//! for hit in store.keyword("patentability novelty", &Filter::default(), 5)? {
//!     println!("{} {:.2}", hit.chunk, hit.score);
//! }
//! # Ok::<(), strata_core::Error>(())
//! ```
#![warn(missing_docs)]

mod bm25;
mod error;
mod options;
mod rows;
mod schema;
mod shards;
mod sql;
mod store;
mod tables;

pub use options::{redact, KeywordRanking, PgOptions};
pub use schema::SCHEMA_VERSION;
pub use store::PgStore;
