//! Inner-product kernels: `dot` for one pair of vectors and `scores_block` for many rows against
//! many queries.
//!
//! Both dispatch at run time: on x86-64 with AVX2 and FMA they run `#[target_feature]` code with
//! unaligned loads and independent accumulators (so the FMA latency is hidden); elsewhere they
//! run portable code written so that LLVM auto-vectorizes it (eight independent lanes, which it
//! maps to SIMD registers without reordering a float sum it is not allowed to reorder).
//!
//! `scores_block` is the batch kernel: it scores tiles of 3 rows × 4 queries at a time, so every
//! 8-float load of a row feeds 4 FMAs and every load of a query feeds 3, keeping the 12
//! accumulators and the 4 live inputs within the 16 AVX2 registers. This is what makes a batch of
//! queries cheaper per query than the same queries one by one, the role BLAS plays for FAISS.

/// The signature of a dot-product implementation, as returned by [`dot_fn`].
pub type DotFn = fn(&[f32], &[f32]) -> f32;

/// Inner product of `a` and `b`. Panics when the lengths differ (a caller bug, not a data
/// error: the index checks query dimensions before scoring).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    (dot_fn())(a, b)
}

/// The best dot-product implementation for this CPU; hot loops fetch it once.
#[inline]
pub fn dot_fn() -> DotFn {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            return dot_avx2_entry;
        }
    }
    dot_portable
}

/// How far ahead of a sequential scan its rows are prefetched, in bytes: a page. On the
/// 2-core VM of `bench/results/search-latency.md` the one-bit scan of a million memory-mapped
/// rows stalled on its loads (the hardware prefetcher does not cross the 4 KiB pages of the
/// map) and took 15 ms; with this distance it took 7 ms (512 bytes: 8.7 ms, 1 KiB: 7.5 ms,
/// 8 KiB: 7.1 ms).
pub const PREFETCH_AHEAD: usize = 4096;

/// Asks the CPU to bring the cache lines of `data[at..at + len]` in (those inside `data`): a
/// hint, with no effect on any result.
#[inline(always)]
pub fn prefetch<T>(data: &[T], at: usize, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = std::mem::size_of_val(data);
        let size = std::mem::size_of::<T>();
        let (start, end) = (at.saturating_mul(size), at.saturating_add(len).saturating_mul(size).min(bytes));
        let base = data.as_ptr().cast::<i8>();
        let mut line = start;
        while line < end {
            // SAFETY: `line` is inside `data`; a prefetch reads nothing architecturally.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.add(line)) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at, len);
}

/// Whether the AVX2 + FMA paths are in use on this machine.
#[inline]
pub fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Portable inner product: eight independent accumulators over chunks of eight, which LLVM
/// turns into one SIMD register of partial sums.
pub fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "dot of vectors of different lengths");
    let mut acc = [0.0f32; 8];
    let (ac, at) = a.split_at(a.len() / 8 * 8);
    let (bc, bt) = b.split_at(ac.len());
    for (x, y) in ac.chunks_exact(8).zip(bc.chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in at.iter().zip(bt) {
        tail += x * y;
    }
    (acc[0] + acc[4]) + (acc[1] + acc[5]) + (acc[2] + acc[6]) + (acc[3] + acc[7]) + tail
}

#[cfg(target_arch = "x86_64")]
fn dot_avx2_entry(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "dot of vectors of different lengths");
    // SAFETY: only handed out by `dot_fn` after `has_avx2_fma()` returned true; lengths checked.
    unsafe { avx2::dot(a, b) }
}

