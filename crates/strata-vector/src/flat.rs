//! Exact inner-product search: score every row, keep the best `k`.
//!
//! Rows are split into one contiguous range per thread (`std::thread::scope`; one thread below
//! [`PARALLEL_MIN_ROWS`] rows, where spawning costs more than it saves); each thread keeps its own
//! [`TopK`] and the lists are merged, so the answer does not depend on the thread count.
//!
//! A batch of queries is scored block by block: a block of rows small enough to stay in L2 is
//! scored against every query (in chunks of [`QUERY_CHUNK`]) with the 3 × 4 register-tiled
//! kernel before the next block is read, so the matrix streams from memory once per query chunk
//! instead of once per query. FAISS reaches the same effect through BLAS `sgemm`.
//!
//! A filter is called once per row and row number; rows it rejects are not returned. A single
//! query with a filter only scores the rows the filter accepts.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::VectorError;
use crate::kernel::{dot_fn, prefetch, scores_block, PREFETCH_AHEAD};
use crate::matrix::{check_dim, Matrix};
use crate::topk::{merge, Hit, TopK};

/// A row filter: `true` keeps the row. Must be `Sync` because rows are scanned on several threads.
pub type Filter<'a> = &'a (dyn Fn(u32) -> bool + Sync);

/// Below this many rows a search runs on the calling thread only.
pub const PARALLEL_MIN_ROWS: usize = 20_000;

/// Queries scored together against one block of rows in [`search_batch`].
pub const QUERY_CHUNK: usize = 128;

/// Bytes of rows per block in [`search_batch`] (about half of a typical L2 cache).
const BLOCK_BYTES: usize = 128 * 1024;

/// The number of threads a search over `rows` rows uses: 1 below [`PARALLEL_MIN_ROWS`], else
/// `std::thread::available_parallelism`, at most one per [`PARALLEL_MIN_ROWS`] / 2 rows.
pub fn threads_for(rows: usize) -> usize {
    if rows < PARALLEL_MIN_ROWS {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(rows / (PARALLEL_MIN_ROWS / 2)).max(1)
}

/// The best `k` rows for `query` by inner product, best first (ties: lower row first).
pub fn search<M: Matrix + ?Sized>(
    matrix: &M,
    query: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
) -> Result<Vec<Hit>, VectorError> {
    search_with_threads(matrix, query, k, filter, threads_for(matrix.rows()))
}

/// [`search`] on exactly `threads` threads (at least 1); for benchmarks and tests.
pub fn search_with_threads<M: Matrix + ?Sized>(
    matrix: &M,
    query: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
    threads: usize,
) -> Result<Vec<Hit>, VectorError> {
    check_dim(matrix, query)?;
    let lists = on_threads(matrix.rows(), threads, |range| scan_one(matrix, query, k, filter, range));
    Ok(merge(lists, k))
}

/// [`search`] over the rows of `rows` alone, on the calling thread: exact, for a few rows
/// (one document's) that a scan of the whole matrix would find at its cost.
pub fn search_rows<M: Matrix + ?Sized>(
    matrix: &M,
    query: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
    rows: Range<usize>,
) -> Result<Vec<Hit>, VectorError> {
    check_dim(matrix, query)?;
    Ok(scan_one(matrix, query, k, filter, rows.start.min(matrix.rows())..rows.end.min(matrix.rows())))
}

/// The best `k` rows for each query of `queries` (row-major, `dim` floats each), in query order.
pub fn search_batch<M: Matrix + ?Sized>(
    matrix: &M,
    queries: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
) -> Result<Vec<Vec<Hit>>, VectorError> {
    search_batch_with_threads(matrix, queries, k, filter, threads_for(matrix.rows()))
}

/// [`search_batch`] on exactly `threads` threads (at least 1); for benchmarks and tests.
pub fn search_batch_with_threads<M: Matrix + ?Sized>(
    matrix: &M,
    queries: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
    threads: usize,
) -> Result<Vec<Vec<Hit>>, VectorError> {
    let dim = matrix.dim();
    if !queries.len().is_multiple_of(dim) {
        return Err(VectorError::DimMismatch { expected: dim, got: queries.len() % dim });
    }
    let nq = queries.len() / dim;
    let mut per_thread =
        on_threads(matrix.rows(), threads, |range| scan_batch(matrix, queries, k, filter, range));
    let mut out = Vec::with_capacity(nq);
    for q in 0..nq {
        out.push(merge(per_thread.iter_mut().map(|lists| std::mem::take(&mut lists[q])), k));
    }
    Ok(out)
}

/// Runs `job` on `threads` contiguous row ranges covering `0..rows` and collects the results.
pub(crate) fn on_threads<T: Send>(
    rows: usize,
    threads: usize,
    job: impl Fn(Range<usize>) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, rows.max(1));
    if threads == 1 {
        return vec![job(0..rows)];
    }
    let per = rows.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let range = (t * per).min(rows)..((t + 1) * per).min(rows);
                let job = &job;
                s.spawn(move || job(range))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("flat search thread panicked")).collect()
    })
}

/// Row blocks per thread in [`on_blocks`].
const BLOCKS_PER_THREAD: usize = 8;

