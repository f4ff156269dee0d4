//! One-bit codes for the first pass of an exact-search scan over a large segment.
//!
//! At a million rows of 384 dimensions the int8 scan ([`crate::quant`]) reads 384 MB per
//! query and is bound by memory bandwidth (about 17 ms on two cores). One bit per dimension
//! is 48 MB: the first pass scans those, keeps the best `multiple × max(k, 100)` rows by an
//! estimated score, and scores them exactly in f32, so returned scores stay exact and only the
//! candidate set is approximate.
//!
//! The codes: each row minus the segment's mean, `x' = x − μ`, is kept as the signs of its
//! components and one scale, the mean of `|x'_d|` (the `s` that makes `s · sign(x')` closest
//! to `x'`). A query's estimate for a row is `s · (q · sign(x'))`; `q · μ` is the same for
//! every row and left out. `q · sign(x')` is `2 Σ_{d: bit set} q_d − Σ_d q_d`, and with `q`
//! quantized to four bit planes the sum over set bits is four `popcount(bits & plane)` per
//! word, so a row of 384 dimensions costs six loads and about thirty integer operations.
//!
//! `multiple` is calibrated when the codes are built ([`BitMatrix::build`]): on blends of two
//! of the segment's own rows as queries, the smallest multiple whose rescored top 100 holds
//! [`TARGET_RECALL`] of the exact top 100. Codes that cannot reach it at the largest multiple
//! are not built, and the segment keeps its int8 scan.
//!
//! File layout (version 1, little-endian): a 64-byte header (magic `STRATAB1`, format
//! version `u32`, dim `u32`, rows `u64`, multiple `u32`, zeros), the mean (dim × `f32`), the
//! scales (rows × `f32`), then the bits (rows × ⌈dim / 64⌉ × 8 bytes, bit `d % 64` of word
//! `d / 64` is dimension `d`).

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use memmap2::Mmap;

use crate::error::VectorError;
use crate::flat::{self, on_blocks, rescore, threads_for, Filter};
use crate::fsio::{codes_header, open_codes, u32_at, write_atomically, CODES_HEADER_LEN};
use crate::kernel::{prefetch, PREFETCH_AHEAD};
use crate::matrix::{check_dim, check_made_from, Matrix};
use crate::topk::{merge, Hit, TopK};

/// The first eight bytes of a bit-code file.
pub const BITS_MAGIC: &[u8; 8] = b"STRATAB1";
/// The bit-code file format version this build writes and reads.
pub const BITS_VERSION: u32 = 1;
const HEADER_LEN: usize = CODES_HEADER_LEN;

/// Share of the exact top 100 the rescored candidates must hold, on the calibration queries.
pub const TARGET_RECALL: f64 = 0.99;
/// Multiples of `k` tried as the candidate count, smallest first.
const MULTIPLES: [usize; 6] = [8, 16, 32, 64, 128, 256];
/// Calibration queries, and the depth they are measured at (the dense leg's).
const SAMPLES: usize = 64;
const DEPTH: usize = 100;
/// Levels of the query's quantization (four bit planes).
const PLANES: usize = 4;

/// The one-bit codes of a matrix, with the mean, per-row scales and calibrated multiple.
#[derive(Debug)]
pub struct BitMatrix {
    dim: usize,
    rows: usize,
    multiple: usize,
    mean: Vec<f32>,
    data: Data,
}

/// Scales and bits, built in memory or mapped from a file (offsets of each).
#[derive(Debug)]
enum Data {
    Mem { scales: Vec<f32>, bits: Vec<u8> },
    Map { map: Mmap, scales_at: usize, bits_at: usize },
}

fn words(dim: usize) -> usize {
    dim.div_ceil(64)
}

impl BitMatrix {
    /// Codes for every row of `matrix`, calibrated; `None` when even the largest multiple
    /// misses [`TARGET_RECALL`] (or the matrix is too small to calibrate on).
    pub fn build<M: Matrix + ?Sized>(matrix: &M) -> Option<BitMatrix> {
        let mut codes = BitMatrix::encode(matrix);
        if codes.rows < DEPTH * 4 {
            return None;
        }
        codes.multiple = codes.calibrate(matrix)?;
        Some(codes)
    }

