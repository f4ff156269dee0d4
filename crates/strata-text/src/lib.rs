//! strata's text primitives, shared by the ingest and query sides:
//! - [`tokenize::Tokenizer`]: the trait chunks are measured by (its implementations, which need
//!   `tokenizers` or `tiktoken`, stay in `strata-ingest`);
//! - [`sentence`]: sentence boundaries that survive abbreviations, in time linear in the text;
//! - [`number`]: section numbers, found in headings and queries and normalized to one key;
//! - [`markdown::plain`]: Markdown shown as what a reader sees;
//! - `analyzer` (the cargo feature of that name): the keyword index's `en_stem` and `default`
//!   analyzers, for code that must read text as the index does.
//!
//! The crate reads no file format and runs no model, so the query side (`strata-search`)
//! links it without linking a reader, as tantivy's `tantivy-tokenizer-api` lets a tokenizer
//! be written without tantivy.
#![warn(missing_docs)]

#[cfg(feature = "analyzer")]
pub mod analyzer;
pub mod markdown;
pub mod number;
pub mod sentence;
pub mod tokenize;
