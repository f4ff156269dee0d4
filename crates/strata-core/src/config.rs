//! Configuration: `strata.toml`, environment overrides, validation at load.
//!
//! Every value is validated when the configuration is built, so an invalid combination never
//! reaches the pipeline. Errors name the key, the bad value and where it came from.
//!
//! ```
//! use strata_core::Config;
//! let config = Config::from_toml_str("[chunk]\nmax_tokens = 256\n", "strata.toml").unwrap();
//! assert_eq!(config.chunk.max_tokens, 256);
//! let err = Config::from_toml_str("[chunk]\nmax_tokens = 0\n", "strata.toml").unwrap_err();
//! assert!(err.to_string().contains("chunk.max_tokens"));
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::config_models::{
    ChatConfig, ContextConfig, Price, RerankConfig, CHAT_PROVIDERS, CONTEXT_KINDS, RERANK_KINDS,
};
pub use crate::config_serve::ServeConfig;
pub use crate::config_store::{StoreConfig, STORE_KINDS};
use crate::{Error, Result};

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Chunking.
    pub chunk: ChunkConfig,
    /// Token counting.
    pub tokenizer: TokenizerConfig,
    /// Ingest limits.
    pub ingest: IngestConfig,
    /// Search defaults.
    pub search: SearchConfig,
    /// The dense leg: embedding model and vector index.
    pub dense: DenseConfig,
    /// What writes each chunk's context.
    pub context: ContextConfig,
    /// The reranker of the top fused results.
    pub rerank: RerankConfig,
    /// `strata serve` and `strata mcp`.
    pub serve: ServeConfig,
    /// Where the index lives.
    pub store: StoreConfig,
}

/// `[dense]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenseConfig {
    /// Embed chunks at ingest and offer the dense leg. Default true.
    pub enabled: bool,
    /// `local` (a sentence-transformer folder run on ONNX Runtime) or `http` (an
    /// OpenAI-compatible `/v1/embeddings` API, configured in `[dense.http]`).
    pub provider: String,
    /// Local model: a folder path or a name looked up in `STRATA_MODELS` and the cache.
    /// Default `all-MiniLM-L6-v2`.
    pub model: String,
    /// Texts per forward pass. Default 32.
    pub batch_size: usize,
    /// Inference threads; 0 means one per core. Default 0.
    pub threads: usize,
    /// Above this many vectors an HNSW graph is built and searched instead of scanning every
    /// vector. Default 20000.
    pub ann_threshold: usize,
    /// Also embed each section's profile at ingest, for the dense section leg of
    /// hierarchical mode (`[search.weights] sections`). About 40% more texts to embed on the
    /// corpus. Default false.
    pub sections: bool,
    /// The HTTP provider.
    pub http: DenseHttpConfig,
}

impl Default for DenseConfig {
    fn default() -> Self {
        DenseConfig {
            enabled: true,
            provider: "local".into(),
            model: "all-MiniLM-L6-v2".into(),
            batch_size: 32,
            threads: 0,
            ann_threshold: 20_000,
            sections: false,
            http: DenseHttpConfig::default(),
        }
    }
}

/// `[dense.http]`: an OpenAI-compatible embeddings endpoint (OpenAI, Azure OpenAI, Ollama,
/// vLLM, TEI). The key is read from the environment variable `api_key_env`, never from this
/// file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenseHttpConfig {
    /// Base URL, e.g. `https://api.openai.com/v1`; `/embeddings` is appended.
    pub base_url: String,
    /// Model name sent to the API.
    pub model: String,
    /// Environment variable that holds the key. Default `OPENAI_API_KEY`.
    pub api_key_env: String,
    /// `dimensions` sent to the API, when set.
    pub dimensions: Option<usize>,
    /// Inputs per request. Default 64.
    pub batch_size: usize,
    /// Seconds before a request is abandoned. Default 30.
    pub timeout_secs: u64,
    /// Retries after the first attempt. Default 5.
    pub max_retries: u32,
    /// How the key is sent: `bearer` (`Authorization: Bearer KEY`, the default) or `api-key`
    /// (Azure OpenAI's `api-key: KEY`).
    pub auth_header: String,
    /// Text put before queries (e.g. `query: ` for e5 served by TEI).
    pub query_prefix: String,
    /// Text put before passages.
    pub passage_prefix: String,
    /// The model's window in tokens, for the record. Default 8191.
    pub max_seq_len: usize,
}