    /// The codes of every row, uncalibrated (multiple 0).
    fn encode<M: Matrix + ?Sized>(matrix: &M) -> BitMatrix {
        let (dim, rows) = (matrix.dim(), matrix.rows());
        let mut mean = vec![0.0f64; dim];
        for row in matrix.as_slice().chunks_exact(dim) {
            mean.iter_mut().zip(row).for_each(|(m, x)| *m += *x as f64);
        }
        let mean: Vec<f32> = mean.iter().map(|m| (m / rows.max(1) as f64) as f32).collect();
        let mut scales = Vec::with_capacity(rows);
        let mut bits = Vec::with_capacity(rows * words(dim) * 8);
        for row in matrix.as_slice().chunks_exact(dim) {
            let mut word = vec![0u64; words(dim)];
            let mut l1 = 0.0f32;
            for (d, (x, m)) in row.iter().zip(&mean).enumerate() {
                let c = x - m;
                l1 += c.abs();
                word[d / 64] |= ((c > 0.0) as u64) << (d % 64);
            }
            scales.push(l1 / dim as f32);
            word.iter().for_each(|w| bits.extend_from_slice(&w.to_le_bytes()));
        }
        BitMatrix { dim, rows, multiple: 0, mean, data: Data::Mem { scales, bits } }
    }

    /// The smallest multiple that reaches [`TARGET_RECALL`] on blends of two rows.
    fn calibrate<M: Matrix + ?Sized>(&self, matrix: &M) -> Option<usize> {
        let queries: Vec<Vec<f32>> = (0..SAMPLES)
            .map(|i| {
                let (a, b) =
                    (i * self.rows / SAMPLES, (i * self.rows / SAMPLES + self.rows / 2 + 7) % self.rows);
                let mut q: Vec<f32> = matrix.row(a).iter().zip(matrix.row(b)).map(|(x, y)| x + y).collect();
                let norm = q.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
                q.iter_mut().for_each(|x| *x /= norm);
                q
            })
            .collect();
        let truth: Vec<Vec<Hit>> =
            queries.iter().map(|q| flat::search(matrix, q, DEPTH, None).unwrap_or_default()).collect();
        let wanted = (TARGET_RECALL * (SAMPLES * DEPTH) as f64).ceil() as usize;
        MULTIPLES.iter().copied().find(|&multiple| {
            let kept: usize = queries
                .iter()
                .zip(&truth)
                .map(|(q, exact)| {
                    let got = self.search_with(matrix, q, DEPTH, multiple, None);
                    got.iter().filter(|h| exact.iter().any(|e| e.0 == h.0)).count()
                })
                .sum();
            kept >= wanted
        })
    }

    /// The candidate multiple this matrix was calibrated to.
    pub fn multiple(&self) -> usize {
        self.multiple
    }

