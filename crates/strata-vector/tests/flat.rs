//! Exact search agrees with a naive sort of every score, including filters and ties, on one
//! thread and several, one query at a time and in batches.
//!
//! The vectors have components that are small multiples of 1/4, so every inner product is exact
//! in f32 whatever the summation order: the kernels and the naive sum must agree bit for bit, and
//! the many equal scores exercise the tie rule (higher score, then lower row).

use strata_vector::flat::{search_batch_with_threads, search_with_threads, Filter};
use strata_vector::rng::{random_unit_vectors, SplitMix64};
use strata_vector::{flat, Hit, Matrix, MemMatrix, VectorError};

fn quarter_vectors(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    (0..n * dim).map(|_| (rng.next_u64() % 5) as f32 * 0.25 - 0.5).collect()
}

fn naive(m: &MemMatrix, q: &[f32], k: usize, filter: Option<Filter<'_>>) -> Vec<Hit> {
    let mut all: Vec<Hit> = (0..m.rows())
        .filter(|&r| filter.is_none_or(|f| f(r as u32)))
        .map(|r| (r as u32, m.row(r).iter().zip(q).map(|(a, b)| (a * b) as f64).sum::<f64>() as f32))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

#[test]
fn flat_equals_naive_sort_with_filters_and_ties() {
    let dim = 13;
    let rows = 25_000; // above PARALLEL_MIN_ROWS, so the threaded path runs too
    let m = MemMatrix::from_vec(dim, quarter_vectors(rows, dim, 3)).unwrap();
    let queries = quarter_vectors(9, dim, 4);
    let odd = |r: u32| !r.is_multiple_of(3);
    let rare = |r: u32| r % 997 == 5;
    let none = |_: u32| false;
    let filters: [Option<Filter<'_>>; 4] = [None, Some(&odd), Some(&rare), Some(&none)];
    for filter in filters {
        for k in [0usize, 1, 10, 100] {
            let want: Vec<Vec<Hit>> = queries.chunks(dim).map(|q| naive(&m, q, k, filter)).collect();
            for threads in [1, 2, 3] {
                for (q, w) in queries.chunks(dim).zip(&want) {
                    assert_eq!(
                        &search_with_threads(&m, q, k, filter, threads).unwrap(),
                        w,
                        "k={k} t={threads}"
                    );
                }
                let batch = search_batch_with_threads(&m, &queries, k, filter, threads).unwrap();
                assert_eq!(batch, want, "batch k={k} threads={threads}");
            }
        }
    }
    // Many equal scores: the tie rule is visible.
    let q = &queries[..dim];
    let top = flat::search(&m, q, 100, None).unwrap();
    assert!(top.windows(2).any(|w| w[0].1 == w[1].1), "the data should produce ties");
}

#[test]
fn flat_finds_each_unit_vector_itself() {
    let dim = 384;
    let m = MemMatrix::from_vec(dim, random_unit_vectors(2_000, dim, 9)).unwrap();
    for r in [0usize, 1, 999, 1999] {
        let hits = flat::search(&m, m.row(r), 3, None).unwrap();
        assert_eq!(hits[0].0 as usize, r);
        assert!((hits[0].1 - 1.0).abs() < 1e-5);
    }
    let batch = flat::search_batch(&m, &m.as_slice()[..5 * dim], 1, None).unwrap();
    assert_eq!(batch.iter().map(|h| h[0].0).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn wrong_query_width_is_an_error() {
    let m = MemMatrix::from_vec(4, vec![0.0; 8]).unwrap();
    assert!(matches!(
        flat::search(&m, &[1.0; 3], 1, None),
        Err(VectorError::DimMismatch { expected: 4, got: 3 })
    ));
    assert!(matches!(flat::search_batch(&m, &[1.0; 6], 1, None), Err(VectorError::DimMismatch { .. })));
}

#[test]
fn search_rows_equals_naive_search_inside_the_range() {
    let dim = 13;
    let m = MemMatrix::from_vec(dim, quarter_vectors(3_000, dim, 5)).unwrap();
    let q = quarter_vectors(1, dim, 6);
    let odd = |r: u32| !r.is_multiple_of(3);
    for (range, filter) in
        [(1_000..1_400, None), (1_000..1_400, Some(&odd as Filter<'_>)), (2_900..4_000, None)]
    {
        let inside = |r: u32| range.contains(&(r as usize)) && filter.is_none_or(|f| f(r));
        for k in [0usize, 1, 10, 500] {
            let got = flat::search_rows(&m, &q, k, filter, range.clone()).unwrap();
            assert_eq!(got, naive(&m, &q, k, Some(&inside)), "{range:?} k={k}");
        }
    }
    let err = flat::search_rows(&m, &q[..5], 3, None, 0..10).unwrap_err();
    assert!(matches!(err, VectorError::DimMismatch { .. }), "{err}");
}
