//! `[context.llm]` and `[rerank.llm]`: the chat models strata can call.
//!
//! Keys are never read from these files: each section names the environment variable that
//! holds its key (`api_key_env`).

use serde::{Deserialize, Serialize};

use super::dense::AuthHeader;
use crate::{Error, Result};

/// Chat providers.
pub const CHAT_PROVIDERS: &[&str] = &["anthropic", "openai"];

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
    pub auth_header: AuthHeader,
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
            auth_header: AuthHeader::Bearer,
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