/// Runs `job` over contiguous blocks of rows covering `0..rows` on `threads` threads (the
/// calling one among them), each thread with its own state from `init`, and returns the
/// states. A thread takes the next block when it is done with one, so a thread that shares its
/// core with other work (the dense leg runs beside the lexical legs) does less, where one fixed
/// range a thread would make the search wait for it. The state (a top-k) carries over from one
/// block to the next, so its threshold does too.
pub(crate) fn on_blocks<S: Send>(
    rows: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    job: impl Fn(&mut S, Range<usize>) + Sync,
) -> Vec<S> {
    let threads = threads.clamp(1, rows.max(1));
    let per = rows.div_ceil(threads * BLOCKS_PER_THREAD).max(1);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<S>> = Mutex::new(Vec::with_capacity(threads));
    let work = || {
        let mut state = init();
        loop {
            let block = next.fetch_add(1, Ordering::Relaxed);
            if block * per >= rows {
                break;
            }
            job(&mut state, block * per..((block + 1) * per).min(rows));
        }
        done.lock().unwrap_or_else(|e| e.into_inner()).push(state);
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// One query over `range`.
fn scan_one<M: Matrix + ?Sized>(
    matrix: &M,
    query: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
    range: Range<usize>,
) -> Vec<Hit> {
    let mut top = TopK::new(k);
    if k == 0 {
        return Vec::new();
    }
    let dim = matrix.dim();
    let data = matrix.as_slice();
    if let Some(keep) = filter {
        let dot = dot_fn();
        for r in range {
            if keep(r as u32) {
                top.push(r as u32, dot(&data[r * dim..(r + 1) * dim], query));
            }
        }
        return top.into_sorted_vec();
    }
    // One row after the other with the 4-accumulator `dot`: a single sequential stream, which
    // measured twice as fast as the register-tiled block kernel with one query.
    let dot = dot_fn();
    let mut threshold = f32::NEG_INFINITY;
    let ahead = (PREFETCH_AHEAD / std::mem::size_of_val(query)).max(1);
    for r in range {
        prefetch(data, (r + ahead) * dim, dim);
        let s = dot(&data[r * dim..(r + 1) * dim], query);
        if s > threshold {
            top.push(r as u32, s);
            threshold = top.threshold();
        }
    }
    top.into_sorted_vec()
}

/// Offers `scores` (for rows `first..`) to `top`; rows are increasing, so an equal score never
/// beats a kept one and a strict comparison with the threshold is exact.
#[inline]
fn push_scores(top: &mut TopK, first: usize, scores: &[f32], mask: Option<&[bool]>) {
    let mut threshold = top.threshold();
    for (i, &s) in scores.iter().enumerate() {
        if s > threshold && mask.is_none_or(|m| m[i]) {
            top.push((first + i) as u32, s);
            threshold = top.threshold();
        }
    }
}

/// Every query over `range`, block by block; one list per query.
fn scan_batch<M: Matrix + ?Sized>(
    matrix: &M,
    queries: &[f32],
    k: usize,
    filter: Option<Filter<'_>>,
    range: Range<usize>,
) -> Vec<Vec<Hit>> {
    let dim = matrix.dim();
    let nq = queries.len() / dim;
    let mut tops: Vec<TopK> = (0..nq).map(|_| TopK::new(k)).collect();
    if k == 0 {
        return vec![Vec::new(); nq];
    }
    let data = matrix.as_slice();
    let block = (BLOCK_BYTES / (dim * 4)).clamp(4, 4096) / 3 * 3 + 3;
    let mut scores = vec![0.0f32; block * QUERY_CHUNK.min(nq)];
    let mut mask = vec![true; block];
    for q0 in (0..nq).step_by(QUERY_CHUNK) {
        let q1 = (q0 + QUERY_CHUNK).min(nq);
        let chunk = &queries[q0 * dim..q1 * dim];
        let mut start = range.start;
        while start < range.end {
            let end = (start + block).min(range.end);
            let n = end - start;
            let mask = filter.map(|keep| {
                for (i, m) in mask[..n].iter_mut().enumerate() {
                    *m = keep((start + i) as u32);
                }
                &mask[..n]
            });
            if mask.is_none_or(|m| m.iter().any(|x| *x)) {
                scores_block(&data[start * dim..end * dim], chunk, dim, &mut scores[..n * (q1 - q0)]);
                for (j, top) in tops[q0..q1].iter_mut().enumerate() {
                    push_scores(top, start, &scores[j * n..(j + 1) * n], mask);
                }
            }
            start = end;
        }
    }
    tops.into_iter().map(TopK::into_sorted_vec).collect()
}

/// How many candidates ahead [`rescore`] prefetches a row.
const RESCORE_AHEAD: usize = 4;

/// The best `k` of `candidates` (rows of `matrix`) by their exact score against `query`: the
/// second pass of the quantized scans. The rows are scattered, so each is prefetched a few
/// candidates before it is scored.
pub(crate) fn rescore<M: Matrix + ?Sized>(
    matrix: &M,
    query: &[f32],
    candidates: &[Hit],
    k: usize,
) -> Vec<Hit> {
    let (dot, dim, data) = (dot_fn(), matrix.dim(), matrix.as_slice());
    let mut top = TopK::new(k);
    for (i, &(row, _)) in candidates.iter().enumerate() {
        if let Some(&(next, _)) = candidates.get(i + RESCORE_AHEAD) {
            prefetch(data, next as usize * dim, dim);
        }
        let r = row as usize;
        top.push(row, dot(&data[r * dim..(r + 1) * dim], query));
    }
    top.into_sorted_vec()
}
