//! Search throughput on 100,000 random unit vectors of width 384 (seeded), the size of a large
//! strata corpus with all-MiniLM-L6-v2 embeddings.
//!
//! - `flat_single`: one `flat::search` (k = 10), threads as `flat::threads_for` picks;
//! - `flat_batch_100`: one `flat::search_batch` of 100 queries (throughput counts queries);
//! - `hnsw_search`: one `Hnsw::search` at the default `ef_search` (graph built once at setup,
//!   default parameters, which takes a while).
//!
//! Run: `cargo bench -p strata-vector --bench vector`. The comparison with FAISS and hnswlib on
//! the same vectors is `scripts/bench/vector_peers.py` (results in `bench/results/vector.md`).

use std::sync::OnceLock;

use divan::counter::ItemsCount;
use divan::Bencher;
use strata_vector::rng::random_unit_vectors;
use strata_vector::{flat, Hnsw, HnswParams, Matrix, MemMatrix};

const ROWS: usize = 100_000;
const DIM: usize = 384;
const QUERIES: usize = 100;
const K: usize = 10;

struct Setup {
    matrix: MemMatrix,
    queries: Vec<f32>,
    graph: OnceLock<Hnsw>,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

fn setup() -> &'static Setup {
    SETUP.get_or_init(|| Setup {
        matrix: MemMatrix::from_vec(DIM, random_unit_vectors(ROWS, DIM, 42)).expect("matrix"),
        queries: random_unit_vectors(QUERIES, DIM, 43),
        graph: OnceLock::new(),
    })
}

fn graph() -> &'static Hnsw {
    let s = setup();
    s.graph.get_or_init(|| Hnsw::build(&s.matrix, HnswParams::default()).expect("graph"))
}

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 20)]
fn flat_single(bencher: Bencher) {
    let s = setup();
    let mut i = 0;
    bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
        i = (i + 1) % QUERIES;
        flat::search(&s.matrix, &s.queries[i * DIM..(i + 1) * DIM], K, None).expect("search")
    });
}

#[divan::bench(sample_count = 10)]
fn flat_batch_100(bencher: Bencher) {
    let s = setup();
    bencher
        .counter(ItemsCount::new(QUERIES))
        .bench_local(|| flat::search_batch(&s.matrix, &s.queries, K, None).expect("batch"));
}

#[divan::bench(sample_count = 20)]
fn hnsw_search(bencher: Bencher) {
    let s = setup();
    let g = graph();
    assert_eq!(g.rows(), s.matrix.rows());
    let mut i = 0;
    bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
        i = (i + 1) % QUERIES;
        g.search(&s.matrix, &s.queries[i * DIM..(i + 1) * DIM], K, None).expect("search")
    });
}
