//! The embedder: passages and queries in, L2-normalized vectors out.

use serde::{Deserialize, Serialize};
use strata_core::Result;

/// How token vectors become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Mean over the attention mask (all-MiniLM, e5, gte).
    Mean,
    /// The first (`[CLS]`) token's vector (bge).
    Cls,
}

/// What an embedder is: reported so that an index can record it and refuse another model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbedderInfo {
    /// Stable model id, e.g. `all-MiniLM-L6-v2` or `openai:text-embedding-3-small`.
    pub model_id: String,
    /// Vector dimension.
    pub dim: usize,
    /// Most tokens the model reads, special tokens included; longer input is truncated.
    pub max_seq_len: usize,
    /// Pooling.
    pub pooling: Pooling,
    /// The model's `tokenizer.json`, when it is local (to size chunks in the model's tokens).
    pub tokenizer: Option<std::path::PathBuf>,
    /// Text put before a query.
    pub query_prefix: String,
    /// Text put before a passage.
    pub passage_prefix: String,
}

/// Vectors of one batch, row-major, each L2-normalized.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Embeddings {
    dim: usize,
    data: Vec<f32>,
    /// Inputs cut at the model's window, by position.
    truncated: Vec<usize>,
}

impl Embeddings {
    /// Wraps `data` holding `data.len() / dim` rows.
    ///
    /// # Panics
    /// When `dim` is 0 or does not divide `data.len()`.
    pub fn new(dim: usize, data: Vec<f32>) -> Embeddings {
        assert!(dim > 0 && data.len().is_multiple_of(dim), "{} values do not make rows of {dim}", data.len());
        Embeddings { dim, data, truncated: Vec::new() }
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.data.len() / self.dim.max(1)
    }

    /// True when there is no vector.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Vector `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// All vectors.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> {
        self.data.chunks_exact(self.dim.max(1))
    }

    /// The flat row-major values.
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    /// Positions of the inputs that were longer than the model's window and were cut: their
    /// tails are invisible to the dense leg.
    pub fn truncated(&self) -> &[usize] {
        &self.truncated
    }

    /// Records which inputs were cut.
    pub fn set_truncated(&mut self, truncated: Vec<usize>) {
        self.truncated = truncated;
    }

    /// Takes the flat row-major values.
    pub fn into_vec(self) -> Vec<f32> {
        self.data
    }
}

/// Turns text into vectors.
///
/// Implementations add the model's prefixes themselves: callers pass raw passages and
/// queries. Output rows are in input order and L2-normalized, so inner product is cosine.
pub trait Embedder: Send + Sync {
    /// What model this is.
    fn info(&self) -> &EmbedderInfo;

    /// What the vector cache keys this embedder's vectors by (`strata_embed::cache::key`):
    /// everything that can change the vector of a passage — the weights as they were loaded,
    /// the version of the code that computes with them, the window, pooling and prefix.
    /// `None`, the default, means its vectors are never cached: an embedder that cannot say
    /// what made its vectors would be served another model's.
    fn cache_id(&self) -> Result<Option<String>> {
        Ok(None)
    }

    /// Embeds passages (chunks), prefixed as the model expects.
    fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings>;

    /// Embeds queries, prefixed as the model expects.
    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings>;

    /// Embeds one query.
    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed_queries(&[text])?.into_vec())
    }
}

/// Scales `v` to unit length in place; a zero vector stays zero.
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
