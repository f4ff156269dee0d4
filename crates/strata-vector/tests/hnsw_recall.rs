//! HNSW agrees with exact search: recall@10 against `flat::search` over 200 queries.
//!
//! Two kinds of data:
//! - clustered unit vectors (queries from the same clusters), the shape of real embeddings,
//!   where the default parameters must reach recall@10 ≥ 0.95;
//! - uniform random unit vectors with independent queries, the hardest case there is: in 384
//!   dimensions every pair is nearly orthogonal (cosine ≈ N(0, 1/384)), the true top 10 stand out
//!   by a few hundredths, and no graph has structure to exploit. hnswlib behaves the same way
//!   (see `bench/results/vector.md`). Recall must still rise towards 1 as `ef` grows.

use std::collections::HashSet;

use strata_vector::rng::{clustered_unit_vectors, random_unit_vectors};
use strata_vector::{flat, Hnsw, HnswParams, Matrix, MemMatrix};

const K: usize = 10;
const DIM: usize = 384;

fn recall(graph: &Hnsw, m: &MemMatrix, queries: &[f32], filter: Option<flat::Filter<'_>>) -> f64 {
    let exact = flat::search_batch(m, queries, K, filter).unwrap();
    let got = graph.search_batch(m, queries, K, filter).unwrap();
    let mut hits = 0;
    for (e, g) in exact.iter().zip(&got) {
        let want: HashSet<u32> = e.iter().map(|h| h.0).collect();
        hits += g.iter().filter(|h| want.contains(&h.0)).count();
        assert!(g.windows(2).all(|w| w[0].1 >= w[1].1), "hits must be sorted best first");
    }
    hits as f64 / (exact.len() * K) as f64
}

fn clustered(rows: usize, queries: usize) -> (MemMatrix, Vec<f32>) {
    let all = clustered_unit_vectors(rows + queries, DIM, 100, 0.05, 17);
    let (r, q) = all.split_at(rows * DIM);
    (MemMatrix::from_vec(DIM, r.to_vec()).unwrap(), q.to_vec())
}

#[test]
fn clustered_20k_default_params_recall() {
    let (m, queries) = clustered(20_000, 200);
    let started = std::time::Instant::now();
    let graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    let built = started.elapsed();
    let r = recall(&graph, &m, &queries, None);
    eprintln!("clustered 20k: build {built:?}, recall@10 {r:.4} at ef {}", graph.params().ef_search);
    assert!(r >= 0.95, "recall@10 {r}");
}

#[test]
fn filtered_search_returns_only_accepted_rows() {
    let (m, queries) = clustered(20_000, 100);
    let graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    // Half the rows: the graph search runs, traversing rejected rows.
    let even = |r: u32| r.is_multiple_of(2);
    let r = recall(&graph, &m, &queries, Some(&even));
    for q in queries.chunks(DIM).take(20) {
        assert!(graph.search(&m, q, K, Some(&even)).unwrap().iter().all(|h| h.0 % 2 == 0));
    }
    assert!(r >= 0.95, "filtered recall@10 {r}");
    // 1 % of the rows: below the fallback share, so the answer is exact.
    let rare = |r: u32| r % 100 == 7;
    for q in queries.chunks(DIM).take(20) {
        assert_eq!(
            graph.search(&m, q, K, Some(&rare)).unwrap(),
            flat::search(&m, q, K, Some(&rare)).unwrap()
        );
    }
    // Nothing accepted.
    let none = |_: u32| false;
    assert!(graph.search(&m, &queries[..DIM], K, Some(&none)).unwrap().is_empty());
}

#[test]
fn single_thread_build_is_deterministic() {
    let m = MemMatrix::from_vec(32, random_unit_vectors(3_000, 32, 8)).unwrap();
    let params = HnswParams { threads: 1, ef_construction: 50, ..HnswParams::default() };
    let (a, b) = (Hnsw::build(&m, params.clone()).unwrap(), Hnsw::build(&m, params).unwrap());
    let dir = tempfile::tempdir().unwrap();
    a.save(&dir.path().join("a")).unwrap();
    b.save(&dir.path().join("b")).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a")).unwrap(), std::fs::read(dir.path().join("b")).unwrap());
}

#[test]
fn every_row_finds_itself() {
    let m = MemMatrix::from_vec(DIM, random_unit_vectors(5_000, DIM, 21)).unwrap();
    let graph = Hnsw::build(&m, HnswParams { ef_construction: 100, ..HnswParams::default() }).unwrap();
    let found =
        (0..m.rows()).filter(|&r| graph.search(&m, m.row(r), 1, None).unwrap()[0].0 as usize == r).count();
    assert!(found as f64 >= 0.999 * m.rows() as f64, "{found} of {} rows find themselves", m.rows());
}

