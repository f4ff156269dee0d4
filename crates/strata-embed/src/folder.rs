//! What a sentence-transformer folder says about itself.
//!
//! A model folder as published by sentence-transformers holds:
//! - `config.json`: the BERT architecture (hidden size, layers, heads, activation);
//! - `tokenizer.json`: the fast tokenizer;
//! - `model.safetensors` (or, in older folders, `pytorch_model.bin`): the weights;
//! - `modules.json` and `1_Pooling/config.json`: the pipeline and its pooling;
//! - `sentence_bert_config.json`: the window (`max_seq_length`);
//! - `config_sentence_transformers.json`: query and document prompts, when the model has them.
//!
//! [`ModelFolder::read`] turns that into one [`ModelFolder`], so that the runtime never guesses.
//! Where a file is missing the defaults are the ones sentence-transformers itself applies
//! (mean pooling, the position-embedding window).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use strata_core::{Error, Result};

use strata_model::Pooling;

/// The BERT architecture from `config.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BertConfig {
    /// `model_type`: `bert` (also accepted: `xlm-roberta`/`roberta` are refused for now).
    #[serde(default)]
    pub model_type: String,
    /// Width of every hidden state.
    pub hidden_size: usize,
    /// Transformer layers.
    pub num_hidden_layers: usize,
    /// Attention heads per layer.
    pub num_attention_heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate_size: usize,
    /// Feed-forward activation: `gelu` (erf) or `gelu_new`/`gelu_pytorch_tanh` (tanh).
    #[serde(default = "default_act")]
    pub hidden_act: String,
    /// Layer-norm epsilon.
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// Length of the position-embedding table.
    pub max_position_embeddings: usize,
    /// Vocabulary size.
    pub vocab_size: usize,
    /// Token-type (segment) vocabulary size.
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_eps() -> f64 {
    1e-12
}
fn default_type_vocab() -> usize {
    2
}

/// Where the weights are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Weights {
    /// `model.safetensors`.
    Safetensors(PathBuf),
    /// `pytorch_model.bin` only (a pickle, which strata does not read; see [`ModelFolder::read`]).
    PytorchBin(PathBuf),
}

/// A sentence-transformer folder, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFolder {
    /// The folder.
    pub dir: PathBuf,
    /// Model id: the folder's name, or the repository name in a Hugging Face cache.
    pub model_id: String,
    /// Architecture.
    pub config: BertConfig,
    /// `tokenizer.json`.
    pub tokenizer: PathBuf,
    /// Weights file.
    pub weights: Weights,
    /// Pooling, from `1_Pooling/config.json` (mean when absent).
    pub pooling: Pooling,
    /// Whether the pipeline ends with a `Normalize` module (strata normalizes either way).
    pub normalize: bool,
    /// Window in tokens, special tokens included: `max_seq_length` from
    /// `sentence_bert_config.json`, capped by the position table.
    pub max_seq_len: usize,
    /// Text put before queries.
    pub query_prefix: String,
    /// Text put before passages.
    pub passage_prefix: String,
}