    /// Rows covered.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn scales(&self) -> &[f32] {
        match &self.data {
            Data::Mem { scales, .. } => scales,
            Data::Map { map, scales_at, .. } => {
                // SAFETY: `open` checked the length, and the offset is a multiple of 4 from a
                // page-aligned map.
                unsafe { std::slice::from_raw_parts(map[*scales_at..].as_ptr().cast::<f32>(), self.rows) }
            }
        }
    }

    fn bits(&self) -> &[u8] {
        match &self.data {
            Data::Mem { bits, .. } => bits,
            Data::Map { map, bits_at, .. } => &map[*bits_at..],
        }
    }

    /// The best `k` rows for `query`: the best `multiple × max(k, 100)` by estimate (the
    /// multiple is calibrated at a depth of 100, and fewer candidates would not hold what it
    /// promises), scored exactly against `matrix` (the f32 rows these codes were made from).
    /// Scores are exact.
    pub fn search<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        query: &[f32],
        k: usize,
        filter: Option<Filter<'_>>,
    ) -> Result<Vec<Hit>, VectorError> {
        check_made_from(matrix, self.dim, self.rows)?;
        check_dim(matrix, query)?;
        Ok(self.search_with(matrix, query, k, self.multiple.max(1), filter))
    }

    fn search_with<M: Matrix + ?Sized>(
        &self,
        matrix: &M,
        query: &[f32],
        k: usize,
        multiple: usize,
        filter: Option<Filter<'_>>,
    ) -> Vec<Hit> {
        let plan = Query::new(query, words(self.dim));
        let candidates = k.max(DEPTH).saturating_mul(multiple);
        let tops = on_blocks(
            self.rows,
            threads_for(self.rows),
            || TopK::new(candidates),
            |top, range| self.scan(&plan, top, filter, range),
        );
        rescore(matrix, query, &merge(tops.into_iter().map(TopK::into_sorted_vec), candidates), k)
    }

    /// Offers the rows of `range` to `top` by estimate.
    fn scan(&self, plan: &Query, top: &mut TopK, filter: Option<Filter<'_>>, range: Range<usize>) {
        let rows = Rows { bits: self.bits(), scales: self.scales(), stride: words(self.dim) * 8 };
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512vpopcntdq") {
                // SAFETY: the CPU has both.
                return unsafe { scan_avx512(&rows, plan, top, filter, range) };
            }
            if has!("popcnt") {
                // SAFETY: the CPU has POPCNT.
                return unsafe { scan_popcnt(&rows, plan, top, filter, range) };
            }
        }
        scan_rows(&rows, plan, top, filter, range)
    }

    /// Writes the codes to `path`, atomically (temporary file, `fsync`, rename).
    pub fn save(&self, path: &Path) -> Result<(), VectorError> {
        write_atomically(path, |w| {
            let multiple = (self.multiple as u32).to_le_bytes();
            w.write_all(&codes_header(BITS_MAGIC, BITS_VERSION, self.dim, self.rows, &multiple))?;
            for x in self.mean.iter().chain(self.scales()) {
                w.write_all(&x.to_le_bytes())?;
            }
            w.write_all(self.bits())
        })
    }

    /// Opens a file written by [`BitMatrix::save`], memory-mapped, and checks that it covers
    /// `rows` rows of width `dim` (the matrix it will be used with).
    pub fn open(path: &Path, dim: usize, rows: usize) -> Result<BitMatrix, VectorError> {
        let map = open_codes(path, BITS_MAGIC, BITS_VERSION, "bit-code file", dim, rows)?;
        let multiple = u32_at(&map, 24) as usize;
        let scales_at = HEADER_LEN + dim * 4;
        let bits_at = scales_at + rows * 4;
        if map.len() != bits_at + rows * words(dim) * 8 || multiple == 0 {
            let reason = format!("{} bytes or multiple {multiple} do not match its header", map.len());
            return Err(VectorError::format(path, format!("{reason}; re-ingest to rebuild it")));
        }
        let mean = map[HEADER_LEN..scales_at]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        Ok(BitMatrix { dim, rows, multiple, mean, data: Data::Map { map, scales_at, bits_at } })
    }
}

/// A query as the scan uses it: four bit planes of its components quantized to 0..=15
/// (`q_d ≈ low + step · code_d`), and its sum.
struct Query {
    planes: Vec<[u64; PLANES]>,
    low: f32,
    step: f32,
    sum: f32,
}

impl Query {
    fn new(query: &[f32], words: usize) -> Query {
        let low = query.iter().copied().fold(f32::INFINITY, f32::min);
        let high = query.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let levels = ((1 << PLANES) - 1) as f32;
        let step = if high > low { (high - low) / levels } else { 1.0 };
        let mut planes = vec![[0u64; PLANES]; words];
        for (d, q) in query.iter().enumerate() {
            let code = ((q - low) / step).round().clamp(0.0, levels) as u64;
            for (p, plane) in planes[d / 64].iter_mut().enumerate() {
                *plane |= ((code >> p) & 1) << (d % 64);
            }
        }
        Query { planes, low, step, sum: query.iter().sum() }
    }
}

/// The codes a scan reads: the bits of row `r` at `r * stride`, its scale.
struct Rows<'a> {
    bits: &'a [u8],
    scales: &'a [f32],
    stride: usize,
}

