//! `[context]` and `[rerank]`: the language models and rerankers strata can call.
//!
//! Keys are never read from these files: each section names the environment variable that
//! holds its key (`api_key_env`).

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Context kinds: what writes the text prepended to each chunk for indexing.
pub const CONTEXT_KINDS: &[&str] = &["none", "structural", "anthropic", "openai"];
/// Reranker kinds.
pub const RERANK_KINDS: &[&str] =
    &["none", "cross-encoder", "cohere", "jina", "voyage", "anthropic", "openai"];
/// Chat providers.
pub const CHAT_PROVIDERS: &[&str] = &["anthropic", "openai"];

/// `[context]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    /// `structural` (the default: title, heading path, section number, lead, terms; offline),
    /// `anthropic` or `openai` (a language model writes it, `[context.llm]`), or `none`.
    pub kind: String,
    /// The model for `anthropic` and `openai`.
    pub llm: ChatConfig,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig { kind: "structural".into(), llm: ChatConfig::default() }
    }
}

/// `[rerank]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RerankConfig {
    /// `none` (default), `cross-encoder` (a local folder in `model`), `cohere`, `jina`,
    /// `voyage` (their `/rerank` APIs), `anthropic` or `openai` (listwise, `[rerank.llm]`).
    pub kind: String,
    /// The cross-encoder's folder, or the API's model (default per API).
    pub model: String,
    /// Fused results handed to the reranker. Default 50.
    pub candidates: usize,
    /// The rerank API's root (default per API: `https://api.cohere.com/v2`,
    /// `https://api.jina.ai/v1`, `https://api.voyageai.com/v1`); `/rerank` is appended.
    pub base_url: String,
    /// Environment variable holding the rerank API's key (default `COHERE_API_KEY`,
    /// `JINA_API_KEY`, `VOYAGE_API_KEY`).
    pub api_key_env: String,
    /// Seconds before a rerank request is abandoned. Default 30.
    pub timeout_secs: u64,
    /// Retries after the first attempt. Default 3.
    pub max_retries: u32,
    /// The chat model of a listwise reranker.
    pub llm: ChatConfig,
}

impl Default for RerankConfig {
    fn default() -> Self {
        RerankConfig {
            kind: "none".into(),
            model: String::new(),
            candidates: 50,
            base_url: String::new(),
            api_key_env: String::new(),
            timeout_secs: 30,
            max_retries: 3,
            llm: ChatConfig::default(),
        }
    }
}

/// A chat model behind the Anthropic Messages API or an OpenAI-compatible chat completions
/// API (OpenAI, Azure OpenAI, vLLM, Ollama). Empty strings take the provider's default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChatConfig {
    /// The model (default `claude-haiku-4-5` for Anthropic, `gpt-4o-mini` for OpenAI).
    pub model: String,
    /// The API root (default `https://api.anthropic.com/v1`, `https://api.openai.com/v1`);
    /// `/messages` or `/chat/completions` is appended before any `?query`.
    pub base_url: String,
    /// Environment variable holding the key (default `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`);
    /// unset or empty sends none (local vLLM or Ollama).
    pub api_key_env: String,
    /// OpenAI-compatible only: `bearer` (default) or `api-key` (Azure OpenAI).
    pub auth_header: String,
    /// Most tokens of one answer. Default 100.
    pub max_tokens: u32,
    /// Requests in flight at once, at most (halved on each 429, regained slowly). Default 10.
    pub concurrency: usize,
    /// Retries after the first attempt. Default 3 (waits of 1, 2 and 4 s, or what
    /// `Retry-After` says).
    pub max_retries: u32,
    /// First retry wait in milliseconds; each retry doubles it. Default 1000.
    pub backoff_ms: u64,
    /// Seconds before a request is abandoned. Default 60.
    pub timeout_secs: u64,
    /// The model's context window in tokens; a longer document is cut, keeping its
    /// beginning and end. Default 200000 (Anthropic), 128000 (OpenAI).
    pub window_tokens: usize,
    /// Prices in USD per million tokens, for the cost estimate of models strata does not
    /// know.
    pub price: Option<Price>,
}

