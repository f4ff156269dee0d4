//! Dense vector indexes for the dense retrieval leg.
//!
//! Vectors are L2-normalized `f32` rows of any width (384 for all-MiniLM-L6-v2), so the inner
//! product is the cosine similarity and higher is better. This crate knows rows only: row `i`
//! is the `i`-th vector written; the caller (`strata-index`) maps rows to chunk ids.
//!
//! The pieces, bottom up:
//!
//! - [`kernel`]: the inner-product kernels (AVX2 + FMA at run time, a portable fallback), one
//!   pair at a time and register-tiled for many rows × many queries.
//! - [`topk`]: bounded top-k with one deterministic order (higher score, then lower row) and the
//!   merge of per-thread lists.
//! - [`matrix`]: the [`Matrix`] read trait, the growable [`MemMatrix`], and the versioned matrix
//!   file, written atomically and opened memory-mapped as [`MmapMatrix`].
//! - [`flat`]: exact search, multi-threaded over row ranges, with a blocked batch path.
//! - [`hnsw`]: an HNSW graph built over a matrix, with filtered search (falling back to exact
//!   search for selective filters) and its own versioned graph file.
//! - [`quant`]: int8 scalar quantization of a matrix for the candidate scan of exact search,
//!   with f32 rescoring of the best `4 × k`.
//! - [`bits`]: one-bit codes for the first pass of the scan over large segments, the best
//!   `multiple × k` (calibrated per segment) rescored in f32.
//! - [`rng`]: a seeded generator for level sampling and synthetic test vectors.
//!
//! ```
//! use strata_vector::{flat, Hnsw, HnswParams, Matrix, MemMatrix};
//! use strata_vector::rng::random_unit_vectors;
//!
//! let dim = 16;
//! let matrix = MemMatrix::from_vec(dim, random_unit_vectors(500, dim, 1))?;
//! let query = matrix.row(42).to_vec();
//!
//! let exact = flat::search(&matrix, &query, 5, None)?;
//! assert_eq!(exact[0].0, 42);
//!
//! let graph = Hnsw::build(&matrix, HnswParams { ef_construction: 64, ..HnswParams::default() })?;
//! let approx = graph.search(&matrix, &query, 5, None)?;
//! assert_eq!(approx[0].0, 42);
//!
//! // Only even rows.
//! let even = |row: u32| row % 2 == 0;
//! let filtered = flat::search(&matrix, &query, 5, Some(&even))?;
//! assert!(filtered.iter().all(|(row, _)| row % 2 == 0));
//! # Ok::<(), strata_vector::VectorError>(())
//! ```
#![warn(missing_docs)]

mod error;
mod fsio;

pub mod bits;
pub mod flat;
pub mod hnsw;
pub mod kernel;
pub mod matrix;
pub mod quant;
pub mod rng;
pub mod topk;

pub use error::VectorError;
pub use hnsw::{Calibration, Hnsw, HnswParams};
pub use matrix::{write_matrix, Matrix, MemMatrix, MmapMatrix};
pub use topk::{Hit, TopK};
