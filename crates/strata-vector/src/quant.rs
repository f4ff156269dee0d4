//! int8 scalar quantization for exact-search candidates, rescored in f32.
//!
//! Each dimension `d` gets a scale `s_d = max |x_d| / 127` over all rows and each component the
//! code `round(x_d / s_d)` in `-127..=127`, a quarter of the bytes of f32. A query is folded with
//! the scales (`q_d · s_d`) and quantized the same way with its own scale, so the approximate
//! score is one integer dot product times one float. The scan keeps the best `rescore × k`
//! rows by approximate score and scores those exactly against the f32 matrix, so the returned
//! scores are exact and only the candidate set is approximate.
//!
//! A quantized matrix can be saved next to its matrix file and opened memory-mapped
//! ([`QuantMatrix::save`], [`QuantMatrix::open`]). File layout (version 1, little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `STRATAQ8` |
//! | 8 | 4 | format version (`u32`, 1) |
//! | 12 | 4 | dim (`u32`, > 0) |
//! | 16 | 8 | rows (`u64`) |
//! | 24 | 40 | reserved, zero |
//! | 64 | dim × 4 | the per-dimension scales, `f32` |
//! | 64 + dim × 4 | rows × dim | the codes, `i8`, row after row |
//!
//! Why: a single exact query over 100k × 384 reads 154 MB and is bound by memory bandwidth; the
//! codes are 38 MB. Measured on 100k × 384 random unit vectors, 2 threads (`bench/results/vector.md`):
//! 810 queries/s against 210 for f32 `flat::search`, recall@10 1.0 against the exact answer, one
//! query at a time. A batch of f32 queries (`flat::search_batch`, 1,630 queries/s) is still faster
//! per query, so this pays off for single queries, not for batches.

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use memmap2::Mmap;

use crate::error::VectorError;
use crate::flat::{self, on_threads, threads_for, Filter};
use crate::fsio::{codes_header, open_codes, write_atomically, CODES_HEADER_LEN};
use crate::kernel::{prefetch, PREFETCH_AHEAD};
use crate::matrix::{check_dim, check_made_from, Matrix};
use crate::topk::{merge, Hit, TopK};

/// Default multiple of `k` rescored in f32.
pub const DEFAULT_RESCORE: usize = 4;

/// The first eight bytes of a quantized matrix file.
pub const QUANT_MAGIC: &[u8; 8] = b"STRATAQ8";
/// The quantized file format version this build writes and reads.
pub const QUANT_VERSION: u32 = 1;
const QUANT_HEADER_LEN: usize = CODES_HEADER_LEN;

/// The int8 codes of a matrix, with the per-dimension scales.
#[derive(Debug)]
pub struct QuantMatrix {
    dim: usize,
    rows: usize,
    scales: Vec<f32>,
    codes: Codes,
}

/// Where the codes live: built in memory, or mapped from a file (offset of the first code).
#[derive(Debug)]
enum Codes {
    Mem(Vec<i8>),
    Map(Mmap, usize),
}

impl Codes {
    fn as_slice(&self) -> &[i8] {
        match self {
            Codes::Mem(v) => v,
            // SAFETY: i8 and u8 have the same layout; `open` checked the length.
            Codes::Map(map, offset) => unsafe {
                std::slice::from_raw_parts(map[*offset..].as_ptr().cast::<i8>(), map.len() - offset)
            },
        }
    }
}

impl QuantMatrix {
    /// Quantizes every row of `matrix`.
    pub fn from_matrix<M: Matrix + ?Sized>(matrix: &M) -> Self {
        let (dim, rows) = (matrix.dim(), matrix.rows());
        let mut max = vec![0.0f32; dim];
        for row in matrix.as_slice().chunks_exact(dim) {
            for (m, x) in max.iter_mut().zip(row) {
                *m = m.max(x.abs());
            }
        }
        let scales: Vec<f32> = max.iter().map(|m| if *m > 0.0 { m / 127.0 } else { 1.0 }).collect();
        let inv: Vec<f32> = scales.iter().map(|s| 1.0 / s).collect();
        let mut codes = Vec::with_capacity(rows * dim);
        for row in matrix.as_slice().chunks_exact(dim) {
            codes.extend(row.iter().zip(&inv).map(|(x, i)| (x * i).round().clamp(-127.0, 127.0) as i8));
        }
        QuantMatrix { dim, rows, scales, codes: Codes::Mem(codes) }
    }

