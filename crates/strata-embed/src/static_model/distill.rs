//! Distilling a static model from a local sentence-transformer, by model2vec's method:
//!
//! 1. every vocabulary token except `[unused…]` goes through the encoder alone, between the
//!    tokenizer's special tokens (`[CLS] token [SEP]`), and its vector is the mean of the
//!    three output positions;
//! 2. PCA to `dims` (256 by default) removes the directions all tokens share;
//! 3. each row is scaled by a smooth inverse frequency weight `sif / (sif + p)`, with `p`
//!    from Zipf's law on the token's rank in the vocabulary (frequent tokens come first in
//!    BERT vocabularies), so that words like "the" weigh little in a text's mean.
//!
//! The result is written as a model2vec folder (see [`super`]). Nothing is downloaded: the
//! source is a model folder on disk.

use std::path::Path;
use std::time::Instant;

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use strata_core::{Error, Result};
use tokenizers::Tokenizer;

use super::pca::Pca;
use super::{StaticConfig, MODEL_TYPE, TENSOR};
use crate::folder::ModelFolder;
use crate::local::{LocalEmbedder, LocalOptions};

/// How to distill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistillOptions {
    /// Width of the static vectors (PCA components); at most the model's hidden size.
    pub dims: usize,
    /// The smooth inverse frequency coefficient.
    pub sif: f64,
    /// Tokens per forward pass.
    pub batch_size: usize,
}

impl Default for DistillOptions {
    fn default() -> Self {
        DistillOptions { dims: 256, sif: 1e-4, batch_size: 512 }
    }
}

/// What a distillation made.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Distilled {
    /// The model's folder.
    pub folder: std::path::PathBuf,
    /// Rows of the table (the tokenizer's vocabulary).
    pub vocabulary: usize,
    /// Tokens that went through the encoder (the rest are zero rows).
    pub tokens: usize,
    /// Width of the rows.
    pub dims: usize,
    /// Share of the token vectors' variance the PCA kept.
    pub explained: f64,
    /// Seconds in the encoder.
    pub encode_seconds: f64,
    /// Seconds in all.
    pub seconds: f64,
}

