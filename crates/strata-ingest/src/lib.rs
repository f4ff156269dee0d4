//! Ingest: read → annotate → tree → chunk → enrich, and the contexts of the context stage.
//!
//! - [`read`]: a [`read::Reader`] per format turns bytes into text, pages, blocks and heading
//!   marks.
//! - [`annotate`] and [`metadata`], the annotate stage: the declared annotators that claim a
//!   document (`sec`: issuer, form, period from a filing's cover) fill its metadata and,
//!   where its own title names nothing, its title; metadata from the configuration and
//!   sidecar files.
//! - [`tree`]: heading marks become a [`strata_core::Tree`].
//! - [`tokenize`]: the tokenizers chunks are counted in (the trait, and sentence boundaries,
//!   the chunker's other measure, are `strata-text`'s).
//! - [`chunk`]: token-bounded chunks that break on headings and sentences and tile each
//!   section's text.
//! - [`enrich`]: chunk kinds, defined terms, cross-references.
//! - [`context`]: the contextualizers of the context stage (structural, or a language
//!   model's through a cache).
//! - [`pipeline`]: the stages from read to enrich, each a method named after it, for one
//!   file.
//! - [`stage`]: the eight ingest stages by name (the engine's driver runs all of them).
#![warn(missing_docs)]

pub mod annotate;
pub mod chunk;
pub mod context;
pub mod enrich;
pub mod metadata;
pub mod open;
pub mod pipeline;
pub mod read;
pub mod stage;
pub mod tokenize;
pub mod tree;
