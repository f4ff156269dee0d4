//! Measuring retrieval quality: `strata eval`.
//!
//! ```text
//! data set ─ adapters ─▶ Dataset{documents, queries with gold}
//!          ─ ingest (once per chunking × context) ─▶ IndexedSet{store, documents}
//!          ─ run (every strategy, every query) ─▶ hits ─ judge ─▶ metrics per query
//!          ─ report ─▶ report.{json,md,html}, recall/latency charts (SVG, PNG)
//! ```
//!
//! Adapters read strata's JSONL format, the BEIR layout, and the two shared evaluation
//! sets (Anthropic's pre-split code files, Chroma's character spans). Metrics are pure
//! functions (`metrics`), unit-tested on hand-computed cases. The same data set, index and
//! configuration give the same numbers: ingest is deterministic, and ties in a ranking are
//! put in a fixed order before judging.

#![warn(missing_docs)]

pub mod adapters;
pub mod align;
pub mod chart;
pub mod dataset;
pub mod ingest;
pub mod judge;
pub mod memory;
pub mod metrics;
pub mod report;
pub mod run;
pub mod settings;
pub mod vector_cache;

pub use adapters::{load, LoadOptions};
pub use dataset::Dataset;
pub use ingest::{Chunking, ContextMode, IngestConfig};
pub use run::{Grid, Progress, Quiet, Report, Row, Strategy};
