//! Search: plan → retrieve → fuse → (rerank) → (hierarchy) → fetch → expand → highlight →
//! show → cite → assemble, and navigation. Each stage is a module of its own, named as in [`Timings`].
//!
//! - [`plan`]: reads a query for section identifiers, quoted phrases and defined terms.
//! - [`retrieve`]: one ranked list per leg and level (keyword/BM25, exact, dense; in
//!   hierarchical mode the section legs), the dense legs on their own thread.
//! - [`fuse`]: reciprocal rank fusion (k = 60, weights per leg) behind the [`fuse::Fusion`]
//!   trait, and relative score fusion ([`fuse::WeightedScore`]); identifier hits pinned first.
//!   [`weigh`] first scales the keyword and dense weights by how firmly each list commits to
//!   its top (`[search] leg_evidence`).
//! - [`rerank`]: the top fused candidates reordered by a [`strata_model::rerank::Reranker`]
//!   (a local cross-encoder, a rerank API, or a chat model listwise).
//! - [`hierarchy`]: hierarchical mode lifts the chunks of the sections whose headings the
//!   query names ([`headings`]), then returns the best chunks, a few per section.
//! - [`fetch`]: the top fused chunks loaded as hits.
//! - [`expand`]: auto-merge, whole pages, dedupe, definitions and cross-references.
//! - [`highlight`]: the sentence level, the sentences of each hit that answer the query.
//! - [`show`]: what a reader sees of each hit: its leading heading apart, no Markdown markup.
//! - [`cite`]: where each hit, definition and reference lies (pages where the document has
//!   pages, else source lines) and its citation, heading paths below the title.
//! - [`assemble`]: the context block packed into a token budget, with citations.
//! - [`search`]: the [`Searcher`] that wires the stages; [`request`] and [`response`] hold
//!   the shapes every front-end shares.
//! - [`navigate`]: resolving `DOC#NODE` and page ranges; outline, read a section or pages,
//!   define a term, follow references.
//!
//! ```no_run
//! use strata_index::EmbeddedStore;
//! use strata_search::{Mode, SearchRequest, Searcher};
//! let store = EmbeddedStore::open(std::path::Path::new(".strata"))?;
//! let searcher = Searcher::new(&store, Default::default())?;
//! let response = searcher.search(&SearchRequest::new("section 102(b)", Mode::Hybrid, 5))?;
//! for hit in &response.hits {
//!     println!("{} > {}", hit.doc_title, hit.heading_path.join(" > "));
//! }
//! for definition in &response.definitions {
//!     println!("{}: {}", definition.term, definition.text);
//! }
//! # Ok::<(), strata_core::Error>(())
//! ```
#![warn(missing_docs)]

pub mod assemble;
pub mod cite;
pub mod documents;
pub mod expand;
pub mod fetch;
pub mod fuse;
pub mod headings;
pub mod hierarchy;
pub mod highlight;
pub mod metas;
pub mod navigate;
pub mod plan;
pub mod request;
pub mod rerank;
pub mod response;
pub mod retrieve;
pub mod search;
pub mod show;
pub mod weigh;
pub mod within;

pub use request::{Expand, Mode, Order, SearchRequest};
pub use response::{
    AttachedDefinition, AttachedReference, Context, MoreDefinition, SearchHit, SearchResponse, Timings, Unit,
};
pub use search::{Catalog, Searcher};