impl Default for DenseHttpConfig {
    fn default() -> Self {
        DenseHttpConfig {
            base_url: "https://api.openai.com/v1".into(),
            model: "text-embedding-3-small".into(),
            api_key_env: "OPENAI_API_KEY".into(),
            dimensions: None,
            batch_size: 64,
            timeout_secs: 30,
            max_retries: 5,
            auth_header: "bearer".into(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
            max_seq_len: 8191,
        }
    }
}

/// `[chunk]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkConfig {
    /// Most tokens in a chunk's own text. Default 512.
    pub max_tokens: usize,
    /// Tokens of the previous chunk repeated before a chunk, for indexing. Default 64.
    pub overlap: usize,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig { max_tokens: 512, overlap: 64 }
    }
}

/// `[tokenizer]`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    /// A folder with the embedding model's `tokenizer.json`, or the file itself. When unset,
    /// tokens are counted with tiktoken `cl100k_base`.
    pub model: Option<PathBuf>,
}

/// `[ingest]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IngestConfig {
    /// Files larger than this are refused with a per-file error, before they are read, so
    /// memory stays bounded. Default 64 MiB.
    pub max_file_bytes: u64,
    /// Documents written between two commits. A crash loses at most the documents since the
    /// last commit; re-running ingest completes the job. Default 64.
    pub commit_every: usize,
}

impl Default for IngestConfig {
    fn default() -> Self {
        IngestConfig { max_file_bytes: 64 * 1024 * 1024, commit_every: 64 }
    }
}

/// `[search]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Results per query when `-k` is not given. Default 10.
    pub k: usize,
    /// Mode when `--mode` is not given.
    pub mode: String,
    /// Per-leg RRF weights.
    pub weights: LegWeights,
    /// RRF constant. Default 60.
    pub rrf_k: f64,
    /// Hierarchical mode: sections returned. Default 3.
    pub sections: usize,
    /// Hierarchical mode: chunks returned per section at most. Default 5.
    pub chunks_per_section: usize,
    /// How the legs' lists are combined: `rrf` (reciprocal rank fusion, the default) or
    /// `weighted` (each leg's scores min-max normalized, then summed with the leg weights).
    pub fusion: String,
    /// Tokens of the assembled context block (`--budget`). Default 4000.
    pub budget: usize,
    /// Auto-merge: when at least this share of a section's chunks are hits, the section is
    /// returned whole in their place. 0 turns merging off. Default 0.5.
    pub auto_merge: f64,
    /// Sentences highlighted per hit. 0 turns highlights off. Default 3.
    pub highlights: usize,
    /// Score highlight sentences with the embedding model (dense, BM25 breaking near-ties)
    /// when the dense leg ran; false scores them with BM25 alone, which embeds nothing at
    /// query time. Default true.
    pub dense_highlights: bool,
    /// Order of the hits in the assembled context: `position` (grouped by document, in
    /// document order; the default) or `score`.
    pub order: String,
    /// Attach the sections that hits refer to (one hop, within the budget). Default false.
    pub references: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            k: 10,
            mode: "hybrid".into(),
            weights: LegWeights::default(),
            rrf_k: 60.0,
            sections: 3,
            chunks_per_section: 5,
            fusion: "rrf".into(),
            budget: 4000,
            auto_merge: 0.5,
            highlights: 3,
            dense_highlights: true,
            order: "position".into(),
            references: false,
        }
    }
}

