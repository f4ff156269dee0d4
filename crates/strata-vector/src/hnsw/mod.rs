//! HNSW (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using
//! Hierarchical Navigable Small World graphs", 2016/2018) over the rows of a [`Matrix`].
//!
//! The graph stores row numbers only; every call takes the matrix it was built over, and checks
//! its row count and width. Levels are sampled from `seed` per row (`floor(-ln u / ln M)`), so
//! they do not depend on insertion order. Layer 0 keeps up to `2 M` neighbours, upper layers `M`,
//! chosen with the paper's heuristic (`layer.rs`). The build runs on `threads` threads
//! (`build.rs`); the frozen graph is two flat `u32` arrays, searched without locks.
//!
//! **Filters.** A filtered search traverses rejected rows but never returns them (as hnswlib
//! does). When the filter is selective this gets slow and loses recall, so the search first
//! estimates the share of accepted rows on an evenly spaced sample of up to
//! [`FILTER_SAMPLE`] rows and answers with exact [`flat::search`] instead
//! when that share is below [`FLAT_FALLBACK_SHARE`] (10 %) or the estimated number of accepted
//! rows is below `2 × ef`. It also falls back when the graph search returns fewer than `k` rows.
//! Scoring the accepted rows exactly costs at most 10 % of a full scan, less than a graph search
//! that must wade through ten rejected rows for each accepted one.
//!
//! **Persistence** (`persist.rs`): [`Hnsw::save`] / [`Hnsw::load`] write and read a versioned
//! graph file without the vectors.

mod build;
mod calibrate;
mod layer;
mod persist;

use std::sync::Mutex;

pub use calibrate::Calibration;

use layer::{greedy, search_layer, Graph, Scored, Scorer, Visited};

use crate::error::VectorError;
use crate::flat::{self, Filter};
use crate::kernel::dot_fn;
use crate::matrix::{check_dim, check_made_from, Matrix};
use crate::rng::SplitMix64;
use crate::topk::Hit;

pub use persist::{GRAPH_MAGIC, GRAPH_VERSION};

/// Rows sampled to estimate how selective a filter is.
pub const FILTER_SAMPLE: usize = 1024;
/// Below this estimated share of accepted rows a filtered search runs exact flat search.
pub const FLAT_FALLBACK_SHARE: f64 = 0.10;
/// Highest level a node can get (the expected top level for a billion rows at M = 16 is 7).
const MAX_LEVEL: u8 = 31;

/// Build and search parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HnswParams {
    /// Neighbours per node on upper layers (layer 0 keeps `2 m`). Default 16.
    pub m: usize,
    /// Beam width while building. Default 200.
    pub ef_construction: usize,
    /// Beam width while searching (raised to `k` when smaller). Default 128: on clustered
    /// 384-d unit vectors (100k rows, 1,000 clusters) recall@10 is 0.96 at 20 and 1.0 from 80, so
    /// 128 leaves room for harder real data. Uniform random vectors are the exception: there
    /// recall@10 ≥ 0.95 needs `ef` in the thousands (hnswlib alike), where flat search is faster;
    /// see `bench/results/vector.md`. [`Hnsw::calibrate`] picks the width by measurement.
    pub ef_search: usize,
    /// Seed of the level sampling.
    pub seed: u64,
    /// Build threads. Default: `available_parallelism`.
    pub threads: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            m: 16,
            ef_construction: 200,
            ef_search: 128,
            seed: 0x5EED_5EED,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl HnswParams {
    /// Checks the ranges: `m` in 2..=256, `ef_construction` ≥ `m`, `ef_search` ≥ 1, `threads` ≥ 1.
    pub fn validate(&self) -> Result<(), VectorError> {
        if !(2..=256).contains(&self.m) {
            return Err(VectorError::Params(format!("hnsw m must be between 2 and 256, got {}", self.m)));
        }
        if self.ef_construction < self.m || self.ef_construction > 1 << 20 {
            return Err(VectorError::Params(format!(
                "hnsw ef_construction must be between m ({}) and 1048576, got {}",
                self.m, self.ef_construction
            )));
        }
        if self.ef_search == 0 || self.ef_search > 1 << 20 {
            return Err(VectorError::Params(format!(
                "hnsw ef_search must be between 1 and 1048576, got {}",
                self.ef_search
            )));
        }
        if self.threads == 0 {
            return Err(VectorError::Params("hnsw threads must be at least 1, got 0".to_string()));
        }
        Ok(())
    }
}