    /// Writes the scales and codes to `path`, atomically (temporary file, `fsync`, rename).
    pub fn save(&self, path: &Path) -> Result<(), VectorError> {
        write_atomically(path, |w| {
            w.write_all(&codes_header(QUANT_MAGIC, QUANT_VERSION, self.dim, self.rows, &[]))?;
            for s in &self.scales {
                w.write_all(&s.to_le_bytes())?;
            }
            let codes = self.codes.as_slice();
            // SAFETY: i8 and u8 have the same layout.
            w.write_all(unsafe { std::slice::from_raw_parts(codes.as_ptr().cast::<u8>(), codes.len()) })
        })
    }

    /// Opens a file written by [`QuantMatrix::save`], memory-mapped, and checks that it covers
    /// `rows` rows of width `dim` (the matrix it will be used with).
    pub fn open(path: &Path, dim: usize, rows: usize) -> Result<Self, VectorError> {
        let map = open_codes(path, QUANT_MAGIC, QUANT_VERSION, "quantized vector file", dim, rows)?;
        let codes_at = QUANT_HEADER_LEN + dim * 4;
        let want = rows.checked_mul(dim).and_then(|n| n.checked_add(codes_at));
        if want != Some(map.len()) {
            let reason = format!("{} bytes, its header needs {want:?}; re-ingest to rebuild it", map.len());
            return Err(VectorError::format(path, reason));
        }
        let scales = map[QUANT_HEADER_LEN..codes_at]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        Ok(QuantMatrix { dim, rows, scales, codes: Codes::Map(map, codes_at) })
    }

    /// Rows covered.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes of codes (rows × dim).
    pub fn code_bytes(&self) -> usize {
        self.codes.as_slice().len()
    }

    /// The query folded with the scales and quantized: codes and the factor that turns an integer
    /// dot product back into an approximate inner product.
    fn quantize_query(&self, query: &[f32]) -> (Vec<i8>, f32) {
        let folded: Vec<f32> = query.iter().zip(&self.scales).map(|(q, s)| q * s).collect();
        let max = folded.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        let codes = folded.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect();
        (codes, scale)
    }

    /// The best `k` rows for `query`: the best `rescore × k` by int8 score, rescored exactly
    /// against `matrix` (the f32 rows these codes were made from). Scores are exact.
    pub fn search<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        query: &[f32],
        k: usize,
        rescore: usize,
        filter: Option<Filter<'_>>,
    ) -> Result<Vec<Hit>, VectorError> {
        check_made_from(matrix, self.dim, self.rows)?;
        check_dim(matrix, query)?;
        let (q, _) = self.quantize_query(query);
        let candidates = k.saturating_mul(rescore.max(1));
        let lists =
            on_threads(self.rows, threads_for(self.rows), |range| self.scan(&q, candidates, filter, range));
        Ok(flat::rescore(matrix, query, &merge(lists, candidates), k))
    }

    fn scan(&self, q: &[i8], n: usize, filter: Option<Filter<'_>>, range: Range<usize>) -> Vec<Hit> {
        let mut top = TopK::new(n);
        let d = self.dim;
        let dot = dot_i8_fn();
        let codes = self.codes.as_slice();
        let mut threshold = f32::NEG_INFINITY;
        for r in range {
            prefetch(codes, r * d + PREFETCH_AHEAD, d);
            if filter.is_some_and(|keep| !keep(r as u32)) {
                continue;
            }
            let s = dot(&codes[r * d..(r + 1) * d], q) as f32;
            if s > threshold {
                top.push(r as u32, s);
                threshold = top.threshold();
            }
        }
        top.into_sorted_vec()
    }
}

/// Signature of an int8 dot product.
type DotI8 = fn(&[i8], &[i8]) -> i32;

fn dot_i8_fn() -> DotI8 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::kernel::has_avx2_fma() {
            return dot_i8_avx2_entry;
        }
    }
    dot_i8_portable
}

/// Portable int8 dot product, i32 accumulation in eight lanes.
fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 8];
    let n = a.len().min(b.len()) / 8 * 8;
    for (x, y) in a[..n].chunks_exact(8).zip(b[..n].chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] as i32 * y[i] as i32;
        }
    }
    let tail: i32 = a[n..].iter().zip(&b[n..]).map(|(x, y)| *x as i32 * *y as i32).sum();
    acc.iter().sum::<i32>() + tail
}

