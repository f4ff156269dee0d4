//! Domain types of strata.
//!
//! strata reads long structured documents into a heading tree, cuts the tree into
//! token-bounded chunks, tags them, and indexes every level. This crate holds the types those
//! stages exchange; it has no heavy dependency, so every other crate can use it.
//!
//! - [`Document`]: normalized `text`, [`Page`]s and [`Block`]s (all [`Span`]s of the text),
//!   and a [`Tree`] of [`Node`]s.
//! - [`Chunk`]: a token-bounded piece of one section; a section's chunks tile its text.
//! - [`Definition`] and [`Reference`]: what enrichment finds.
//! - [`Config`]: `strata.toml`, validated when it is loaded.
//! - [`Error`]: typed errors classified by whose fault they are.
//!
//! ```
//! use strata_core::Span;
//! let text = "§ 102(b) applies.";
//! assert_eq!(Span::new(0, 8).slice(text), "§ 102(b");
//! ```
#![warn(missing_docs)]

mod annotation;
mod chunk;
pub mod config;
mod definition;
mod document;
mod document_profile;
mod error;
mod lines;
mod profile;
mod record;
mod span;
pub mod terminal;
#[doc(hidden)]
pub mod testdata;
mod tree;

pub use annotation::Annotation;
pub use chunk::{Chunk, ChunkId, ChunkKind};
pub use config::Config;
pub use definition::{normalize_term, Definition, Reference};
pub use document::{Block, BlockKind, DocId, Document, Format, Page, Source};
pub use document_profile::{document_lead, DocumentProfile};
pub use error::{Error, Result, ResultExt};
pub use lines::{LineRange, Lines};
pub use profile::{section_profiles, SectionProfile, LEAD_WORDS};
pub use record::{CachedVector, ChunkVectors, DocumentRecord, SectionVectors};
pub use span::{ceil_char_boundary, floor_char_boundary, PageRange, Span};
pub use tree::{Node, NodeId, SectionNumber, Tree};
