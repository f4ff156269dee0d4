//! Indexes: the [`StoreRead`] / [`StoreWrite`] seam and the embedded store.
//!
//! The embedded store ([`EmbeddedStore`]) is the default and the reference every other
//! backend is tested against. It keeps every record of a document (text, tree, chunks,
//! definitions, references) in one tantivy index in one folder, with a [`Manifest`] that
//! guards against opening it with incompatible settings.
//!
//! ```no_run
//! use strata_index::{EmbeddedStore, Filter, StoreRead};
//! let store = EmbeddedStore::open(std::path::Path::new(".strata"))?;
//! for hit in store.keyword("patentability novelty", &Filter::default(), 5)? {
//!     println!("{} {:.2}", hit.chunk, hit.score);
//! }
//! # Ok::<(), strata_core::Error>(())
//! ```
#![warn(missing_docs)]

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod embedded;
mod manifest;
mod schema;
mod store;
mod ties;
mod vectors;

pub use embedded::{Check, EmbeddedStore, DEFAULT_ANN_THRESHOLD};
pub use manifest::{DenseManifest, Manifest, FORMAT_VERSION, MANIFEST_FILE, MIN_FORMAT_VERSION};
pub use store::{
    check_vectors, DocSummary, Filter, LegHit, SectionHit, StoreRead, StoreWrite, StoredChunk,
    StoredDocument, BOOST_HEADING, BOOST_TEXT, BOOST_TITLE, SECTION_BOOST_HEADING,
};
pub use ties::{same_score, sort_lexical, SCORE_TIE};
pub use vectors::QUANT_MIN_ROWS;
