//! Search: plan → retrieve → fuse → assemble, and navigation.
//!
//! - [`plan`]: reads a query for section identifiers, quoted phrases and defined terms.
//! - [`retrieve`]: one ranked list per leg (keyword/BM25, exact).
//! - [`fuse`]: reciprocal rank fusion (k = 60, weights per leg) behind the [`fuse::Fusion`]
//!   trait.
//! - [`search`]: the request/response shapes and the [`Searcher`] that runs the stages.
//! - [`navigate`]: outline, read a section, define a term, follow references.
//!
//! ```no_run
//! use strata_index::{EmbeddedStore, Filter};
//! use strata_search::{Mode, SearchRequest, Searcher};
//! let store = EmbeddedStore::open(std::path::Path::new(".strata"))?;
//! let searcher = Searcher::new(&store, Default::default())?;
//! let req = SearchRequest { query: "section 102(b)".into(), mode: Mode::Hybrid, k: 5, filter: Filter::default() };
//! for hit in searcher.search(&req)?.hits {
//!     println!("{} > {}", hit.doc_title, hit.heading_path.join(" > "));
//! }
//! # Ok::<(), strata_core::Error>(())
//! ```
#![warn(missing_docs)]

pub mod fuse;
pub mod hierarchy;
pub mod navigate;
pub mod plan;
pub mod retrieve;
pub mod search;

pub use search::{Mode, SearchHit, SearchRequest, SearchResponse, Searcher, Timings};
