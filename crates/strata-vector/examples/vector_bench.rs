//! The strata side of the peer comparison (`scripts/bench/vector_peers.py` runs it).
//!
//! Writes `data.vec` (rows × dim) and `queries.vec` (queries × dim) as matrix files into `--dir`
//! (unit vectors from `--seed`, uniform or, with `--data clustered:<clusters>:<spread>`, around
//! cluster centres; header 64 bytes, then little-endian f32, which the Python
//! side reads with `numpy.fromfile(offset=64)`), opens them memory-mapped and measures:
//!
//! - flat single query: `flat::search` per query, in a loop (threads: `threads_for(rows)`), and
//!   the same on one thread (`flat_single_1t`);
//! - flat batch: `flat::search_batch` over batches of `--batch` queries;
//! - int8 quantized scan with f32 rescoring of 4 × k (`quant`), one query at a time;
//! - HNSW: build time (`--threads`), then for each `--ef` value, QPS of `Hnsw::search_batch`
//!   (queries spread over the threads) and recall@k against the exact answers.
//!
//! Prints one `RESULT name value` line per number. `--ef none` skips HNSW; `--graph FILE` loads
//! the graph from FILE when it exists (else builds and saves it there); `--hnsw-only 1` skips the
//! flat and quantized timings.
//!
//! ```text
//! cargo build --release -p strata-vector --example vector_bench -j 2
//! target/release/examples/vector_bench --dir /tmp/vecbench-data --rows 100000 --dim 384
//! ```

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use strata_vector::quant::{QuantMatrix, DEFAULT_RESCORE};
use strata_vector::rng::{clustered_unit_vectors, random_unit_vectors};
use strata_vector::{flat, write_matrix, Hit, Hnsw, HnswParams, Matrix, MmapMatrix};