/// Offers the rows of `range` to `top` by estimate, the estimate inlined into the loop (so
/// that the POPCNT build below compiles it with the instruction).
#[inline(always)]
fn scan_rows(rows: &Rows, plan: &Query, top: &mut TopK, filter: Option<Filter<'_>>, range: Range<usize>) {
    let mut threshold = f32::NEG_INFINITY;
    for r in range {
        prefetch(rows.bits, r * rows.stride + PREFETCH_AHEAD, 1);
        if filter.is_some_and(|keep| !keep(r as u32)) {
            continue;
        }
        let s = rows.scales[r] * estimate(&rows.bits[r * rows.stride..(r + 1) * rows.stride], plan);
        if s > threshold {
            top.push(r as u32, s);
            threshold = top.threshold();
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn scan_popcnt(
    rows: &Rows,
    plan: &Query,
    top: &mut TopK,
    filter: Option<Filter<'_>>,
    range: Range<usize>,
) {
    scan_rows(rows, plan, top, filter, range)
}

/// [`scan_rows`] with AVX-512: a row's words (eight at a time) in one register, the five
/// popcounts of a word at once, the set count and the weighted count packed into one 64-bit
/// lane each (`set << 32 | weighted`, neither reaches 2^32) and summed across lanes once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn scan_avx512(
    rows: &Rows,
    plan: &Query,
    top: &mut TopK,
    filter: Option<Filter<'_>>,
    range: Range<usize>,
) {
    use std::arch::x86_64::*;
    let words = plan.planes.len();
    // Each block of eight words: its lane mask and the four planes.
    let blocks: Vec<(__mmask8, [__m512i; PLANES])> = (0..words.div_ceil(8))
        .map(|b| {
            let lanes = (words - b * 8).min(8);
            let mut planes = [[0u64; 8]; PLANES];
            for (w, word) in plan.planes[b * 8..b * 8 + lanes].iter().enumerate() {
                for (p, plane) in planes.iter_mut().enumerate() {
                    plane[w] = word[p];
                }
            }
            let mask = ((1u16 << lanes) - 1) as __mmask8;
            // SAFETY: eight u64 read from an array of eight.
            (mask, planes.map(|p| unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }))
        })
        .collect();
    assert!(rows.bits.len() >= rows.scales.len() * rows.stride && rows.stride == words * 8);
    let mut threshold = f32::NEG_INFINITY;
    for r in range {
        prefetch(rows.bits, r * rows.stride + PREFETCH_AHEAD, 1);
        if filter.is_some_and(|keep| !keep(r as u32)) {
            continue;
        }
        let row = rows.bits[r * rows.stride..].as_ptr();
        let mut packed = _mm512_setzero_si512();
        for (b, (mask, p)) in blocks.iter().enumerate() {
            // SAFETY: the mask reads only the row's own words (checked above).
            let x = unsafe { _mm512_maskz_loadu_epi64(*mask, row.add(b * 64).cast()) };
            let w0 = _mm512_popcnt_epi64(_mm512_and_si512(x, p[0]));
            let w1 = _mm512_popcnt_epi64(_mm512_and_si512(x, p[1]));
            let w2 = _mm512_popcnt_epi64(_mm512_and_si512(x, p[2]));
            let w3 = _mm512_popcnt_epi64(_mm512_and_si512(x, p[3]));
            let w = _mm512_add_epi64(
                _mm512_add_epi64(w0, _mm512_slli_epi64::<1>(w1)),
                _mm512_add_epi64(_mm512_slli_epi64::<2>(w2), _mm512_slli_epi64::<3>(w3)),
            );
            packed = _mm512_add_epi64(
                packed,
                _mm512_add_epi64(w, _mm512_slli_epi64::<32>(_mm512_popcnt_epi64(x))),
            );
        }
        let total = _mm512_reduce_add_epi64(packed) as u64;
        let (set, weighted) = ((total >> 32) as f32, (total & 0xffff_ffff) as f32);
        let s = rows.scales[r] * (2.0 * (plan.low * set + plan.step * weighted) - plan.sum);
        if s > threshold {
            top.push(r as u32, s);
            threshold = top.threshold();
        }
    }
}

/// `q · sign(x')` of one row from its bits.
#[inline(always)]
fn estimate(bits: &[u8], q: &Query) -> f32 {
    let (mut set, mut weighted) = (0u32, 0u32);
    for (chunk, planes) in bits.chunks_exact(8).zip(&q.planes) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        set += x.count_ones();
        for (p, plane) in planes.iter().enumerate() {
            weighted += (x & plane).count_ones() << p;
        }
    }
    2.0 * (q.low * set as f32 + q.step * weighted as f32) - q.sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::MemMatrix;
    use crate::rng::random_unit_vectors;

    fn near_copies(bases: usize, copies: usize, dim: usize) -> (Vec<f32>, MemMatrix) {
        let (base, data) = crate::rng::near_copies(bases, copies, dim, 11);
        (base, MemMatrix::from_vec(dim, data).unwrap())
    }

    #[test]
    fn estimates_follow_the_inner_product() {
        let dim = 384;
        let m = MemMatrix::from_vec(dim, random_unit_vectors(2_000, dim, 3)).unwrap();
        let codes = BitMatrix::encode(&m);
        let q = random_unit_vectors(1, dim, 4);
        let plan = Query::new(&q, words(dim));
        let stride = words(dim) * 8;
        let (mut est, mut exact) = (Vec::new(), Vec::new());
        for r in 0..m.rows() {
            est.push(codes.scales()[r] * estimate(&codes.bits()[r * stride..(r + 1) * stride], &plan));
            exact
                .push(m.row(r).iter().zip(&codes.mean).zip(&q).map(|((x, mu), q)| (x - mu) * q).sum::<f32>());
        }
        let corr = correlation(&est, &exact);
        assert!(corr > 0.75, "correlation {corr}");
    }

    /// The dispatched scan (AVX-512 or POPCNT here) and the portable one agree, for widths of
    /// one word, of one block of eight words and of more than one block.
    #[test]
    fn scans_agree_across_widths() {
        for dim in [48, 384, 700, 1024] {
            let m = MemMatrix::from_vec(dim, random_unit_vectors(3_000, dim, 5)).unwrap();
            let codes = BitMatrix::encode(&m);
            let q = random_unit_vectors(1, dim, 6);
            let plan = Query::new(&q, words(dim));
            let rows = Rows { bits: codes.bits(), scales: codes.scales(), stride: words(dim) * 8 };
            let (mut portable, mut dispatched) = (TopK::new(50), TopK::new(50));
            scan_rows(&rows, &plan, &mut portable, None, 0..m.rows());
            codes.scan(&plan, &mut dispatched, None, 0..m.rows());
            assert_eq!(dispatched.into_sorted_vec(), portable.into_sorted_vec(), "dim {dim}");
        }
    }

    fn correlation(a: &[f32], b: &[f32]) -> f64 {
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f32>() as f64 / n, b.iter().sum::<f32>() as f64 / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (*x as f64 - ma) * (*y as f64 - mb)).sum();
        let va: f64 = a.iter().map(|x| (*x as f64 - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (*y as f64 - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    }

    #[test]
    fn calibrated_search_recovers_near_duplicate_neighbours() {
        let dim = 384;
        let (base, m) = near_copies(200, 40, dim);
        let codes = BitMatrix::build(&m).expect("calibrates on clustered rows");
        let (k, mut same, mut total) = (100, 0, 0);
        for i in (0..200).step_by(10) {
            let query = &base[i * dim..(i + 1) * dim];
            let exact = flat::search(&m, query, k, None).unwrap();
            let got = codes.search(&m, query, k, None).unwrap();
            same += got.iter().filter(|h| exact.contains(h)).count();
            total += k;
        }
        assert!(
            same as f64 >= 0.98 * total as f64,
            "{same} of {total} exact hits recovered (multiple {})",
            codes.multiple
        );
    }

    #[test]
    fn saved_codes_search_like_built_ones_and_filters_hold() {
        let dim = 48;
        let (_, m) = near_copies(50, 20, dim);
        let built = BitMatrix::build(&m).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.b1");
        built.save(&path).unwrap();
        let opened = BitMatrix::open(&path, dim, m.rows()).unwrap();
        assert_eq!((opened.multiple, &opened.mean), (built.multiple, &built.mean));
        assert_eq!((opened.scales(), opened.bits()), (built.scales(), built.bits()));
        let query = m.row(3);
        assert_eq!(opened.search(&m, query, 5, None).unwrap(), built.search(&m, query, 5, None).unwrap());
        let even = |row: u32| row.is_multiple_of(2);
        assert!(opened.search(&m, query, 5, Some(&even)).unwrap().iter().all(|h| h.0 % 2 == 0));
        let err = BitMatrix::open(&path, dim, m.rows() + 1).unwrap_err().to_string();
        assert!(err.contains("re-ingest"), "{err}");
    }
}
