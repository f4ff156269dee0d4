//! Choosing `ef_search` by measurement on the graph's own data.
//!
//! A fixed beam width cannot suit every set of vectors: real embeddings reach recall@10 of
//! 0.99 at `ef` 128, uniform random ones need thousands. [`Hnsw::calibrate`] uses sample rows
//! as queries (each with its own row filtered out, so it cannot find itself), doubles `ef`
//! from the current value until recall@k against exact search reaches the target, and keeps
//! that width. It also times both searches, so the caller can drop a graph that is slower than
//! a flat scan at the recall it needs.

use std::collections::HashSet;
use std::time::Instant;

use super::Hnsw;
use crate::error::VectorError;
use crate::flat;
use crate::matrix::{check_made_from, Matrix};

/// What [`Hnsw::calibrate`] measured at the width it chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The chosen `ef_search` (now the graph's).
    pub ef_search: usize,
    /// recall@k at that width on the sample.
    pub recall: f64,
    /// Whether `recall` reached the target before `max_ef`.
    pub reached: bool,
    /// Queries per second of the graph at that width, one thread.
    pub hnsw_qps: f64,
    /// Queries per second of exact flat search on the same queries.
    pub flat_qps: f64,
}

impl Calibration {
    /// Whether the graph is worth keeping: it reached the target and beats a flat scan.
    pub fn pays_off(&self) -> bool {
        self.reached && self.hnsw_qps > self.flat_qps
    }
}

impl Hnsw {
    /// Raises `ef_search` (doubling, at most `max_ef`) until recall@`k` on `samples` evenly
    /// spaced rows reaches `target`; sets it and reports what it measured.
    pub fn calibrate<M: Matrix + ?Sized>(
        &mut self,
        matrix: &M,
        k: usize,
        target: f64,
        samples: usize,
        max_ef: usize,
    ) -> Result<Calibration, VectorError> {
        check_made_from(matrix, self.dim, self.rows)?;
        let rows = matrix.rows();
        let step = (rows / samples.max(1)).max(1);
        let queries: Vec<usize> = (0..rows).step_by(step).take(samples.max(1)).collect();
        let started = Instant::now();
        let mut exact = Vec::with_capacity(queries.len());
        for &q in &queries {
            let others = move |r: u32| r as usize != q;
            let hits = flat::search_with_threads(matrix, matrix.row(q), k, Some(&others), 1)?;
            exact.push(hits.into_iter().map(|h| h.0).collect::<HashSet<u32>>());
        }
        let flat_qps = queries.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);

        let mut ef = self.params.ef_search.max(k);
        loop {
            let started = Instant::now();
            let mut found = 0usize;
            let mut wanted = 0usize;
            for (&q, want) in queries.iter().zip(&exact) {
                let others = move |r: u32| r as usize != q;
                let got = self.search_unchecked(matrix, matrix.row(q), k, ef, Some(&others));
                found += got.iter().filter(|h| want.contains(&h.0)).count();
                wanted += want.len();
            }
            let hnsw_qps = queries.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let recall = if wanted == 0 { 1.0 } else { found as f64 / wanted as f64 };
            let reached = recall >= target;
            if reached || ef >= max_ef {
                self.params.ef_search = ef;
                return Ok(Calibration { ef_search: ef, recall, reached, hnsw_qps, flat_qps });
            }
            ef = (ef * 2).min(max_ef);
        }
    }
}
