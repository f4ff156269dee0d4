//! The int8 weights of the encoder graph's projections, computed at load from the f32 weights.
//!
//! Each `[in, out]` weight gets one scale per output column (`max |W[:, n]| / 127`) and is
//! rounded to symmetric int8. A few input rows of the feed-forward down projection hold
//! weights fifty times larger than the rest (all-MiniLM-L6-v2: 1–8 rows of 1,536 per layer,
//! |w| up to 7.9 against a median row maximum of 0.15); they would set the scale of most
//! columns and flatten every other weight to a few levels. Those rows are taken out of the
//! int8 matrix and computed in f32 beside it ([`Split`]). They are found from the weights
//! alone, so no calibration data is needed. The method and its measurements are in
//! `bench/research/int8/README.md` (`s2w5`).

/// The version of this file's rounding: part of every int8 vector's cache id. Raise it by
/// hand with any change that can move a weight's int8 value or scale;
/// `tests/code_version.rs` fails when the int8 output on a fixed text changes while it
/// stays the same.
pub const QUANTIZE_VERSION: u32 = 1;

/// A row is an outlier when its largest |w| exceeds this many times the median row's.
const OUTLIER_FACTOR: f32 = 5.0;

/// A weight matrix `[k, n]` in symmetric int8 with one scale per column.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    /// `round(W / scale[col])`, clamped to ±127, row-major `[k, n]`.
    pub values: Vec<i8>,
    /// One scale per column, `max |W[:, col]| / 127` (1 where the column is all zeros).
    pub scales: Vec<f32>,
}

/// Quantizes `weight` (`[k, n]`, row-major) per column.
pub fn per_column(weight: &[f32], k: usize, n: usize) -> Quantized {
    debug_assert_eq!(weight.len(), k * n);
    let mut max = vec![0f32; n];
    for row in weight.chunks_exact(n) {
        for (m, w) in max.iter_mut().zip(row) {
            *m = m.max(w.abs());
        }
    }
    let scales: Vec<f32> = max.iter().map(|&m| if m > 0.0 { m / 127.0 } else { 1.0 }).collect();
    let values = weight
        .chunks_exact(n)
        .flat_map(|row| row.iter().zip(&scales).map(|(w, s)| (w / s).round().clamp(-127.0, 127.0) as i8))
        .collect();
    Quantized { values, scales }
}

/// A weight split into an int8 part and the outlier input rows kept in f32.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The weight with the outlier rows zeroed, quantized per column.
    pub int8: Quantized,
    /// The outlier rows' indices, ascending.
    pub rows: Vec<usize>,
    /// Those rows of the weight in f32, `[rows.len(), n]`.
    pub f32_rows: Vec<f32>,
}

/// Splits `weight` (`[k, n]`) into int8 and the rows whose largest |w| exceeds
/// [`OUTLIER_FACTOR`] times the median row's.
pub fn split_outlier_rows(weight: &[f32], k: usize, n: usize) -> Split {
    let row_max: Vec<f32> =
        weight.chunks_exact(n).map(|row| row.iter().fold(0f32, |m, w| m.max(w.abs()))).collect();
    let mut sorted = row_max.clone();
    sorted.sort_by(f32::total_cmp);
    let median = sorted.get(k / 2).copied().unwrap_or(0.0);
    let rows: Vec<usize> = (0..k).filter(|&r| row_max[r] > OUTLIER_FACTOR * median).collect();
    let mut inner = weight.to_vec();
    let mut f32_rows = Vec::with_capacity(rows.len() * n);
    for &r in &rows {
        f32_rows.extend_from_slice(&weight[r * n..(r + 1) * n]);
        inner[r * n..(r + 1) * n].fill(0.0);
    }
    Split { int8: per_column(&inner, k, n), rows, f32_rows }
}

/// `Σ_k dequantized W[k, :]`: what a shift of every input by `c` adds to the output, divided
/// by `c`. The down projection's inputs are shifted above zero before quantizing (GELU's
/// output is ≥ −0.17), and the bias takes `− c ·` this back.
pub fn column_sums(q: &Quantized, n: usize) -> Vec<f32> {
    let mut sums = vec![0f32; n];
    for row in q.values.chunks_exact(n) {
        for ((s, &v), scale) in sums.iter_mut().zip(row).zip(&q.scales) {
            *s += v as f32 * scale;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_column_scales_by_the_largest_weight_of_each_column() {
        // [[1, -0.5], [-2, 0.25]]: column maxima 2 and 0.5.
        let q = per_column(&[1.0, -0.5, -2.0, 0.25], 2, 2);
        assert_eq!(q.scales, vec![2.0 / 127.0, 0.5 / 127.0]);
        assert_eq!(q.values, vec![64, -127, -127, 64]);
    }

    #[test]
    fn an_all_zero_column_gets_scale_one() {
        let q = per_column(&[0.0, 1.0, 0.0, -1.0], 2, 2);
        assert_eq!(q.scales[0], 1.0);
        assert_eq!(q.values, vec![0, 127, 0, -127]);
    }

    #[test]
    fn dequantized_weights_are_within_half_a_step() {
        let (k, n) = (16, 8);
        let w: Vec<f32> = (0..k * n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0).collect();
        let q = per_column(&w, k, n);
        for (i, (&v, &orig)) in q.values.iter().zip(&w).enumerate() {
            let scale = q.scales[i % n];
            assert!((v as f32 * scale - orig).abs() <= scale / 2.0 + 1e-6, "weight {i}");
        }
    }

    #[test]
    fn outlier_rows_leave_the_int8_matrix() {
        let (k, n) = (8, 2);
        let mut w = vec![0.1f32; k * n];
        w[5 * n + 1] = 7.9;
        let split = split_outlier_rows(&w, k, n);
        assert_eq!(split.rows, vec![5]);
        assert_eq!(split.f32_rows, vec![0.1, 7.9]);
        assert!(split.int8.values[5 * n..6 * n].iter().all(|&v| v == 0));
        // Without the outlier, column 1 keeps the fine scale of the other rows.
        assert!((split.int8.scales[1] - 0.1 / 127.0).abs() < 1e-9);
    }

    #[test]
    fn column_sums_add_the_dequantized_rows() {
        let q = per_column(&[1.0, -0.5, -2.0, 0.25], 2, 2);
        let sums = column_sums(&q, 2);
        assert!((sums[0] - (64.0 - 127.0) * 2.0 / 127.0).abs() < 1e-6);
        assert!((sums[1] - (-127.0 + 64.0) * 0.5 / 127.0).abs() < 1e-6);
    }
}