/// `[search.weights]`: the weight of each leg in reciprocal rank fusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LegWeights {
    /// BM25 leg.
    pub keyword: f64,
    /// Exact leg.
    pub exact: f64,
    /// Dense leg.
    pub dense: f64,
    /// Hierarchical mode: each section leg (BM25, and dense when the index has section
    /// vectors, over each section's heading path, lead text and children's titles), which
    /// re-ranks the sections of a document. Default 0 (off): on both shared evaluation sets
    /// hierarchical mode is better without it (`bench/results/eval/README.md`).
    pub sections: f64,
}

impl Default for LegWeights {
    fn default() -> Self {
        LegWeights { keyword: 1.0, exact: 1.0, dense: 1.0, sections: 0.0 }
    }
}

/// The search modes strata knows.
pub const MODES: &[&str] = &["keyword", "exact", "hybrid", "dense", "hierarchical"];

/// Largest `k` a search may ask for.
pub const MAX_K: usize = 100;

/// The fusion schemes strata knows.
pub const FUSIONS: &[&str] = &["rrf", "weighted"];

/// The orders of an assembled context.
pub const ORDERS: &[&str] = &["position", "score"];

/// Most fused results a reranker may be handed.
pub const MAX_CANDIDATES: usize = 1000;

/// Largest context budget in tokens.
pub const MAX_BUDGET: usize = 1_000_000;