#[cfg(target_arch = "x86_64")]
fn dot_i8_avx2_entry(a: &[i8], b: &[i8]) -> i32 {
    assert_eq!(a.len(), b.len(), "dot of vectors of different lengths");
    // SAFETY: handed out only when AVX2 is available; lengths checked.
    unsafe { dot_i8_avx2(a, b) }
}

/// `maddubs(|b|, sign(a, b))` multiplies 32 pairs into 16 i16 sums (at most 2 · 127², no
/// saturation because codes stay within ±127), `madd` with ones widens them to i32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len();
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    let mut i = 0;
    while i + 32 <= n {
        let x = _mm256_loadu_si256(a.as_ptr().add(i).cast());
        let y = _mm256_loadu_si256(b.as_ptr().add(i).cast());
        let p = _mm256_maddubs_epi16(_mm256_abs_epi8(y), _mm256_sign_epi8(x, y));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        i += 32;
    }
    let s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    let mut total = _mm_cvtsi128_si32(s);
    while i < n {
        total += a[i] as i32 * b[i] as i32;
        i += 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flat;
    use crate::matrix::MemMatrix;
    use crate::rng::{near_copies, random_unit_vectors, SplitMix64};

    #[test]
    fn int8_dots_agree() {
        let mut rng = SplitMix64::new(3);
        for n in [0usize, 1, 31, 32, 33, 384, 1000] {
            let a: Vec<i8> = (0..n).map(|_| (rng.next_u64() % 255) as i8).map(|x| x.max(-127)).collect();
            let b: Vec<i8> = (0..n).map(|_| (rng.next_u64() % 255) as i8).map(|x| x.max(-127)).collect();
            let want: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
            assert_eq!(dot_i8_portable(&a, &b), want, "portable n={n}");
            assert_eq!((dot_i8_fn())(&a, &b), want, "dispatched n={n}");
        }
    }

    #[test]
    fn rescored_search_matches_flat() {
        let dim = 384;
        let m = MemMatrix::from_vec(dim, random_unit_vectors(5_000, dim, 5)).unwrap();
        let q = QuantMatrix::from_matrix(&m);
        let queries = random_unit_vectors(50, dim, 6);
        let mut same = 0;
        for query in queries.chunks(dim) {
            let exact = flat::search(&m, query, 10, None).unwrap();
            let got = q.search(&m, query, 10, DEFAULT_RESCORE, None).unwrap();
            same += got.iter().filter(|h| exact.contains(h)).count();
        }
        assert!(same >= 495, "{same} of 500 exact hits recovered");
    }

    #[test]
    fn saved_codes_search_like_built_ones() {
        let dim = 48;
        let m = MemMatrix::from_vec(dim, random_unit_vectors(700, dim, 8)).unwrap();
        let built = QuantMatrix::from_matrix(&m);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.q8");
        built.save(&path).unwrap();
        let opened = QuantMatrix::open(&path, dim, 700).unwrap();
        assert_eq!(opened.scales, built.scales);
        assert_eq!(opened.codes.as_slice(), built.codes.as_slice());
        let query = m.row(3);
        assert_eq!(
            opened.search(&m, query, 5, 4, None).unwrap(),
            built.search(&m, query, 5, 4, None).unwrap()
        );
        let err = QuantMatrix::open(&path, dim, 701).unwrap_err().to_string();
        assert!(err.contains("700 rows") && err.contains("re-ingest"), "{err}");
    }

    /// The hard case for a candidate scan: every vector has many near-copies (cosine ≈ 0.87
    /// to each other, as in the million-chunk benchmark), so the true top 100 are separated by
    /// small score gaps.
    #[test]
    fn rescored_search_recovers_near_duplicate_neighbours() {
        let dim = 384;
        let bases = 200;
        let (base, data) = near_copies(bases, 40, dim, 11);
        let m = MemMatrix::from_vec(dim, data).unwrap();
        let q = QuantMatrix::from_matrix(&m);
        let (k, mut same, mut total) = (100, 0, 0);
        for i in (0..bases).step_by(10) {
            let query: Vec<f32> = base[i * dim..(i + 1) * dim].to_vec();
            let exact = flat::search(&m, &query, k, None).unwrap();
            let got = q.search(&m, &query, k, DEFAULT_RESCORE, None).unwrap();
            same += got.iter().filter(|h| exact.contains(h)).count();
            total += k;
        }
        assert!(same as f64 >= 0.99 * total as f64, "{same} of {total} exact hits recovered");
    }
}
