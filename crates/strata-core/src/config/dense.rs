//! `[dense]` and `[dense.http]`: the embedding model of the dense leg and the vector index.

use serde::{Deserialize, Serialize};

use super::names::named;
use crate::{Error, Result};

named! {
    /// Where the embeddings come from (`[dense] provider`).
    pub enum DenseProvider in "[dense] provider" {
        /// A sentence-transformer folder run on ONNX Runtime (the default).
        Local = "local",
        /// An OpenAI-compatible `/v1/embeddings` API, configured in `[dense.http]`.
        Http = "http",
    }
}

named! {
    /// The arithmetic of a local model's projections (`[dense] precision`).
    #[derive(Default)]
    pub enum DensePrecision in "[dense] precision" {
        /// int8 where the CPU has VNNI, else f32 (the default).
        #[default]
        Auto = "auto",
        /// f32 throughout: the reference.
        Fp32 = "fp32",
        /// int8 projections, about twice as fast, cosine ≥ 0.996 to f32; f32 with a warning
        /// where the CPU has no VNNI.
        Int8 = "int8",
    }
}

named! {
    /// How an API key is sent (`[dense.http]`, `[context.llm]` and `[rerank.llm]`
    /// `auth_header`).
    #[derive(Default)]
    pub enum AuthHeader in "auth_header" {
        /// `Authorization: Bearer KEY` (OpenAI, vLLM, TEI, most proxies; the default).
        #[default]
        Bearer = "bearer",
        /// `api-key: KEY` (Azure OpenAI).
        ApiKey = "api-key",
    }
}

/// `[dense]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenseConfig {
    /// Embed chunks at ingest and offer the dense leg. Default true.
    pub enabled: bool,
    /// `local` (a sentence-transformer folder run on ONNX Runtime) or `http` (an
    /// OpenAI-compatible `/v1/embeddings` API, configured in `[dense.http]`).
    pub provider: DenseProvider,
    /// Local model: a folder path or a name looked up in `STRATA_MODELS` and the cache.
    /// Default `all-MiniLM-L6-v2`.
    pub model: String,
    /// Texts per forward pass. Default 32.
    pub batch_size: usize,
    /// Inference threads; 0 means one per core. Default 0.
    pub threads: usize,
    /// Local model sessions that embed batches side by side, sharing `threads`; 0 means
    /// one per thread, at most 4. Each holds its own copy of the model. Default 0.
    pub lanes: usize,
    /// Local model arithmetic: `auto` (int8 where the CPU has VNNI, else f32; the default),
    /// `fp32` or `int8`.
    pub precision: DensePrecision,
    /// Above this many vectors an HNSW graph is built and searched instead of scanning every
    /// vector. Default 20000.
    pub ann_threshold: usize,
    /// Also embed each section's profile at ingest, for the dense section leg of
    /// hierarchical mode (`[search.weights] sections`). About 40% more texts to embed on the
    /// corpus. Default false.
    pub sections: bool,
    /// Keep each text's vector in the index, keyed by the embedder's cache id and the text,
    /// so that an ingest of a changed document embeds only its new texts. `false` embeds
    /// every text and keeps nothing (on Milvus, each entry is a full f32 copy of the vector
    /// in the local side index). Default true.
    pub vector_cache: bool,
    /// The HTTP provider.
    pub http: DenseHttpConfig,
}

impl Default for DenseConfig {
    fn default() -> Self {
        DenseConfig {
            enabled: true,
            provider: DenseProvider::Local,
            model: "all-MiniLM-L6-v2".into(),
            batch_size: 32,
            threads: 0,
            lanes: 0,
            precision: DensePrecision::Auto,
            ann_threshold: 20_000,
            sections: false,
            vector_cache: true,
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
    pub auth_header: AuthHeader,
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
            auth_header: AuthHeader::Bearer,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            max_seq_len: 8191,
        }
    }
}

impl DenseConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |key: &str, rule: &str, got: String| {
            Err(Error::user(format!("dense.{key} {rule}, got {got} ({origin})")))
        };
        if self.model.trim().is_empty() {
            return bad("model", "must name a model folder or a model", "an empty string".into());
        }
        if !(1..=1024).contains(&self.batch_size) {
            return bad("batch_size", "must be between 1 and 1024", self.batch_size.to_string());
        }
        self.http.validate(origin)
    }
}

impl DenseHttpConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad =
            |key: &str| Err(Error::user(format!("dense.http.{key} must be at least 1, got 0 ({origin})")));
        if self.batch_size == 0 {
            return bad("batch_size");
        }
        if self.timeout_secs == 0 {
            return bad("timeout_secs");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::names::tests::round_trips;

    #[test]
    fn names_round_trip() {
        round_trips(DenseProvider::ALL, &["local", "http"], "[dense] provider", DenseProvider::name);
        round_trips(AuthHeader::ALL, &["bearer", "api-key"], "auth_header", AuthHeader::name);
    }
}