impl Config {
    /// Parses TOML text; `origin` names the source in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config> {
        let config: Config = toml::from_str(text)
            .map_err(|e| Error::user(format!("{origin}: {}", e.to_string().trim_end())))?;
        config.validate(origin)?;
        Ok(config)
    }

    /// Loads `path` when given, else `./strata.toml` when it exists, else the defaults; then
    /// applies environment overrides and validates.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        let (mut config, origin) = match path {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| Error::io(format!("reading config {}", p.display()), e))?;
                (Config::from_toml_str(&text, &p.display().to_string())?, p.display().to_string())
            }
            None if Path::new("strata.toml").exists() => {
                let text = std::fs::read_to_string("strata.toml")
                    .map_err(|e| Error::io("reading config strata.toml", e))?;
                (Config::from_toml_str(&text, "strata.toml")?, "strata.toml".to_string())
            }
            None => (Config::default(), "defaults".to_string()),
        };
        config.apply_env(|k| std::env::var(k).ok())?;
        config.validate(&format!("{origin} + environment"))?;
        Ok(config)
    }

    /// Applies `STRATA_*` overrides read through `get`.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<()> {
        fn num<T: std::str::FromStr>(key: &str, v: &str) -> Result<T> {
            v.trim()
                .parse()
                .map_err(|_| Error::user(format!("environment variable {key} must be a number, got {v:?}")))
        }
        if let Some(v) = get("STRATA_CHUNK_MAX_TOKENS") {
            self.chunk.max_tokens = num("STRATA_CHUNK_MAX_TOKENS", &v)?;
        }
        if let Some(v) = get("STRATA_CHUNK_OVERLAP") {
            self.chunk.overlap = num("STRATA_CHUNK_OVERLAP", &v)?;
        }
        if let Some(v) = get("STRATA_TOKENIZER_MODEL") {
            self.tokenizer.model = if v.is_empty() { None } else { Some(PathBuf::from(v)) };
        }
        if let Some(v) = get("STRATA_INGEST_MAX_FILE_BYTES") {
            self.ingest.max_file_bytes = num("STRATA_INGEST_MAX_FILE_BYTES", &v)?;
        }
        if let Some(v) = get("STRATA_INGEST_COMMIT_EVERY") {
            self.ingest.commit_every = num("STRATA_INGEST_COMMIT_EVERY", &v)?;
        }
        if let Some(v) = get("STRATA_SEARCH_K") {
            self.search.k = num("STRATA_SEARCH_K", &v)?;
        }
        if let Some(v) = get("STRATA_SEARCH_MODE") {
            self.search.mode = v;
        }
        if let Some(v) = get("STRATA_DENSE_ENABLED") {
            self.dense.enabled = match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => {
                    return Err(Error::user(format!(
                        "environment variable STRATA_DENSE_ENABLED must be true or false, got {v:?}"
                    )))
                }
            };
        }
        if let Some(v) = get("STRATA_DENSE_MODEL") {
            self.dense.model = v;
        }
        if let Some(v) = get("STRATA_DENSE_ANN_THRESHOLD") {
            self.dense.ann_threshold = num("STRATA_DENSE_ANN_THRESHOLD", &v)?;
        }
        if let Some(v) = get("STRATA_DENSE_PROVIDER") {
            self.dense.provider = v;
        }
        if let Some(v) = get("STRATA_CONTEXT") {
            self.context.kind = v;
        }
        if let Some(v) = get("STRATA_RERANK") {
            self.rerank.kind = v;
        }
        if let Some(v) = get("STRATA_RERANK_MODEL") {
            self.rerank.model = v;
        }
        if let Some(v) = get("STRATA_API_KEYS") {
            self.serve.add_env_keys(&v);
        }
        if let Some(v) = get("STRATA_STORE") {
            self.store.kind = v;
        }
        if let Some(v) = get("STRATA_STORE_URL") {
            self.store.url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = get("STRATA_STORE_READ_URL") {
            self.store.read_url = Some(v).filter(|v| !v.is_empty());
        }
        if let Some(v) = get("STRATA_STORE_COLLECTION") {
            self.store.collection = Some(v).filter(|v| !v.is_empty());
        }
        Ok(())
    }

    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |key: &str, rule: &str, got: String| {
            Err(Error::user(format!("{key} {rule}, got {got} ({origin})")))
        };
        if !(16..=8192).contains(&self.chunk.max_tokens) {
            return bad("chunk.max_tokens", "must be between 16 and 8192", self.chunk.max_tokens.to_string());
        }
        if self.chunk.overlap * 2 > self.chunk.max_tokens {
            return bad(
                "chunk.overlap",
                &format!("must be at most half of chunk.max_tokens ({})", self.chunk.max_tokens),
                self.chunk.overlap.to_string(),
            );
        }
        if self.ingest.max_file_bytes == 0 {
            return bad("ingest.max_file_bytes", "must be positive", "0".into());
        }
        if self.ingest.commit_every == 0 {
            return bad("ingest.commit_every", "must be at least 1", "0".into());
        }
        if !(1..=MAX_K).contains(&self.search.k) {
            return bad("search.k", &format!("must be between 1 and {MAX_K}"), self.search.k.to_string());
        }
        if !MODES.contains(&self.search.mode.as_str()) {
            return bad(
                "search.mode",
                &format!("must be one of {}", MODES.join(", ")),
                format!("{:?}", self.search.mode),
            );
        }
        for (key, w) in [
            ("search.weights.keyword", self.search.weights.keyword),
            ("search.weights.exact", self.search.weights.exact),
            ("search.weights.dense", self.search.weights.dense),
            ("search.weights.sections", self.search.weights.sections),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return bad(key, "must be a finite number >= 0", w.to_string());
            }
        }
        for (key, value) in [
            ("search.sections", self.search.sections),
            ("search.chunks_per_section", self.search.chunks_per_section),
        ] {
            if !(1..=MAX_K).contains(&value) {
                return bad(key, &format!("must be between 1 and {MAX_K}"), value.to_string());
            }
        }
        if !(self.search.rrf_k.is_finite() && self.search.rrf_k > 0.0) {
            return bad("search.rrf_k", "must be > 0", self.search.rrf_k.to_string());
        }
        if !FUSIONS.contains(&self.search.fusion.as_str()) {
            return bad(
                "search.fusion",
                &format!("must be one of {}", FUSIONS.join(", ")),
                format!("{:?}", self.search.fusion),
            );
        }
        if !ORDERS.contains(&self.search.order.as_str()) {
            return bad(
                "search.order",
                &format!("must be one of {}", ORDERS.join(", ")),
                format!("{:?}", self.search.order),
            );
        }
        if !(1..=MAX_BUDGET).contains(&self.search.budget) {
            return bad(
                "search.budget",
                &format!("must be between 1 and {MAX_BUDGET}"),
                self.search.budget.to_string(),
            );
        }
        if !(self.search.auto_merge.is_finite() && (0.0..=1.0).contains(&self.search.auto_merge)) {
            return bad(
                "search.auto_merge",
                "must be between 0 (off) and 1",
                self.search.auto_merge.to_string(),
            );
        }
        if self.search.highlights > 20 {
            return bad(
                "search.highlights",
                "must be between 0 (off) and 20",
                self.search.highlights.to_string(),
            );
        }
        if !["local", "http"].contains(&self.dense.provider.as_str()) {
            return bad("dense.provider", "must be local or http", format!("{:?}", self.dense.provider));
        }
        if self.dense.model.trim().is_empty() {
            return bad("dense.model", "must name a model folder or a model", "an empty string".into());
        }
        if !(1..=1024).contains(&self.dense.batch_size) {
            return bad("dense.batch_size", "must be between 1 and 1024", self.dense.batch_size.to_string());
        }
        if self.dense.http.batch_size == 0 {
            return bad("dense.http.batch_size", "must be at least 1", "0".into());
        }
        if !["bearer", "api-key"].contains(&self.dense.http.auth_header.as_str()) {
            return bad(
                "dense.http.auth_header",
                "must be bearer or api-key",
                format!("{:?}", self.dense.http.auth_header),
            );
        }
        if self.dense.http.timeout_secs == 0 {
            return bad("dense.http.timeout_secs", "must be at least 1", "0".into());
        }
        self.context.validate(origin)?;
        self.rerank.validate(origin)?;
        self.serve.validate(origin)?;
        self.store.validate(origin)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_and_rerank_sections_are_validated_by_key() {
        let c =
            Config::from_toml_str("[context]\nkind = \"anthropic\"\n[context.llm]\nmax_tokens = 50\n", "x")
                .unwrap();
        assert_eq!(
            (c.context.kind.as_str(), c.context.llm.max_tokens, c.context.llm.concurrency),
            ("anthropic", 50, 10)
        );
        let err = Config::from_toml_str("[context]\nkind = \"gpt\"\n", "x").unwrap_err().to_string();
        assert!(err.contains("context.kind") && err.contains("structural"), "{err}");
        let err = Config::from_toml_str("[context.llm]\nconcurrency = 0\n", "x").unwrap_err().to_string();
        assert!(err.contains("context.llm.concurrency"), "{err}");
        let err = Config::from_toml_str("[rerank]\nkind = \"cross-encoder\"\n", "x").unwrap_err().to_string();
        assert!(err.contains("rerank.model") && err.contains("folder"), "{err}");
        let err = Config::from_toml_str("[rerank.llm.price]\ninput = -1\noutput = 1\n", "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rerank.llm.price.input"), "{err}");
        assert_eq!(Config::default().context.kind, "structural");
        assert_eq!(Config::default().rerank.candidates, 50);
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Config::from_toml_str("[chunk]\nmax_token = 5\n", "strata.toml").unwrap_err();
        assert!(err.to_string().contains("max_token"), "{err}");
    }

    #[test]
    fn overlap_larger_than_half_is_refused() {
        let err = Config::from_toml_str("[chunk]\nmax_tokens = 100\noverlap = 80\n", "x").unwrap_err();
        assert!(err.to_string().contains("chunk.overlap"), "{err}");
    }

    #[test]
    fn env_overrides_apply_and_validate() {
        let mut c = Config::default();
        c.apply_env(|k| (k == "STRATA_CHUNK_MAX_TOKENS").then(|| "300".to_string())).unwrap();
        assert_eq!(c.chunk.max_tokens, 300);
        let err = c.apply_env(|k| (k == "STRATA_SEARCH_K").then(|| "ten".to_string())).unwrap_err();
        assert!(err.to_string().contains("STRATA_SEARCH_K"));
        c.search.mode = "fuzzy".into();
        assert!(c.validate("env").unwrap_err().to_string().contains("search.mode"));
    }
}
