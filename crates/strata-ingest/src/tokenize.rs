//! Token counting with offsets: the measure chunks are bounded by.
//!
//! A [`Tokenizer`] returns the byte offset where each token of a text starts. The chunker
//! tokenizes a section once and then counts the tokens of any range with two binary
//! searches, instead of re-tokenizing candidate ranges.
//!
//! Two implementations of `strata-text`'s [`Tokenizer`] trait: the embedding model's own
//! `tokenizer.json` through the `tokenizers` crate ([`HfTokenizer`]), and tiktoken
//! `cl100k_base` ([`Cl100k`]) when no model is configured.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_core::{Error, Result};
use strata_text::tokenize::Tokenizer;

/// The tokenizer a configuration asks for: the model's `tokenizer.json` when
/// `tokenizer.model` is set, else `cl100k_base`.
pub fn from_config(config: &strata_core::config::TokenizerConfig) -> Result<Arc<dyn Tokenizer>> {
    match &config.model {
        Some(path) => Ok(Arc::new(HfTokenizer::from_path(path)?)),
        None => Ok(Arc::new(Cl100k::new()?)),
    }
}

/// A Hugging Face `tokenizer.json`, with padding and truncation switched off.
pub struct HfTokenizer {
    inner: tokenizers::Tokenizer,
    id: String,
}

impl HfTokenizer {
    /// Loads `tokenizer.json`, or `DIR/tokenizer.json` when `path` is a folder.
    pub fn from_path(path: &Path) -> Result<HfTokenizer> {
        let file: PathBuf = if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() };
        let bytes = std::fs::read(&file).map_err(|e| {
            Error::user(format!(
                "tokenizer.model = {}: cannot read {} ({e}); point it at a model folder holding tokenizer.json",
                path.display(),
                file.display()
            ))
        })?;
        let mut inner = tokenizers::Tokenizer::from_bytes(&bytes).map_err(|e| {
            Error::user(format!("tokenizer.model: {} is not a valid tokenizer.json: {e}", file.display()))
        })?;
        // A model's tokenizer.json may switch both on (all-MiniLM-L6-v2 pads and truncates to
        // 128); counting must see every token.
        inner.with_padding(None);
        inner.with_truncation(None).map_err(|e| Error::Internal(format!("disabling truncation: {e}")))?;
        let name = file
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tokenizer".into());
        let hash = blake3::hash(&bytes).to_hex();
        Ok(HfTokenizer { inner, id: format!("hf:{name}@{}", &hash[..8]) })
    }
}

impl Tokenizer for HfTokenizer {
    fn id(&self) -> &str {
        &self.id
    }

    fn token_starts(&self, text: &str) -> Vec<usize> {
        match self.inner.encode(text, false) {
            Ok(encoding) => {
                let mut starts: Vec<usize> =
                    encoding.get_offsets().iter().map(|o| o.0.min(text.len().saturating_sub(1))).collect();
                // Offsets of normalized tokens are non-decreasing in practice; make it a guarantee.
                for i in 1..starts.len() {
                    if starts[i] < starts[i - 1] {
                        starts[i] = starts[i - 1];
                    }
                }
                starts
            }
            Err(e) => {
                tracing::warn!("tokenizer failed ({e}); estimating tokens as bytes/4");
                (0..text.len()).step_by(4).collect()
            }
        }
    }
}

/// tiktoken `cl100k_base`.
pub struct Cl100k {
    bpe: &'static tiktoken_rs::CoreBPE,
    /// Byte length of each token, by rank: offsets come from summing them, without decoding
    /// (and allocating) token by token on every section.
    lengths: &'static [u16],
}

/// Ranks of `cl100k_base` (100,256 ordinary tokens and its special tokens) fit below this.
const CL100K_RANKS: u32 = 100_352;

impl Cl100k {
    /// Loads the (embedded) `cl100k_base` ranks and, once per process, the token lengths.
    pub fn new() -> Result<Cl100k> {
        static LENGTHS: std::sync::LazyLock<Vec<u16>> = std::sync::LazyLock::new(|| {
            let bpe = tiktoken_rs::cl100k_base_singleton();
            (0..CL100K_RANKS)
                .map(|r| bpe.decode_bytes(&[r]).map(|b| b.len().min(u16::MAX as usize) as u16).unwrap_or(0))
                .collect()
        });
        Ok(Cl100k { bpe: tiktoken_rs::cl100k_base_singleton(), lengths: &LENGTHS })
    }

    fn token_len(&self, rank: u32) -> usize {
        match self.lengths.get(rank as usize) {
            Some(&len) if len > 0 => len as usize,
            _ => self.bpe.decode_bytes(&[rank]).map(|b| b.len()).unwrap_or(1),
        }
    }
}

impl Tokenizer for Cl100k {
    fn id(&self) -> &str {
        "cl100k_base"
    }

    fn token_starts(&self, text: &str) -> Vec<usize> {
        let tokens = self.bpe.encode_ordinary(text);
        let mut starts = Vec::with_capacity(tokens.len());
        let mut at = 0usize;
        for t in tokens {
            starts.push(at.min(text.len().saturating_sub(1)));
            at += self.token_len(t);
        }
        starts
    }

    fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test model folder: `STRATA_MODEL_DIR`, else what `scripts/fetch-models.sh` fetches.
    fn model_dir() -> Option<PathBuf> {
        let dir = std::env::var_os("STRATA_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| {
            let cache = std::env::var_os("STRATA_CACHE").map(PathBuf::from).unwrap_or_else(|| {
                Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache/strata")
            });
            cache.join("models/all-MiniLM-L6-v2")
        });
        if dir.join("tokenizer.json").exists() {
            Some(dir)
        } else {
            eprintln!("skipping: no tokenizer.json in {}; run scripts/fetch-models.sh", dir.display());
            None
        }
    }

    /// all-MiniLM-L6-v2's tokenizer.json pads and truncates to 128; counting must see every
    /// token, with offsets in the text.
    #[test]
    fn hf_tokenizer_counts_without_truncation_or_padding() {
        let Some(dir) = model_dir() else { return };
        let t = HfTokenizer::from_path(&dir).unwrap();
        assert!(t.id().starts_with("hf:all-MiniLM-L6-v2@"), "{}", t.id());
        let text = "The claimed invention was patented. ".repeat(100);
        let starts = t.token_starts(&text);
        assert_eq!(starts.len(), 600, "5 words + 1 period per sentence, no [CLS]/[SEP]/[PAD]");
        assert_eq!(&text[starts[1]..starts[2]], "claimed ");
        assert_eq!(t.count("short"), 1);
    }

    #[test]
    fn hf_tokenizer_missing_file_names_the_key() {
        let err = HfTokenizer::from_path(Path::new("/no/such/model")).err().unwrap().to_string();
        assert!(err.contains("tokenizer.model") && err.contains("tokenizer.json"), "{err}");
    }

    #[test]
    fn cl100k_offsets_cover_the_text() {
        let t = Cl100k::new().unwrap();
        let text = "Section 102(b) — “novelty”; prior art.";
        let starts = t.token_starts(text);
        assert_eq!(starts[0], 0);
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(starts.len(), t.count(text));
        // The length table agrees with decoding each token.
        let tokens = t.bpe.encode_ordinary(text);
        let decoded: usize = tokens.iter().map(|&r| t.bpe.decode_bytes(&[r]).unwrap().len()).sum();
        assert_eq!(decoded, text.len());
        assert_eq!(tokens.iter().map(|&r| t.token_len(r)).sum::<usize>(), text.len());
    }
}
