//! The `Store` traits with vectors in Milvus.
//!
//! A [`MilvusStore`] keeps each index in two places:
//!
//! - **Milvus** holds every chunk and section vector, with the fields strata's filters test
//!   (document, node, kind, pages), and serves the dense legs: exact inner product (FLAT) with
//!   the filters pushed down as Milvus expressions. Two collections per index,
//!   `NAME_chunks` and `NAME_sections`.
//! - **A local side index** (the embedded store, in the `--index` folder) holds the
//!   documents, their text, the chunks, definitions, references and the context cache, and
//!   serves the keyword, section and exact legs with tantivy. Milvus's own BM25 has no English
//!   stemmer (Milvus Lite's has none at all), so the keyword legs rank exactly as on the
//!   embedded store.
//!
//! Commits are atomic across both through generations (see `store.rs`). The research behind
//! the design, and what Milvus Lite does and does not do, is in `docs/milvus-lite.md`.

mod engine;
mod expr;
mod options;
mod rows;
mod store;

pub use options::{check_collection_name, redact, MilvusOptions};
pub use store::MilvusStore;
