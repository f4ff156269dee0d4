//! A small deterministic random generator (SplitMix64) and synthetic vector sets.
//!
//! HNSW level sampling needs a seeded, reproducible stream and nothing more, so the crate carries
//! its own eight-line generator instead of a dependency. The vector generators serve tests,
//! benchmarks and the peer comparison, which must all see the same data for the same seed.

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state, full period, good enough statistics for
/// sampling and test data. Not for cryptography.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose stream is a pure function of `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, 1)` with 24 bits of precision.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A standard normal sample (Box–Muller).
    pub fn next_gaussian(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// Scales `v` to unit L2 norm in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x = (*x as f64 / norm) as f32;
        }
    }
}

/// `copies` noisy copies of each of `bases` vectors of [`random_unit_vectors`] (`seed`): σ =
/// 0.02 of Gaussian noise per dimension, then normalized (cosine ≈ 0.93 to the base), one
/// round of copies after the other. The hard case for a candidate scan, as in the
/// million-chunk benchmark: the true top 100 are separated by small score gaps. Returns the
/// bases and the copies, row-major.
pub fn near_copies(bases: usize, copies: usize, dim: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let base = random_unit_vectors(bases, dim, seed);
    let mut rng = SplitMix64::new(seed + 1);
    let mut data = Vec::with_capacity(bases * copies * dim);
    for _ in 0..copies {
        for b in base.chunks(dim.max(1)) {
            let mut v: Vec<f32> = b.iter().map(|x| x + 0.02 * rng.next_gaussian() as f32).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
            v.iter_mut().for_each(|x| *x /= norm);
            data.extend(v);
        }
    }
    (base, data)
}

/// `n` vectors of width `dim`, uniform on the unit sphere (normalized Gaussians), row-major.
pub fn random_unit_vectors(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    let mut out: Vec<f32> = (0..n * dim).map(|_| rng.next_gaussian() as f32).collect();
    for row in out.chunks_exact_mut(dim.max(1)) {
        normalize(row);
    }
    out
}

/// `n` unit vectors of width `dim` drawn around `clusters` random unit centres with Gaussian
/// noise of standard deviation `spread` per coordinate, then normalized; row-major. Cluster
/// `i % clusters` is used for row `i`, so any prefix covers all clusters.
pub fn clustered_unit_vectors(n: usize, dim: usize, clusters: usize, spread: f64, seed: u64) -> Vec<f32> {
    let centres = random_unit_vectors(clusters.max(1), dim, seed ^ 0xC1A5_7E45);
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        let c = &centres[(i % clusters.max(1)) * dim..][..dim];
        let start = out.len();
        out.extend(c.iter().map(|x| (*x as f64 + spread * rng.next_gaussian()) as f32));
        normalize(&mut out[start..]);
    }
    out
}