#[derive(Deserialize)]
struct ModuleEntry {
    #[serde(default)]
    path: String,
    #[serde(rename = "type", default)]
    kind: String,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

#[derive(Deserialize, Default)]
struct SentenceTransformersConfig {
    #[serde(default)]
    prompts: std::collections::HashMap<String, String>,
}

/// The bge English query instruction (bge-*-en-v1.5 model cards).
pub const BGE_EN_QUERY_PREFIX: &str = "Represent this sentence for searching relevant passages: ";

impl ModelFolder {
    /// Reads and checks the folder `dir`.
    ///
    /// Errors name the file and what is wrong with it. A folder with only
    /// `pytorch_model.bin` is refused with the one-line conversion that makes it readable,
    /// because reading a pickle would mean executing a format strata does not trust.
    pub fn read(dir: &Path) -> Result<ModelFolder> {
        let config = bert_config(dir)?;
        let tokenizer = dir.join("tokenizer.json");
        if !tokenizer.is_file() {
            return Err(Error::user(format!(
                "{}: missing; the model folder needs the fast tokenizer file",
                tokenizer.display()
            )));
        }
        let weights = if dir.join("model.safetensors").is_file() {
            Weights::Safetensors(dir.join("model.safetensors"))
        } else if dir.join("pytorch_model.bin").is_file() {
            Weights::PytorchBin(dir.join("pytorch_model.bin"))
        } else {
            return Err(Error::user(format!(
                "{}: no model.safetensors (or pytorch_model.bin) in the model folder",
                dir.display()
            )));
        };
        let (pooling, normalize) = pipeline(dir)?;
        let sbert = dir.join("sentence_bert_config.json");
        let window =
            if sbert.is_file() { read_json::<SentenceBertConfig>(&sbert)?.max_seq_length } else { None };
        let max_seq_len = window.unwrap_or(512).min(config.max_position_embeddings);

        let model_id = model_id_of(dir);
        let st_config = dir.join("config_sentence_transformers.json");
        let prompts = if st_config.is_file() {
            read_json::<SentenceTransformersConfig>(&st_config)?.prompts
        } else {
            Default::default()
        };
        let (query_prefix, passage_prefix) = prefixes(&model_id, &prompts);

        Ok(ModelFolder {
            dir: dir.to_path_buf(),
            model_id,
            config,
            tokenizer,
            weights,
            pooling,
            normalize,
            max_seq_len,
            query_prefix,
            passage_prefix,
        })
    }
}

/// `config.json` of a BERT-family encoder, checked: the type, and heads that divide the width.
fn bert_config(dir: &Path) -> Result<BertConfig> {
    let config: BertConfig = read_json(&dir.join("config.json"))?;
    if !config.model_type.is_empty() && config.model_type != "bert" {
        return Err(Error::user(format!(
            "{}: model_type {:?} is not supported; strata runs BERT-family encoders \
             (all-MiniLM, bge, e5, gte)",
            dir.join("config.json").display(),
            config.model_type
        )));
    }
    if config.num_attention_heads == 0 || !config.hidden_size.is_multiple_of(config.num_attention_heads) {
        return Err(Error::user(format!(
            "{}: hidden_size {} is not a multiple of num_attention_heads {}",
            dir.join("config.json").display(),
            config.hidden_size,
            config.num_attention_heads
        )));
    }
    Ok(config)
}

/// The sentence-transformers pipeline after the encoder (`modules.json`): the pooling, mean
/// when the folder says nothing, and whether a `Normalize` module follows it.
fn pipeline(dir: &Path) -> Result<(Pooling, bool)> {
    let mut pooling_dir = dir.join("1_Pooling");
    let mut normalize = false;
    let modules_path = dir.join("modules.json");
    if modules_path.is_file() {
        let modules: Vec<ModuleEntry> = read_json(&modules_path)?;
        for m in &modules {
            if m.kind.ends_with("Pooling") {
                pooling_dir = dir.join(&m.path);
            } else if m.kind.ends_with("Normalize") {
                normalize = true;
            }
        }
    }
    let p = pooling_dir.join("config.json");
    if !p.is_file() {
        return Ok((Pooling::Mean, normalize));
    }
    let pc: PoolingConfig = read_json(&p)?;
    if pc.pooling_mode_max_tokens
        || pc.pooling_mode_mean_sqrt_len_tokens
        || pc.pooling_mode_weightedmean_tokens
        || pc.pooling_mode_lasttoken
    {
        return Err(Error::user(format!("{}: only mean or CLS pooling is supported", p.display())));
    }
    let pooling = match (pc.pooling_mode_cls_token, pc.pooling_mode_mean_tokens) {
        (true, false) => Pooling::Cls,
        (false, true) => Pooling::Mean,
        _ => {
            return Err(Error::user(format!(
                "{}: exactly one of pooling_mode_cls_token and pooling_mode_mean_tokens must be true",
                p.display()
            )))
        }
    };
    Ok((pooling, normalize))
}

/// The model id of a folder: its name, or `org/name`'s `name` for a Hugging Face cache
/// snapshot (`models--org--name/snapshots/REV`).
pub fn model_id_of(dir: &Path) -> String {
    let parts: Vec<String> = dir.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if let Some(i) = parts.iter().rposition(|p| p == "snapshots") {
        if let Some(repo) = i.checked_sub(1).and_then(|j| parts[j].strip_prefix("models--")) {
            return repo.rsplit("--").next().unwrap_or(repo).to_string();
        }
    }
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into())
}

/// Query and passage prefixes: the model's own prompts when it ships them, else the
/// conventions of its family (e5: `query: `/`passage: `; bge English: the retrieval
/// instruction on queries only).
fn prefixes(model_id: &str, prompts: &std::collections::HashMap<String, String>) -> (String, String) {
    if let Some(q) = prompts.get("query") {
        let p = prompts.get("document").or_else(|| prompts.get("passage")).cloned().unwrap_or_default();
        return (q.clone(), p);
    }
    let id = model_id.to_ascii_lowercase();
    if id.contains("e5") && !id.contains("instruct") {
        ("query: ".into(), "passage: ".into())
    } else if id.starts_with("bge") && id.contains("-en") {
        (BGE_EN_QUERY_PREFIX.into(), String::new())
    } else {
        (String::new(), String::new())
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    serde_json::from_str(&text).map_err(|e| Error::user(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_cache_snapshot_is_named_after_its_repository() {
        let p = Path::new("/h/hub/models--BAAI--bge-small-en-v1.5/snapshots/abc123");
        assert_eq!(model_id_of(p), "bge-small-en-v1.5");
        assert_eq!(model_id_of(Path::new("/m/all-MiniLM-L6-v2")), "all-MiniLM-L6-v2");
    }

    #[test]
    fn family_prefixes() {
        let none = Default::default();
        assert_eq!(prefixes("e5-small-v2", &none), ("query: ".into(), "passage: ".into()));
        assert_eq!(prefixes("bge-small-en-v1.5", &none), (BGE_EN_QUERY_PREFIX.into(), String::new()));
        assert_eq!(prefixes("all-MiniLM-L6-v2", &none), (String::new(), String::new()));
        let mut own = std::collections::HashMap::new();
        own.insert("query".to_string(), "q: ".to_string());
        assert_eq!(prefixes("e5-small-v2", &own), ("q: ".into(), String::new()));
    }
}
