//! `[rerank]`: the reranker of the top fused results.

use serde::{Deserialize, Serialize};

use super::models::ChatConfig;
use super::names::named;
use crate::{Error, Result};

/// Reranker kinds.
pub const RERANK_KINDS: &[&str] = RerankKind::NAMES;

/// Most fused results a reranker may be handed.
pub const MAX_CANDIDATES: usize = 1000;

named! {
    /// The reranker (`[rerank] kind`).
    pub enum RerankKind in "[rerank] kind" {
        /// No reranking (the default).
        None = "none",
        /// A local cross-encoder folder (`[rerank] model`).
        CrossEncoder = "cross-encoder",
        /// Cohere's `/rerank` API.
        Cohere = "cohere",
        /// Jina's `/rerank` API.
        Jina = "jina",
        /// Voyage's `/rerank` API.
        Voyage = "voyage",
        /// Listwise, by a model behind the Anthropic Messages API (`[rerank.llm]`).
        Anthropic = "anthropic",
        /// Listwise, by a model behind an OpenAI-compatible chat API (`[rerank.llm]`).
        OpenAi = "openai",
    }
}

/// `[rerank]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RerankConfig {
    /// `none` (default), `cross-encoder` (a local folder in `model`), `cohere`, `jina`,
    /// `voyage` (their `/rerank` APIs), `anthropic` or `openai` (listwise, `[rerank.llm]`).
    pub kind: RerankKind,
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
            kind: RerankKind::None,
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

impl RerankConfig {
    /// Checks every value.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |field: &str, rule: &str, got: String| {
            Err(Error::user(format!("rerank.{field} {rule}, got {got} ({origin})")))
        };
        if self.kind == RerankKind::CrossEncoder && self.model.trim().is_empty() {
            return bad(
                "model",
                "must be the folder of a cross-encoder (config.json, model.safetensors, tokenizer.json) when kind = \"cross-encoder\"",
                "an empty string".into(),
            );
        }
        if !(1..=MAX_CANDIDATES).contains(&self.candidates) {
            return bad(
                "candidates",
                &format!("must be between 1 and {MAX_CANDIDATES}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::names::tests::round_trips;

    #[test]
    fn names_round_trip() {
        let names = ["none", "cross-encoder", "cohere", "jina", "voyage", "anthropic", "openai"];
        round_trips(RerankKind::ALL, &names, "[rerank] kind", RerankKind::name);
        assert_eq!(RERANK_KINDS, names);
    }
}
