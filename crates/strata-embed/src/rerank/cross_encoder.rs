//! A local cross-encoder: `BertForSequenceClassification` on ONNX Runtime.
//!
//! The folder is the one `sentence_transformers.CrossEncoder` saves (and the Hugging Face
//! repositories of cross-encoder/ms-marco-MiniLM-L-6-v2, -L-12-v2, BAAI/bge-reranker-base…
//! hold): `config.json`, `model.safetensors`, `tokenizer.json`. The graph is the encoder of
//! [`crate::local::graph`] with segment ids, the pooler and the classifier
//! ([`Head::Classifier`]); `tests/cross_encoder.rs` checks its logits against transformers'
//! own implementation on a random-weight model of the ms-marco-MiniLM-L-6-v2 layout.
//!
//! Each pair is tokenized as `[CLS] query [SEP] passage [SEP]`, segment 0 then 1, cut to the
//! window (512 tokens) longest-first, as CrossEncoder does. Pairs are sorted by length and
//! padded per batch. The score is the first logit, raw: a sigmoid would not change the order.

use std::path::Path;
use std::sync::Mutex;

use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use strata_core::{Error, Result};
use tokenizers::{EncodeInput, Encoding, Tokenizer};

use crate::folder::ModelFolder;
use crate::local::graph::{self, Head};
use crate::local::{safetensors_of, session, tokenizer_for, LocalOptions, Precision};
use strata_model::rerank::Reranker;

/// Most tokens of a pair, as CrossEncoder's `max_length` (the model's `model_max_length`).
pub const MAX_PAIR_TOKENS: usize = 512;

/// A BERT cross-encoder read from a local folder.
pub struct CrossEncoder {
    id: String,
    tokenizer: Tokenizer,
    session: Mutex<Session>,
    batch_size: usize,
    window: usize,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder").field("id", &self.id).field("window", &self.window).finish()
    }
}

impl CrossEncoder {
    /// Loads the cross-encoder in folder `dir`.
    pub fn open(dir: &Path, options: LocalOptions) -> Result<CrossEncoder> {
        if !dir.join("config.json").is_file() {
            return Err(Error::user(format!(
                "reranker model {}: no config.json there; give the folder of a cross-encoder \
                 (config.json, model.safetensors, tokenizer.json), e.g. one saved by \
                 sentence_transformers.CrossEncoder(\"cross-encoder/ms-marco-MiniLM-L-6-v2\").save(DIR)",
                dir.display()
            )));
        }
        let folder = ModelFolder::read(dir)?;
        let window = MAX_PAIR_TOKENS.min(folder.config.max_position_embeddings);
        let tokenizer = tokenizer_for(&folder, window)?;
        let what = format!("the cross-encoder for {}", dir.display());
        let options = LocalOptions { precision: Precision::Fp32, ..options };
        let weights = graph::WeightsFile::open(safetensors_of(&folder)?)?;
        let session = session(&folder, &weights, Head::Classifier, options, &what)?;
        Ok(CrossEncoder {
            id: format!("cross-encoder:{}", folder.model_id),
            tokenizer,
            session: Mutex::new(session),
            batch_size: options.batch_size.max(1),
            window,
        })
    }

    /// The token ids and segment ids of one pair, as the model reads them.
    pub fn encode(&self, query: &str, passage: &str) -> Result<Encoding> {
        self.tokenizer
            .encode(EncodeInput::Dual(query.into(), passage.into()), true)
            .map_err(|e| Error::Internal(format!("tokenizing for {}: {e}", self.id)))
    }

    /// Logits of pairs already encoded, one row of `labels` values per pair.
    fn run(&self, rows: &[&Encoding]) -> Result<Vec<f32>> {
        let n = rows.len();
        let len = rows.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0i64; n * len];
        let mut mask = vec![0i64; n * len];
        let mut types = vec![0i64; n * len];
        for (r, e) in rows.iter().enumerate() {
            for (t, ((&id, &m), &ty)) in
                e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate()
            {
                ids[r * len + t] = id as i64;
                mask[r * len + t] = m as i64;
                types[r * len + t] = ty as i64;
            }
        }
        let err = |e: ort::Error| Error::Internal(format!("running {}: {e}", self.id));
        let shape = vec![n as i64, len as i64];
        let inputs: Vec<(std::borrow::Cow<'_, str>, SessionInputValue<'_>)> = vec![
            ("input_ids".into(), Tensor::from_array((shape.clone(), ids)).map_err(err)?.into()),
            ("attention_mask".into(), Tensor::from_array((shape.clone(), mask)).map_err(err)?.into()),
            ("token_type_ids".into(), Tensor::from_array((shape, types)).map_err(err)?.into()),
        ];
        let mut session =
            self.session.lock().map_err(|_| Error::Internal("cross-encoder lock poisoned".into()))?;
        let outputs = session.run(inputs).map_err(err)?;
        let (_, logits) = outputs[graph::LOGITS].try_extract_tensor::<f32>().map_err(err)?;
        Ok(logits.to_vec())
    }
}

impl Reranker for CrossEncoder {
    fn id(&self) -> &str {
        &self.id
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        let encodings: Vec<Encoding> =
            passages.iter().map(|p| self.encode(query, p)).collect::<Result<_>>()?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
        let mut scores = vec![0.0f32; passages.len()];
        for batch in order.chunks(self.batch_size) {
            let rows: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            let logits = self.run(&rows)?;
            let labels = logits.len() / rows.len().max(1);
            for (k, &i) in batch.iter().enumerate() {
                scores[i] = logits[k * labels];
            }
        }
        Ok(scores)
    }
}
