//! HNSW recall@10 with default parameters against exact search on an existing matrix file
//! (for instance an index's `vectors/seg-*.vec`): every `STEP`th row is a query, with its own
//! row filtered out of both searches.
//!
//! ```text
//! cargo run --release -p strata-vector --example recall_on -- .strata/vectors/seg-000000.vec [STEP]
//! ```

use std::collections::HashSet;
use std::time::Instant;

use strata_vector::{flat, Hnsw, HnswParams, Matrix, MmapMatrix};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: recall_on MATRIX.vec [STEP]")?;
    let step: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(10);
    let matrix = MmapMatrix::open(std::path::Path::new(path))?;
    let params = HnswParams::default();
    let t = Instant::now();
    let graph = Hnsw::build(&matrix, params.clone())?;
    let build = t.elapsed().as_secs_f64();
    let (mut found, mut wanted, mut queries) = (0usize, 0usize, 0usize);
    let (mut t_flat, mut t_hnsw) = (0.0, 0.0);
    for q in (0..matrix.rows()).step_by(step) {
        let others = move |r: u32| r as usize != q;
        let t = Instant::now();
        let exact = flat::search(&matrix, matrix.row(q), 10, Some(&others))?;
        t_flat += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let approx: HashSet<u32> =
            graph.search(&matrix, matrix.row(q), 10, Some(&others))?.iter().map(|h| h.0).collect();
        t_hnsw += t.elapsed().as_secs_f64();
        found += exact.iter().filter(|h| approx.contains(&h.0)).count();
        wanted += exact.len();
        queries += 1;
    }
    println!(
        "rows={} dim={} m={} ef_construction={} ef_search={} build_s={build:.2} queries={queries} \
         recall@10={:.4} flat_qps={:.0} hnsw_qps={:.0}",
        matrix.rows(),
        matrix.dim(),
        params.m,
        params.ef_construction,
        params.ef_search,
        found as f64 / wanted as f64,
        queries as f64 / t_flat,
        queries as f64 / t_hnsw
    );
    Ok(())
}
