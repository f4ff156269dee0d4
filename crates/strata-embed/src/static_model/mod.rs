//! A static embedding model: one vector per vocabulary token, a text's vector the mean of its
//! tokens' rows, L2-normalized. No network runs at inference, so it embeds thousands of
//! chunks a second on one core, at a loss of quality the eval reports state.
//!
//! The folder has model2vec's layout, so a model2vec model works too:
//! - `config.json` with `"model_type": "model2vec"`, `hidden_dim`, `seq_length` and
//!   `normalize`;
//! - `model.safetensors` with one tensor, `embeddings`, `[vocabulary, hidden_dim]`;
//! - `tokenizer.json`.
//!
//! [`distill`] makes one from a local sentence-transformer (the model2vec method); `strata
//! distill` and `scripts/distill-static.sh` run it.

pub mod distill;
pub mod pca;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_core::{Error, Result};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::folder::model_id_of;
use strata_model::{l2_normalize, Embedder, EmbedderInfo, Embeddings, Pooling};

pub use distill::{distill, DistillOptions, Distilled};

/// The tensor of token rows.
pub const TENSOR: &str = "embeddings";
/// `model_type` of a static model's `config.json`.
pub const MODEL_TYPE: &str = "model2vec";
/// Tokens read per text when `config.json` gives no `seq_length` (model2vec's default).
const DEFAULT_WINDOW: usize = 512;

/// A static model's `config.json` (model2vec's keys; strata reads the ones it needs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StaticConfig {
    /// Always [`MODEL_TYPE`].
    pub model_type: String,
    /// Width of every row.
    pub hidden_dim: usize,
    /// Tokens read per text; the rest is cut.
    #[serde(default)]
    pub seq_length: Option<usize>,
    /// Whether text vectors are L2-normalized (strata normalizes either way).
    #[serde(default = "yes")]
    pub normalize: bool,
    /// The model it was distilled from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer_name: Option<String>,
    /// PCA width applied at distillation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_pca: Option<usize>,
    /// Whether Zipf frequency weights were applied.
    #[serde(default)]
    pub apply_zipf: bool,
}

fn yes() -> bool {
    true
}

/// True when `dir` holds a static model (`config.json` says `model2vec`).
pub fn is_static(dir: &Path) -> bool {
    #[derive(Deserialize)]
    struct Kind {
        #[serde(default)]
        model_type: String,
    }
    std::fs::read(dir.join("config.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Kind>(&b).ok())
        .is_some_and(|k| k.model_type == MODEL_TYPE)
}

/// A static embedding model loaded from its folder.
pub struct StaticEmbedder {
    info: EmbedderInfo,
    tokenizer: Tokenizer,
    /// `[vocabulary, dim]`, row-major.
    rows: Vec<f32>,
    unknown: Option<u32>,
    /// The rows' and tokenizer's hash, made the first time the vector cache asks.
    cache_id: std::sync::OnceLock<String>,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder").field("info", &self.info).finish()
    }
}

impl StaticEmbedder {
    /// Loads the static model in `dir`.
    pub fn open_dir(dir: &Path) -> Result<StaticEmbedder> {
        let config = read_config(dir)?;
        let dim = config.hidden_dim;
        let window = config.seq_length.unwrap_or(DEFAULT_WINDOW);
        let rows = read_rows(&dir.join("model.safetensors"), dim)?;
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| Error::user(format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: window,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| Error::user(format!("{}: {e}", tokenizer_path.display())))?;
        tokenizer.with_padding(None);
        let vocabulary = rows.len() / dim;
        if tokenizer.get_vocab_size(true) > vocabulary {
            return Err(Error::user(format!(
                "{}: the tokenizer has {} tokens but model.safetensors has {vocabulary} rows; \
                 the two files come from different models",
                dir.display(),
                tokenizer.get_vocab_size(true)
            )));
        }
        let unknown = ["[UNK]", "<unk>"].iter().find_map(|t| tokenizer.token_to_id(t));
        Ok(StaticEmbedder {
            info: EmbedderInfo {
                model_id: model_id_of(dir),
                dim,
                max_seq_len: window,
                pooling: Pooling::Mean,
                tokenizer: Some(tokenizer_path),
                query_prefix: String::new(),
                passage_prefix: String::new(),
            },
            tokenizer,
            rows,
            unknown,
            cache_id: std::sync::OnceLock::new(),
        })
    }

    fn embed(&self, texts: &[&str]) -> Result<Embeddings> {
        let dim = self.info.dim;
        // Offsets are never read here: the fast path skips computing them (a third of the time).
        let encodings = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), false)
            .map_err(|e| Error::Internal(format!("tokenizing for {}: {e}", self.info.model_id)))?;
        let mut out = vec![0.0f32; texts.len() * dim];
        let mut truncated = Vec::new();
        for (i, encoding) in encodings.iter().enumerate() {
            if !encoding.get_overflowing().is_empty() {
                truncated.push(i);
            }
            let dst = &mut out[i * dim..(i + 1) * dim];
            // The unknown token says nothing about the text (model2vec drops it too).
            let ids = encoding.get_ids().iter().filter(|&&id| Some(id) != self.unknown);
            for &id in ids {
                let row = &self.rows[id as usize * dim..(id as usize + 1) * dim];
                dst.iter_mut().zip(row).for_each(|(d, r)| *d += r);
            }
            // A mean scaled to unit length is the sum scaled to unit length.
            l2_normalize(dst);
        }
        let mut embeddings = Embeddings::new(dim, out);
        embeddings.set_truncated(truncated);
        Ok(embeddings)
    }
}

