//! Ingest: read → identity → tree → chunk → enrich.
//!
//! - [`read`]: a [`read::Reader`] per format turns bytes into text, pages, blocks and heading
//!   marks.
//! - [`identity`]: what the document is (issuer, form, period) from its first pages, into
//!   its metadata and, for a document whose own title names nothing, its title.
//! - [`tree`]: heading marks become a [`strata_core::Tree`].
//! - [`tokenize`]: the tokenizers chunks are counted in (the trait, and sentence boundaries,
//!   the chunker's other measure, are `strata-text`'s).
//! - [`chunk`]: token-bounded chunks that break on headings and sentences and tile each
//!   section's text.
//! - [`enrich`]: chunk kinds, defined terms, cross-references.
//! - [`pipeline`]: the stages in order, for one file.
#![warn(missing_docs)]

pub mod chunk;
pub mod context;
pub mod enrich;
pub mod identity;
pub mod metadata;
pub mod open;
pub mod pipeline;
pub mod read;
pub mod tokenize;
pub mod tree;