/// The level of `row`: a pure function of the seed, the row and `m`.
fn sample_level(seed: u64, row: u64, m: usize) -> u8 {
    let mut rng = SplitMix64::new(seed ^ row.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let u = 1.0 - rng.next_f64(); // (0, 1]
    let level = (-u.ln() / (m as f64).ln()).floor();
    level.min(MAX_LEVEL as f64) as u8
}

/// A built HNSW graph over the rows of a matrix.
#[derive(Debug)]
pub struct Hnsw {
    params: HnswParams,
    dim: usize,
    rows: usize,
    entry: Option<u32>,
    top_level: usize,
    levels: Vec<u8>,
    /// Layer 0: `rows × (2m + 1)` slots, count first.
    links0: Vec<u32>,
    /// Per node, where its upper layers start in `upper` (`u32::MAX` on level 0).
    upper_start: Vec<u32>,
    /// Upper layers: for each node of level L ≥ 1, L blocks of `m + 1` slots, count first.
    upper: Vec<u32>,
    /// Reusable visited marks, one per concurrent search.
    pool: Mutex<Vec<Visited>>,
}

impl Graph for Hnsw {
    #[inline]
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(self.list(node, level));
    }
}

impl Hnsw {
    /// Builds a graph over every row of `matrix`.
    pub fn build<M: Matrix + ?Sized>(matrix: &M, params: HnswParams) -> Result<Hnsw, VectorError> {
        params.validate()?;
        if matrix.rows() > u32::MAX as usize - 1 {
            return Err(VectorError::Params(format!(
                "hnsw holds at most 2^32 - 2 rows, got {}",
                matrix.rows()
            )));
        }
        Ok(build::build(matrix, &params))
    }

    /// Freezes per-node lists (node → level → neighbours) into the flat layout.
    fn from_lists(
        params: HnswParams,
        dim: usize,
        entry: Option<u32>,
        top_level: usize,
        levels: Vec<u8>,
        lists: &[Vec<Vec<u32>>],
    ) -> Hnsw {
        let rows = levels.len();
        let (s0, su) = (2 * params.m + 1, params.m + 1);
        let mut links0 = vec![0u32; rows * s0];
        let mut upper_start = vec![u32::MAX; rows];
        let mut upper = Vec::new();
        for (node, node_lists) in lists.iter().enumerate() {
            let l0 = &node_lists[0];
            links0[node * s0] = l0.len() as u32;
            links0[node * s0 + 1..node * s0 + 1 + l0.len()].copy_from_slice(l0);
            if node_lists.len() > 1 {
                upper_start[node] = upper.len() as u32;
                for l in &node_lists[1..] {
                    let at = upper.len();
                    upper.resize(at + su, 0);
                    upper[at] = l.len() as u32;
                    upper[at + 1..at + 1 + l.len()].copy_from_slice(l);
                }
            }
        }
        Hnsw {
            params,
            dim,
            rows,
            entry,
            top_level,
            levels,
            links0,
            upper_start,
            upper,
            pool: Mutex::new(Vec::new()),
        }
    }

    #[inline]
    fn list(&self, node: u32, level: usize) -> &[u32] {
        let n = node as usize;
        let slots = if level == 0 {
            let s0 = 2 * self.params.m + 1;
            &self.links0[n * s0..(n + 1) * s0]
        } else {
            let su = self.params.m + 1;
            let start = self.upper_start[n] as usize + (level - 1) * su;
            &self.upper[start..start + su]
        };
        &slots[1..1 + slots[0] as usize]
    }

