//! What strata asks of a model, and nothing more: the traits that the ingest and query sides
//! call, with the types they exchange.
//!
//! - [`Embedder`]: passages and queries to L2-normalized vectors, with its [`EmbedderInfo`];
//! - [`rerank::Reranker`]: a score per (query, passage) pair;
//! - [`context::Contextualizer`]: the text that situates a chunk in its document, with its
//!   token [`context::Usage`].
//!
//! The implementations live elsewhere: local models on ONNX Runtime and the HTTP embedder in
//! `strata-embed`, the structural contextualizer in `strata-ingest`, the hosted chat models and
//! `/rerank` APIs in `strata-providers`. This crate links none of them, so the query side
//! (`strata-search`) can call a model without linking a runtime, as tantivy's
//! `tantivy-tokenizer-api` lets a tokenizer be written without tantivy.
#![warn(missing_docs)]

pub mod context;
mod embedder;
pub mod rerank;

pub use embedder::{l2_normalize, Embedder, EmbedderInfo, Embeddings, Pooling};
