//! Principal components of a row-major matrix: the covariance and its eigenvectors by cyclic
//! Jacobi rotations, in f64. Widths are a model's hidden size (a few hundred), so the whole
//! decomposition takes well under a second; it needs no linear-algebra library.

/// The fitted components: the mean row and the `k` leading directions.
#[derive(Debug, Clone)]
pub struct Pca {
    /// Width of the input rows.
    pub dim: usize,
    /// Mean of the input rows.
    pub mean: Vec<f64>,
    /// `k` unit directions of width `dim`, largest variance first, each signed so that its
    /// largest-magnitude entry is positive (as scikit-learn does).
    pub components: Vec<Vec<f64>>,
    /// Variance along each component.
    pub variances: Vec<f64>,
    /// Total variance of the input.
    pub total_variance: f64,
}

impl Pca {
    /// Fits `k` components to the rows of `data` (`dim` wide).
    ///
    /// # Panics
    /// When `data` is not whole rows, has fewer than two rows, or `k > dim`.
    pub fn fit(data: &[f32], dim: usize, k: usize) -> Pca {
        assert!(dim > 0 && data.len().is_multiple_of(dim) && data.len() >= 2 * dim && k <= dim);
        let n = data.len() / dim;
        let mut mean = vec![0.0f64; dim];
        for row in data.chunks_exact(dim) {
            mean.iter_mut().zip(row).for_each(|(m, &x)| *m += x as f64);
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let mut cov = covariance(data, dim, &mean);
        let total_variance = (0..dim).map(|i| cov[i * dim + i]).sum();
        let (values, vectors) = symmetric_eigen(&mut cov, dim);
        let mut order: Vec<usize> = (0..dim).collect();
        order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        let components = order[..k]
            .iter()
            .map(|&j| {
                let mut v: Vec<f64> = (0..dim).map(|i| vectors[i * dim + j]).collect();
                let largest = v.iter().copied().max_by(|a, b| a.abs().total_cmp(&b.abs())).unwrap_or(0.0);
                if largest < 0.0 {
                    v.iter_mut().for_each(|x| *x = -*x);
                }
                v
            })
            .collect();
        let variances = order[..k].iter().map(|&j| values[j]).collect();
        Pca { dim, mean, components, variances, total_variance }
    }

    /// `row` centered and projected on the components.
    pub fn project(&self, row: &[f32]) -> Vec<f32> {
        let centered: Vec<f64> = row.iter().zip(&self.mean).map(|(&x, m)| x as f64 - m).collect();
        self.components
            .iter()
            .map(|c| c.iter().zip(&centered).map(|(a, b)| a * b).sum::<f64>() as f32)
            .collect()
    }

    /// Share of the total variance the components keep.
    pub fn explained(&self) -> f64 {
        self.variances.iter().sum::<f64>() / self.total_variance.max(f64::MIN_POSITIVE)
    }
}

/// The sample covariance (`n - 1`) of the rows of `data` around `mean`, `dim × dim` row-major.
fn covariance(data: &[f32], dim: usize, mean: &[f64]) -> Vec<f64> {
    let n = data.len() / dim;
    let mut cov = vec![0.0f64; dim * dim];
    let mut centered = vec![0.0f64; dim];
    for row in data.chunks_exact(dim) {
        centered.iter_mut().zip(row.iter().zip(mean)).for_each(|(c, (&x, m))| *c = x as f64 - m);
        for i in 0..dim {
            let ci = centered[i];
            let out = &mut cov[i * dim + i..(i + 1) * dim];
            out.iter_mut().zip(&centered[i..]).for_each(|(o, &cj)| *o += ci * cj);
        }
    }
    for i in 0..dim {
        for j in i..dim {
            let v = cov[i * dim + j] / (n - 1) as f64;
            cov[i * dim + j] = v;
            cov[j * dim + i] = v;
        }
    }
    cov
}

/// Eigenvalues and eigenvectors (columns of a row-major `n × n` matrix) of the symmetric
/// matrix `a`, which is destroyed. Cyclic Jacobi: sweeps of plane rotations until the
/// off-diagonal mass is negligible.
pub fn symmetric_eigen(a: &mut [f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0.0f64; n * n];
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    let scale: f64 = a.iter().map(|x| x * x).sum::<f64>().max(f64::MIN_POSITIVE);
    for _sweep in 0..64 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].powi(2))
            .sum();
        if off <= scale * 1e-24 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                rotate(a, &mut v, n, p, q);
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

/// One Jacobi rotation that zeroes `a[p][q]`, applied to `a` (both sides) and to `v`.
fn rotate(a: &mut [f64], v: &mut [f64], n: usize, p: usize, q: usize) {
    let apq = a[p * n + q];
    if apq.abs() < 1e-300 {
        return;
    }
    let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
    let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
    let c = 1.0 / (t * t + 1.0).sqrt();
    let s = t * c;
    for k in 0..n {
        let (akp, akq) = (a[k * n + p], a[k * n + q]);
        a[k * n + p] = c * akp - s * akq;
        a[k * n + q] = s * akp + c * akq;
    }
    for k in 0..n {
        let (apk, aqk) = (a[p * n + k], a[q * n + k]);
        a[p * n + k] = c * apk - s * aqk;
        a[q * n + k] = s * apk + c * aqk;
    }
    for k in 0..n {
        let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
        v[k * n + p] = c * vkp - s * vkq;
        v[k * n + q] = s * vkp + c * vkq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvectors_reconstruct_the_matrix() {
        let n = 6;
        // A symmetric matrix from a fixed pseudo-random fill.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64 - 0.5
        };
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in i..n {
                let x = next();
                m[i * n + j] = x;
                m[j * n + i] = x;
            }
        }
        let (values, vectors) = symmetric_eigen(&mut m.clone(), n);
        // A v = λ v for every column.
        for j in 0..n {
            for i in 0..n {
                let av: f64 = (0..n).map(|k| m[i * n + k] * vectors[k * n + j]).sum();
                assert!((av - values[j] * vectors[i * n + j]).abs() < 1e-9, "column {j} row {i}");
            }
        }
    }

    #[test]
    fn the_first_component_follows_the_spread() {
        // Points along (1, 1) with a little noise across it.
        let data: Vec<f32> = (0..100)
            .flat_map(|i| {
                let t = i as f32 - 50.0;
                let e = if i % 2 == 0 { 0.1 } else { -0.1 };
                [t + e, t - e]
            })
            .collect();
        let pca = Pca::fit(&data, 2, 1);
        let c = &pca.components[0];
        assert!((c[0] - c[1]).abs() < 1e-3 && c[0] > 0.0, "{c:?}");
        assert!(pca.explained() > 0.999);
        let shifted = [pca.mean[0] as f32 + 1.0, pca.mean[1] as f32 + 1.0];
        assert!((pca.project(&shifted)[0] - 2f32.sqrt()).abs() < 1e-3);
    }
}