impl Default for ChatConfig {
    fn default() -> Self {
        ChatConfig {
            model: String::new(),
            base_url: String::new(),
            api_key_env: String::new(),
            auth_header: "bearer".into(),
            max_tokens: 100,
            concurrency: 10,
            max_retries: 3,
            backoff_ms: 1000,
            timeout_secs: 60,
            window_tokens: 0,
            price: None,
        }
    }
}

/// Prices of a model in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens written to the prompt cache (default: the input price).
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Input tokens read from the prompt cache (default: the input price).
    #[serde(default)]
    pub cache_read: Option<f64>,
}

impl ChatConfig {
    /// Checks every value; `key` is the section (`context.llm`).
    pub fn validate(&self, key: &str, origin: &str) -> Result<()> {
        let bad = |field: &str, rule: &str, got: String| {
            Err(Error::user(format!("{key}.{field} {rule}, got {got} ({origin})")))
        };
        let url = self.base_url.trim();
        if !url.is_empty() && !url.starts_with("http://") && !url.starts_with("https://") {
            return bad("base_url", "must be an http:// or https:// URL", format!("{:?}", self.base_url));
        }
        if !["bearer", "api-key"].contains(&self.auth_header.as_str()) {
            return bad("auth_header", "must be bearer or api-key", format!("{:?}", self.auth_header));
        }
        if !(1..=8192).contains(&self.max_tokens) {
            return bad("max_tokens", "must be between 1 and 8192", self.max_tokens.to_string());
        }
        if !(1..=256).contains(&self.concurrency) {
            return bad("concurrency", "must be between 1 and 256", self.concurrency.to_string());
        }
        if self.max_retries > 10 {
            return bad("max_retries", "must be at most 10", self.max_retries.to_string());
        }
        if self.timeout_secs == 0 {
            return bad("timeout_secs", "must be at least 1", "0".into());
        }
        if self.window_tokens != 0 && self.window_tokens < 1024 {
            return bad(
                "window_tokens",
                "must be 0 (the provider's default) or at least 1024",
                self.window_tokens.to_string(),
            );
        }
        if let Some(p) = &self.price {
            for (field, v) in [
                ("input", Some(p.input)),
                ("output", Some(p.output)),
                ("cache_write", p.cache_write),
                ("cache_read", p.cache_read),
            ] {
                if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                    return bad(&format!("price.{field}"), "must be a finite number >= 0", v.to_string());
                }
            }
        }
        Ok(())
    }
}

impl ContextConfig {
    /// Checks every value.
    pub fn validate(&self, origin: &str) -> Result<()> {
        if !CONTEXT_KINDS.contains(&self.kind.as_str()) {
            return Err(Error::user(format!(
                "context.kind must be one of {}, got {:?} ({origin})",
                CONTEXT_KINDS.join(", "),
                self.kind
            )));
        }
        self.llm.validate("context.llm", origin)
    }
}

impl RerankConfig {
    /// Checks every value.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |field: &str, rule: &str, got: String| {
            Err(Error::user(format!("rerank.{field} {rule}, got {got} ({origin})")))
        };
        if !RERANK_KINDS.contains(&self.kind.as_str()) {
            return bad(
                "kind",
                &format!("must be one of {}", RERANK_KINDS.join(", ")),
                format!("{:?}", self.kind),
            );
        }
        if self.kind == "cross-encoder" && self.model.trim().is_empty() {
            return bad(
                "model",
                "must be the folder of a cross-encoder (config.json, model.safetensors, tokenizer.json) when kind = \"cross-encoder\"",
                "an empty string".into(),
            );
        }
        if !(1..=crate::config::MAX_CANDIDATES).contains(&self.candidates) {
            return bad(
                "candidates",
                &format!("must be between 1 and {}", crate::config::MAX_CANDIDATES),
                self.candidates.to_string(),
            );
        }
        let url = self.base_url.trim();
        if !url.is_empty() && !url.starts_with("http://") && !url.starts_with("https://") {
            return bad("base_url", "must be an http:// or https:// URL", format!("{:?}", self.base_url));
        }
        if self.timeout_secs == 0 {
            return bad("timeout_secs", "must be at least 1", "0".into());
        }
        if self.max_retries > 10 {
            return bad("max_retries", "must be at most 10", self.max_retries.to_string());
        }
        self.llm.validate("rerank.llm", origin)
    }
}