/// Scores every row of `rows` (row-major, `dim` floats each) against every query of `queries`
/// (row-major, `dim` floats each) and writes `out[q * n_rows + r]`.
///
/// Panics when the slices are not whole multiples of `dim` or `out` is too short.
pub fn scores_block(rows: &[f32], queries: &[f32], dim: usize, out: &mut [f32]) {
    assert!(dim > 0 && rows.len().is_multiple_of(dim) && queries.len().is_multiple_of(dim), "ragged block");
    let n_rows = rows.len() / dim;
    let n_queries = queries.len() / dim;
    assert!(out.len() >= n_rows * n_queries, "output buffer too short");
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: features checked; all slices bounds-checked above.
            unsafe { avx2::scores_block(rows, queries, dim, n_rows, n_queries, out) };
            return;
        }
    }
    for q in 0..n_queries {
        let query = &queries[q * dim..(q + 1) * dim];
        for (r, row) in rows.chunks_exact(dim).enumerate() {
            out[q * n_rows + r] = dot_portable(row, query);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Horizontal sum of the 8 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn hsum(v: __m256) -> f32 {
        let lo = _mm256_castps256_ps128(v);
        let hi = _mm256_extractf128_ps(v, 1);
        let s = _mm_add_ps(lo, hi);
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_movehdup_ps(s));
        _mm_cvtss_f32(s)
    }

    /// Horizontal sums of four registers at once: `[sum a, sum b, sum c, sum d]`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn hsum4(a: __m256, b: __m256, c: __m256, d: __m256) -> __m128 {
        let ab = _mm256_hadd_ps(a, b);
        let cd = _mm256_hadd_ps(c, d);
        let abcd = _mm256_hadd_ps(ab, cd);
        _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1))
    }

    /// Four accumulators of eight lanes (32 floats per step), then eight at a time, then scalar.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len();
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        let mut i = 0;
        while i + 32 <= n {
            for (j, acc) in acc.iter_mut().enumerate() {
                let x = _mm256_loadu_ps(pa.add(i + 8 * j));
                let y = _mm256_loadu_ps(pb.add(i + 8 * j));
                *acc = _mm256_fmadd_ps(x, y, *acc);
            }
            i += 32;
        }
        while i + 8 <= n {
            acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), acc[0]);
            i += 8;
        }
        let v = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let mut s = hsum(v);
        while i < n {
            s += *pa.add(i) * *pb.add(i);
            i += 1;
        }
        s
    }

    /// `R` rows × `Q` queries, each pair accumulated in its own register; `out[q][r]` receives
    /// the dot products (row `r` at `rows[r]`, query `q` at `queries[q]`, `dim` floats each).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile<const R: usize, const Q: usize>(
        rows: [*const f32; R],
        queries: [*const f32; Q],
        dim: usize,
        out: &mut [[f32; R]; Q],
    ) {
        let mut acc = [[_mm256_setzero_ps(); Q]; R];
        let mut i = 0;
        while i + 8 <= dim {
            let mut x = [_mm256_setzero_ps(); R];
            for r in 0..R {
                x[r] = _mm256_loadu_ps(rows[r].add(i));
            }
            for q in 0..Q {
                let y = _mm256_loadu_ps(queries[q].add(i));
                for r in 0..R {
                    acc[r][q] = _mm256_fmadd_ps(x[r], y, acc[r][q]);
                }
            }
            i += 8;
        }
        for r in 0..R {
            if Q == 4 {
                let mut s = [0.0f32; 4];
                _mm_storeu_ps(s.as_mut_ptr(), hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
                for q in 0..Q {
                    out[q][r] = s[q];
                }
            } else {
                for q in 0..Q {
                    out[q][r] = hsum(acc[r][q]);
                }
            }
        }
        while i < dim {
            for r in 0..R {
                for q in 0..Q {
                    out[q][r] += *rows[r].add(i) * *queries[q].add(i);
                }
            }
            i += 1;
        }
    }

    /// Runs `tile::<R, Q>` over rows `r0..` in steps of `R` while whole tiles fit, for the
    /// queries `q0..q0 + Q`; returns the first row not scored.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tiles<const R: usize, const Q: usize>(
        rows: &[f32],
        queries: &[f32],
        dim: usize,
        n_rows: usize,
        q0: usize,
        r0: usize,
        out: &mut [f32],
    ) -> usize {
        let qp: [*const f32; Q] = std::array::from_fn(|j| queries.as_ptr().add((q0 + j) * dim));
        let mut r = r0;
        let mut t = [[0.0f32; R]; Q];
        while r + R <= n_rows {
            let rp: [*const f32; R] = std::array::from_fn(|j| rows.as_ptr().add((r + j) * dim));
            tile::<R, Q>(rp, qp, dim, &mut t);
            for (j, tq) in t.iter().enumerate() {
                let o = (q0 + j) * n_rows + r;
                out[o..o + R].copy_from_slice(tq);
            }
            r += R;
        }
        r
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn scores_block(
        rows: &[f32],
        queries: &[f32],
        dim: usize,
        n_rows: usize,
        n_queries: usize,
        out: &mut [f32],
    ) {
        let mut q = 0;
        while q + 4 <= n_queries {
            let r = tiles::<3, 4>(rows, queries, dim, n_rows, q, 0, out);
            tiles::<1, 4>(rows, queries, dim, n_rows, q, r, out);
            q += 4;
        }
        // Left-over queries: one row at a time (the 4-accumulator `dot` streams better than a
        // tile with a single query, whose accumulators form one long dependency chain each).
        while q < n_queries {
            let query = &queries[q * dim..(q + 1) * dim];
            for (r, row) in rows.chunks_exact(dim).enumerate() {
                out[q * n_rows + r] = dot(row, query);
            }
            q += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn naive(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }

    fn random(rng: &mut SplitMix64, n: usize) -> Vec<f32> {
        (0..n).map(|_| rng.next_f32() * 2.0 - 1.0).collect()
    }

    fn close(got: f32, want: f64, n: usize) -> bool {
        (got as f64 - want).abs() <= 1e-5 * (n as f64).sqrt() * (1.0 + want.abs())
    }

    #[test]
    fn dot_implementations_agree_with_f64_sum() {
        let mut rng = SplitMix64::new(7);
        for &n in &[0usize, 1, 7, 8, 31, 33, 383, 384, 1000] {
            for _ in 0..20 {
                let (a, b) = (random(&mut rng, n), random(&mut rng, n));
                let want = naive(&a, &b);
                assert!(close(dot_portable(&a, &b), want, n), "portable n={n}");
                assert!(close(dot(&a, &b), want, n), "dispatched n={n}");
                #[cfg(target_arch = "x86_64")]
                if has_avx2_fma() {
                    assert!(close(dot_avx2_entry(&a, &b), want, n), "avx2 n={n}");
                }
            }
        }
    }

    #[test]
    fn scores_block_matches_dot() {
        let mut rng = SplitMix64::new(11);
        for &dim in &[1usize, 7, 383, 384, 1000] {
            for &(nr, nq) in &[(1usize, 1usize), (3, 4), (7, 5), (10, 9), (2, 13)] {
                let rows = random(&mut rng, nr * dim);
                let queries = random(&mut rng, nq * dim);
                let mut out = vec![f32::NAN; nr * nq];
                scores_block(&rows, &queries, dim, &mut out);
                for q in 0..nq {
                    for r in 0..nr {
                        let want = naive(&rows[r * dim..(r + 1) * dim], &queries[q * dim..(q + 1) * dim]);
                        assert!(close(out[q * nr + r], want, dim), "dim={dim} r={r} q={q}");
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "different lengths")]
    fn dot_rejects_different_lengths() {
        dot(&[1.0, 2.0], &[1.0]);
    }
}