#[test]
fn random_20k_recall_rises_with_ef() {
    let m = MemMatrix::from_vec(DIM, random_unit_vectors(20_000, DIM, 42)).unwrap();
    let queries = random_unit_vectors(200, DIM, 43);
    let mut graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    let mut last = 0.0;
    for ef in [100, 400, 1600] {
        graph.set_ef_search(ef);
        let r = recall(&graph, &m, &queries, None);
        eprintln!("random 20k: ef {ef} recall@10 {r:.4}");
        assert!(r > last, "recall must rise with ef");
        last = r;
    }
    assert!(last >= 0.95, "recall@10 at ef 1600: {last}");
}

/// The 100k uniform random set of the benchmarks. Ignored by default: the build alone takes
/// about 100 s on two cores. Run it with
/// `cargo test -p strata-vector --test hnsw_recall -- --ignored --nocapture`.
///
/// With default parameters recall@10 on this set is far below 0.95 (the module docs say why);
/// the test records the curve and checks that a wide beam gets there.
#[test]
#[ignore = "100k build takes about 100 s"]
fn random_100k_recall_curve() {
    let m = MemMatrix::from_vec(DIM, random_unit_vectors(100_000, DIM, 42)).unwrap();
    let queries = random_unit_vectors(200, DIM, 43);
    let started = std::time::Instant::now();
    let mut graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    eprintln!("random 100k: build {:?}", started.elapsed());
    let mut last = 0.0;
    for ef in [HnswParams::default().ef_search, 1600, 3200, 6400] {
        graph.set_ef_search(ef);
        let started = std::time::Instant::now();
        let r = recall(&graph, &m, &queries, None);
        eprintln!("random 100k: ef {ef} recall@10 {r:.4} ({:?} for 200 queries + exact)", started.elapsed());
        assert!(r > last, "recall must rise with ef");
        last = r;
    }
    assert!(last >= 0.95, "recall@10 at ef 6400: {last}");
}

/// Regression: a concurrent build overwrote a node's own list on a level where another thread had
/// already linked to it, losing edges; 500-row graphs built on 2 threads then missed a row's own
/// vector about twice per build (409 misses in 200 builds), single-threaded builds never.
#[test]
fn regression_concurrent_build_keeps_edges() {
    let dim = 16;
    let m = MemMatrix::from_vec(dim, random_unit_vectors(500, dim, 1)).unwrap();
    let params = HnswParams { ef_construction: 64, threads: 2, ..HnswParams::default() };
    let mut misses = 0;
    for _ in 0..30 {
        let graph = Hnsw::build(&m, params.clone()).unwrap();
        misses += (0..m.rows())
            .filter(|&r| graph.search(&m, m.row(r), 5, None).unwrap()[0].0 as usize != r)
            .count();
    }
    assert!(misses <= 3, "{misses} of 15000 self-queries missed");
}

/// Calibration makes the default parameters meet the recall target on any data: on uniform
/// random vectors (where `ef` 128 gives about 0.2) it widens the beam until recall@10 ≥ 0.95 on
/// its sample, and independent queries then see about the same recall.
#[test]
fn calibration_reaches_the_target_on_random_vectors() {
    let all = random_unit_vectors(10_000 + 200, DIM, 5);
    let (rows, queries) = all.split_at(10_000 * DIM);
    let m = MemMatrix::from_vec(DIM, rows.to_vec()).unwrap();
    let mut graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    let before = recall(&graph, &m, queries, None);
    let c = graph.calibrate(&m, K, 0.95, 200, 8192).unwrap();
    let after = recall(&graph, &m, queries, None);
    eprintln!("random 10k: recall {before:.3} at ef 128; calibrated {c:?}; independent queries {after:.3}");
    assert!(c.reached && c.recall >= 0.95, "{c:?}");
    assert!(c.ef_search > 128, "random data needs a wider beam: {c:?}");
    assert!(after >= 0.93, "independent queries at the calibrated width: {after}");
}

/// On clustered data the default width already meets the target and calibration keeps it.
#[test]
fn calibration_keeps_the_default_where_it_suffices() {
    let (m, _) = clustered(10_000, 0);
    let mut graph = Hnsw::build(&m, HnswParams::default()).unwrap();
    let c = graph.calibrate(&m, K, 0.95, 200, 8192).unwrap();
    assert_eq!(c.ef_search, 128, "{c:?}");
    assert!(c.reached);
}