/// The version of the pooling in [`StaticEmbedder::embed`]: part of the cache id. Raise it
/// by hand with any change that can move a vector's bits.
const STATIC_VERSION: u32 = 1;

impl Embedder for StaticEmbedder {
    fn info(&self) -> &EmbedderInfo {
        &self.info
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(texts)
    }

    /// The table of token vectors itself, as loaded, and the version of the code that pools
    /// it: a distillation made again is another model.
    fn cache_id(&self) -> Result<Option<String>> {
        let id = self.cache_id.get_or_init(|| {
            let mut hasher = blake3::Hasher::new();
            for v in &self.rows {
                hasher.update(&v.to_le_bytes());
            }
            hasher.update(self.tokenizer.to_string(false).unwrap_or_default().as_bytes());
            hasher.update(format!("static {STATIC_VERSION}").as_bytes());
            format!("{}@static-{}", self.info.model_id, hasher.finalize().to_hex())
        });
        Ok(Some(id.clone()))
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(texts)
    }
}

fn read_config(dir: &Path) -> Result<StaticConfig> {
    let path = dir.join("config.json");
    let bytes = std::fs::read(&path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let config: StaticConfig = serde_json::from_slice(&bytes)
        .map_err(|e| Error::user(format!("{}: not a static model's config: {e}", path.display())))?;
    if config.hidden_dim == 0 {
        return Err(Error::user(format!("{}: hidden_dim is 0", path.display())));
    }
    Ok(config)
}

/// The `embeddings` tensor of `path` as f32 rows of width `dim`.
fn read_rows(path: &PathBuf, dim: usize) -> Result<Vec<f32>> {
    use safetensors::{Dtype, SafeTensors};
    let bytes = std::fs::read(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let tensors = SafeTensors::deserialize(&bytes)
        .map_err(|e| Error::user(format!("{}: not a safetensors file: {e}", path.display())))?;
    let view = tensors
        .tensor(TENSOR)
        .map_err(|_| Error::user(format!("{}: no `{TENSOR}` tensor", path.display())))?;
    if view.shape().len() != 2 || view.shape()[1] != dim {
        return Err(Error::user(format!(
            "{}: `{TENSOR}` has shape {:?}; config.json says rows of {dim}",
            path.display(),
            view.shape()
        )));
    }
    match view.dtype() {
        Dtype::F32 => {
            Ok(view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        }
        other => Err(Error::user(format!(
            "{}: `{TENSOR}` is {other:?}; strata reads f32 static models (quantized ones are not \
             supported yet: save it with quantize_to=\"float32\")",
            path.display()
        ))),
    }
}