struct Args {
    dir: PathBuf,
    rows: usize,
    dim: usize,
    queries: usize,
    k: usize,
    seed: u64,
    batch: usize,
    m: usize,
    ef_construction: usize,
    threads: usize,
    efs: Vec<usize>,
    min_time: Duration,
    /// `random`, or `clustered:<clusters>:<spread>` (see `rng::clustered_unit_vectors`).
    data: String,
    /// Graph file: loaded when it exists (no build), else built and saved there.
    graph: Option<PathBuf>,
    /// Skip the flat and quantized timings (HNSW rounds).
    hnsw_only: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        dir: PathBuf::from("/tmp/vecbench-data"),
        rows: 100_000,
        dim: 384,
        queries: 200,
        k: 10,
        seed: 42,
        batch: 100,
        m: 16,
        ef_construction: 200,
        threads: 2,
        efs: vec![50, 100, 200, 400, 800],
        min_time: Duration::from_secs(3),
        data: "random".to_string(),
        graph: None,
        hnsw_only: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).cloned().unwrap_or_default();
        let num = || v.parse::<usize>().unwrap_or_else(|_| panic!("{} needs a number, got {v:?}", pair[0]));
        match pair[0].as_str() {
            "--dir" => a.dir = PathBuf::from(&v),
            "--rows" => a.rows = num(),
            "--dim" => a.dim = num(),
            "--queries" => a.queries = num(),
            "--k" => a.k = num(),
            "--seed" => a.seed = num() as u64,
            "--batch" => a.batch = num(),
            "--m" => a.m = num(),
            "--ef-construction" => a.ef_construction = num(),
            "--threads" => a.threads = num(),
            "--min-secs" => a.min_time = Duration::from_secs_f64(v.parse().expect("--min-secs")),
            "--data" => a.data = v.clone(),
            "--graph" => a.graph = Some(PathBuf::from(&v)),
            "--hnsw-only" => a.hnsw_only = v == "1",
            "--ef" if v == "none" => a.efs = Vec::new(),
            "--ef" => a.efs = v.split(',').map(|x| x.parse().expect("--ef list")).collect(),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Runs `pass` until `min` has elapsed (at least twice); returns passes per second.
fn rate(min: Duration, mut pass: impl FnMut()) -> f64 {
    pass(); // warm-up: page the map in, fill caches
    let start = Instant::now();
    let mut n = 0u32;
    while n < 2 || start.elapsed() < min {
        pass();
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn recall(exact: &[Vec<Hit>], got: &[Vec<Hit>], k: usize) -> f64 {
    let mut hit = 0usize;
    for (e, g) in exact.iter().zip(got) {
        let want: HashSet<u32> = e.iter().take(k).map(|h| h.0).collect();
        hit += g.iter().take(k).filter(|h| want.contains(&h.0)).count();
    }
    hit as f64 / (exact.len() * k) as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = parse_args();
    std::fs::create_dir_all(&a.dir)?;
    let (data_path, query_path) = (a.dir.join("data.vec"), a.dir.join("queries.vec"));
    let (rows, queries) = if a.data == "random" {
        (random_unit_vectors(a.rows, a.dim, a.seed), random_unit_vectors(a.queries, a.dim, a.seed + 1))
    } else {
        // Queries are drawn from the same clusters (same centres: same seed), after the rows.
        let parts: Vec<&str> = a.data.split(':').collect();
        let (clusters, spread) = match parts.as_slice() {
            ["clustered", c, s] => (c.parse().expect("clusters"), s.parse().expect("spread")),
            _ => panic!("--data is random or clustered:<clusters>:<spread>, got {}", a.data),
        };
        let all = clustered_unit_vectors(a.rows + a.queries, a.dim, clusters, spread, a.seed);
        let (r, q) = all.split_at(a.rows * a.dim);
        (r.to_vec(), q.to_vec())
    };
    write_matrix(&data_path, a.dim, &rows)?;
    write_matrix(&query_path, a.dim, &queries)?;
    drop((rows, queries));
    let data = MmapMatrix::open(&data_path)?;
    let queries = MmapMatrix::open(&query_path)?;
    let (k, nq) = (a.k, a.queries);
    println!("RESULT rows {}", a.rows);
    println!("RESULT dim {}", a.dim);
    println!("RESULT queries {nq}");
    println!("RESULT avx2_fma {}", strata_vector::kernel::has_avx2_fma() as u8);
    println!("RESULT flat_threads {}", flat::threads_for(a.rows));

    let exact = flat::search_batch(&data, queries.as_slice(), k, None)?;

    if !a.hnsw_only {
        let single_qps = rate(a.min_time, || {
            for q in 0..nq {
                std::hint::black_box(flat::search(&data, queries.row(q), k, None).expect("search"));
            }
        }) * nq as f64;
        println!("RESULT flat_single_qps {single_qps:.1}");
        let single_1t_qps = rate(a.min_time, || {
            for q in 0..nq {
                let hits = flat::search_with_threads(&data, queries.row(q), k, None, 1).expect("search");
                std::hint::black_box(hits);
            }
        }) * nq as f64;
        println!("RESULT flat_single_1t_qps {single_1t_qps:.1}");
        let batch = a.batch.min(nq);
        let batch_qps = rate(a.min_time, || {
            for chunk in queries.as_slice().chunks(batch * a.dim) {
                std::hint::black_box(flat::search_batch(&data, chunk, k, None).expect("batch"));
            }
        }) * nq as f64;
        println!("RESULT flat_batch_qps {batch_qps:.1}");

        let started = Instant::now();
        let quant = QuantMatrix::from_matrix(&data);
        println!("RESULT quant_build_s {:.3}", started.elapsed().as_secs_f64());
        let mut got = Vec::new();
        let quant_qps = rate(a.min_time, || {
            got = (0..nq)
                .map(|q| quant.search(&data, queries.row(q), k, DEFAULT_RESCORE, None).expect("quant"))
                .collect();
        }) * nq as f64;
        println!("RESULT quant_single_qps {quant_qps:.1}");
        println!("RESULT quant_recall {:.4}", recall(&exact, &got, k));
    }

    if a.efs.is_empty() {
        return Ok(()); // `--ef none`: flat only
    }
    let params = HnswParams {
        m: a.m,
        ef_construction: a.ef_construction,
        threads: a.threads,
        ..HnswParams::default()
    };
    let mut graph = match &a.graph {
        Some(path) if path.exists() => Hnsw::load(path, &data)?,
        _ => {
            let start = Instant::now();
            let graph = Hnsw::build(&data, params)?;
            println!("RESULT hnsw_build_s {:.2}", start.elapsed().as_secs_f64());
            if let Some(path) = &a.graph {
                graph.save(path)?;
            }
            graph
        }
    };
    for &ef in &a.efs {
        graph.set_ef_search(ef);
        let mut got = Vec::new();
        let qps = rate(a.min_time, || {
            got = graph.search_batch(&data, queries.as_slice(), k, None).expect("hnsw");
        }) * nq as f64;
        println!("RESULT hnsw_ef{ef}_qps {qps:.1}");
        println!("RESULT hnsw_ef{ef}_recall {:.4}", recall(&exact, &got, k));
    }
    Ok(())
}