/// Distills the sentence-transformer in `source` into a static model folder `out`.
pub fn distill(source: &Path, out: &Path, options: DistillOptions) -> Result<Distilled> {
    let started = Instant::now();
    let folder = ModelFolder::read(source)?;
    let hidden = folder.config.hidden_size;
    if options.dims == 0 || options.dims > hidden {
        return Err(Error::user(format!(
            "--dims {}: a static model of {} is 1 to {hidden} wide",
            options.dims, folder.model_id
        )));
    }
    // The published tokenizer.json often pads to 128; only the special tokens are wanted.
    let mut tokenizer = Tokenizer::from_file(&folder.tokenizer)
        .map_err(|e| Error::user(format!("{}: {e}", folder.tokenizer.display())))?;
    tokenizer.with_padding(None);
    let (open, close) = special_tokens(&tokenizer, &folder.tokenizer)?;
    let vocabulary = tokenizer.get_vocab_size(true);
    let kept = kept_tokens(&tokenizer, vocabulary);

    let encoder = LocalEmbedder::load(
        &folder,
        LocalOptions { batch_size: options.batch_size, ..LocalOptions::default() },
    )?;
    let encoding = Instant::now();
    let mut vectors = Vec::with_capacity(kept.len() * hidden);
    for batch in kept.chunks(options.batch_size.max(1)) {
        let rows: Vec<[u32; 3]> = batch.iter().map(|&id| [open, id, close]).collect();
        let rows: Vec<&[u32]> = rows.iter().map(|r| r.as_slice()).collect();
        vectors.extend(encoder.mean_hidden(&rows)?);
    }
    let encode_seconds = encoding.elapsed().as_secs_f64();

    let pca = Pca::fit(&vectors, hidden, options.dims);
    let weights = zipf_weights(kept.len(), options.sif);
    let mut table = vec![0.0f32; vocabulary * options.dims];
    for ((&id, row), weight) in kept.iter().zip(vectors.chunks_exact(hidden)).zip(weights) {
        let projected = pca.project(row);
        let dst = &mut table[id as usize * options.dims..(id as usize + 1) * options.dims];
        dst.iter_mut().zip(projected).for_each(|(d, p)| *d = p * weight);
    }
    let config = StaticConfig {
        model_type: MODEL_TYPE.into(),
        hidden_dim: options.dims,
        seq_length: Some(folder.max_seq_len),
        normalize: true,
        tokenizer_name: Some(folder.model_id.clone()),
        apply_pca: Some(options.dims),
        apply_zipf: true,
    };
    write_folder(out, &config, &table, vocabulary, &folder.tokenizer)?;
    Ok(Distilled {
        folder: out.to_path_buf(),
        vocabulary,
        tokens: kept.len(),
        dims: options.dims,
        explained: pca.explained(),
        encode_seconds,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The ids the tokenizer puts around a text (`[CLS]`, `[SEP]`): an empty text encoded with
/// its special tokens.
fn special_tokens(tokenizer: &Tokenizer, path: &Path) -> Result<(u32, u32)> {
    let empty = tokenizer.encode("", true).map_err(|e| Error::user(format!("{}: {e}", path.display())))?;
    match empty.get_ids() {
        [open, .., close] => Ok((*open, *close)),
        _ => Err(Error::user(format!(
            "{}: the tokenizer adds no special tokens around a text; strata distills BERT-style \
             models ([CLS] text [SEP])",
            path.display()
        ))),
    }
}

/// Token ids in vocabulary order, without `[unused…]` placeholders.
fn kept_tokens(tokenizer: &Tokenizer, vocabulary: usize) -> Vec<u32> {
    (0..vocabulary as u32)
        .filter(|&id| {
            tokenizer.id_to_token(id).is_some_and(|t| !(t.starts_with("[unused") && t.ends_with(']')))
        })
        .collect()
}

/// `sif / (sif + p)` for ranks 2…n+1, with `p` proportional to `1 / rank` and summing to 1.
fn zipf_weights(n: usize, sif: f64) -> Vec<f32> {
    let total: f64 = (2..n + 2).map(|r| 1.0 / r as f64).sum();
    (2..n + 2).map(|r| (sif / (sif + (1.0 / r as f64) / total)) as f32).collect()
}

fn write_folder(
    out: &Path,
    config: &StaticConfig,
    table: &[f32],
    rows: usize,
    tokenizer: &Path,
) -> Result<()> {
    let io = |what: &str, e| Error::io(format!("{what} in {}", out.display()), e);
    std::fs::create_dir_all(out).map_err(|e| io("creating the folder", e))?;
    let bytes: Vec<u8> = table.iter().flat_map(|x| x.to_le_bytes()).collect();
    let view = TensorView::new(Dtype::F32, vec![rows, config.hidden_dim], &bytes)
        .map_err(|e| Error::Internal(format!("the static table: {e}")))?;
    safetensors::serialize_to_file([(TENSOR, view)], None, &out.join("model.safetensors"))
        .map_err(|e| Error::Internal(format!("writing {}: {e}", out.join("model.safetensors").display())))?;
    let json = serde_json::to_vec_pretty(config).map_err(|e| Error::Internal(e.to_string()))?;
    std::fs::write(out.join("config.json"), json).map_err(|e| io("writing config.json", e))?;
    std::fs::copy(tokenizer, out.join("tokenizer.json")).map_err(|e| io("copying tokenizer.json", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_tokens_weigh_less() {
        let w = zipf_weights(30_000, 1e-4);
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "weights rise with rank");
        assert!(w[0] < 0.01 && w[29_999] > 0.9, "{} {}", w[0], w[29_999]);
    }
}