    /// The parameters the graph was built (or last tuned) with.
    pub fn params(&self) -> &HnswParams {
        &self.params
    }

    /// Sets the search beam width (recall/speed trade-off); 0 is raised to 1.
    pub fn set_ef_search(&mut self, ef: usize) {
        self.params.ef_search = ef.max(1);
    }

    /// Rows covered by the graph.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Width of the vectors the graph was built over.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The (approximately) best `k` rows for `query`, best first, at beam width
    /// `max(ef_search, k)`. With a filter, see the module docs for when it runs flat search.
    pub fn search<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        query: &[f32],
        k: usize,
        filter: Option<Filter<'_>>,
    ) -> Result<Vec<Hit>, VectorError> {
        check_made_from(matrix, self.dim, self.rows)?;
        check_dim(matrix, query)?;
        let ef = self.params.ef_search.max(k);
        if let Some(keep) = filter {
            if self.too_selective(keep, ef) {
                return flat::search(matrix, query, k, filter);
            }
        }
        let hits = self.search_unchecked(matrix, query, k, ef, filter);
        if filter.is_some() && hits.len() < k {
            return flat::search(matrix, query, k, filter);
        }
        Ok(hits)
    }

    /// [`Hnsw::search`] for each query of `queries` (row-major), spread over
    /// `available_parallelism` threads; results in query order.
    pub fn search_batch<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        queries: &[f32],
        k: usize,
        filter: Option<Filter<'_>>,
    ) -> Result<Vec<Vec<Hit>>, VectorError> {
        check_made_from(matrix, self.dim, self.rows)?;
        if !queries.len().is_multiple_of(self.dim) {
            return Err(VectorError::DimMismatch { expected: self.dim, got: queries.len() % self.dim });
        }
        let nq = queries.len() / self.dim;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, nq.max(1));
        let per = nq.div_ceil(threads.max(1)).max(1);
        let chunks: Vec<&[f32]> = queries.chunks(per * self.dim).collect();
        let results: Vec<Result<Vec<Vec<Hit>>, VectorError>> = std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    s.spawn(move || {
                        chunk.chunks_exact(self.dim).map(|q| self.search(matrix, q, k, filter)).collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("hnsw search thread panicked")).collect()
        });
        let mut out = Vec::with_capacity(nq);
        for r in results {
            out.extend(r?);
        }
        Ok(out)
    }

    /// Whether the filter accepts so few rows that exact search is the better plan.
    fn too_selective(&self, keep: Filter<'_>, ef: usize) -> bool {
        let sample = self.rows.min(FILTER_SAMPLE);
        if sample == 0 {
            return true;
        }
        let accepted = (0..sample).filter(|i| keep((i * self.rows / sample) as u32)).count();
        let share = accepted as f64 / sample as f64;
        share < FLAT_FALLBACK_SHARE || share * (self.rows as f64) < 2.0 * ef as f64
    }

    fn search_unchecked<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        query: &[f32],
        k: usize,
        ef: usize,
        filter: Option<Filter<'_>>,
    ) -> Vec<Hit> {
        let Some(entry) = self.entry else { return Vec::new() };
        if k == 0 {
            return Vec::new();
        }
        let scorer = Scorer { data: matrix.as_slice(), dim: self.dim, query, dot: dot_fn() };
        let mut cur = Scored { score: scorer.score(entry), node: entry };
        for l in (1..=self.top_level).rev() {
            cur = greedy(self, &scorer, cur, l);
        }
        let mut visited = self.take_visited();
        let allowed = filter.map(|f| f as &dyn Fn(u32) -> bool);
        let found = search_layer(self, &scorer, cur, ef, 0, &mut visited, allowed);
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(visited);
        found.into_iter().take(k).map(|s| (s.node, s.score)).collect()
    }

    fn take_visited(&self) -> Visited {
        let pooled = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        pooled.unwrap_or_else(|| Visited::new(self.rows))
    }
}
