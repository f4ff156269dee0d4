//! A chat model behind one of two wire formats: the Anthropic Messages API ([`anthropic`])
//! or OpenAI-compatible chat completions ([`openai`]: OpenAI, Azure OpenAI, vLLM, Ollama).
//!
//! A [`Prompt`] is an optional long, shared part (the document) and the part that changes
//! per call. Anthropic gets the shared part as its own content block marked
//! `cache_control: ephemeral`, so it is billed once per document at the cache-write rate
//! and then read from the cache; OpenAI-compatible servers get it first in the message,
//! where their automatic prefix caching finds it.

pub mod anthropic;
pub mod openai;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use strata_core::config::{AuthHeader, ChatConfig, Price};
use strata_core::{Error, Result};
use strata_model::context::Usage;

use crate::limiter::Limiter;
use crate::secret::ApiKey;
use crate::transport::{Failed, KeyHeader, Policy, Transport};

/// The two wire formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// `POST {base}/messages`, `x-api-key`, `anthropic-version: 2023-06-01`.
    Anthropic,
    /// `POST {base}/chat/completions`, `Authorization: Bearer` (or Azure's `api-key`).
    OpenAi,
}

impl Provider {
    /// `anthropic` or `openai`.
    pub fn parse(name: &str) -> Result<Provider> {
        match name {
            "anthropic" => Ok(Provider::Anthropic),
            "openai" => Ok(Provider::OpenAi),
            other => Err(Error::user(format!("unknown chat provider {other:?}; use anthropic or openai"))),
        }
    }

    /// The name in ids and messages.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
        }
    }

    fn default_model(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude-haiku-4-5",
            Provider::OpenAi => "gpt-4o-mini",
        }
    }

    fn default_base(self) -> &'static str {
        match self {
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::OpenAi => "https://api.openai.com/v1",
        }
    }

    fn default_key_env(self) -> &'static str {
        match self {
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::OpenAi => "OPENAI_API_KEY",
        }
    }

    fn default_window(self) -> usize {
        match self {
            Provider::Anthropic => 200_000,
            Provider::OpenAi => 128_000,
        }
    }
}

/// What one call asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt<'a> {
    /// The long part shared by many calls (a document), sent first and marked for caching.
    pub shared: Option<&'a str>,
    /// The part of this call.
    pub text: &'a str,
    /// Most tokens of the answer, when not the configured `max_tokens`.
    pub max_tokens: Option<u32>,
}

/// What a call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The model's text, trimmed.
    pub text: String,
    /// Tokens as the provider counted them (`calls` = 1).
    pub usage: Usage,
    /// Attempts it took.
    pub attempts: u32,
}

/// A chat model client. `Send + Sync`; clones share the connection pool and the limiter.
#[derive(Debug, Clone)]
pub struct ChatClient {
    provider: Provider,
    model: String,
    max_tokens: u32,
    window: usize,
    price: Option<Price>,
    transport: Arc<Transport>,
    limiter: Arc<Limiter>,
    policy: Policy,
}

impl ChatClient {
    /// A client for `provider` with `config` (empty strings take the provider's defaults).
    /// The key is read from the environment here; a missing key is not an error (local
    /// servers need none), the provider's 401 will say so.
    pub fn new(provider: Provider, config: &ChatConfig) -> Result<ChatClient> {
        config.validate("llm", "the chat configuration")?;
        let or = |value: &str, default: &str| {
            if value.trim().is_empty() {
                default.to_string()
            } else {
                value.trim().to_string()
            }
        };
        let model = or(&config.model, provider.default_model());
        let base = or(&config.base_url, provider.default_base());
        let key_env = or(&config.api_key_env, provider.default_key_env());
        let key = ApiKey::from_env(&key_env)?;
        if key.is_none() {
            tracing::debug!(var = %key_env, "no API key set; sending requests without one");
        }
        let (path, key_header, headers) = match provider {
            Provider::Anthropic => {
                ("/messages", KeyHeader::XApiKey, vec![("anthropic-version", anthropic::VERSION.to_string())])
            }
            Provider::OpenAi => {
                let header = match config.auth_header {
                    AuthHeader::ApiKey => KeyHeader::ApiKey,
                    AuthHeader::Bearer => KeyHeader::Bearer,
                };
                ("/chat/completions", header, Vec::new())
            }
        };
        let url = crate::transport::endpoint(&base, path);
        let transport =
            Transport::new(url, &model, key, key_header, headers, Duration::from_secs(config.timeout_secs));
        Ok(ChatClient {
            provider,
            window: if config.window_tokens == 0 { provider.default_window() } else { config.window_tokens },
            price: config.price.or_else(|| crate::cost::known_price(&model)),
            model,
            max_tokens: config.max_tokens,
            transport: Arc::new(transport),
            limiter: Arc::new(Limiter::new(config.concurrency)),
            policy: Policy {
                max_retries: config.max_retries,
                backoff: Duration::from_millis(config.backoff_ms),
            },
        })
    }

    /// `provider:model`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.provider.name(), self.model)
    }

    /// The provider.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The model's window in tokens.
    pub fn window_tokens(&self) -> usize {
        self.window
    }

    /// Most tokens of one answer.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// The model's prices, when known or configured.
    pub fn price(&self) -> Option<Price> {
        self.price
    }

    /// The shared concurrency bound.
    pub fn limiter(&self) -> &Limiter {
        &self.limiter
    }

    /// `model at url`, for messages.
    pub fn service(&self) -> &str {
        self.transport.service()
    }

    /// Sends one prompt, retrying as [`crate::transport`] says.
    pub fn complete(&self, prompt: &Prompt<'_>) -> std::result::Result<Reply, Failed> {
        let body = match self.provider {
            Provider::Anthropic => {
                anthropic::request(&self.model, prompt.max_tokens.unwrap_or(self.max_tokens), prompt)
            }
            Provider::OpenAi => {
                openai::request(&self.model, prompt.max_tokens.unwrap_or(self.max_tokens), prompt)
            }
        };
        let body = serde_json::to_vec(&body).map_err(|e| Failed {
            error: Error::Internal(format!("encoding a chat request: {e}")),
            permanent: true,
        })?;
        let parse = |text: &str| -> std::result::Result<(String, Usage), String> {
            let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
            match self.provider {
                Provider::Anthropic => anthropic::response(&json),
                Provider::OpenAi => openai::response(&json),
            }
        };
        let ((text, usage), attempts) = self.transport.send(&self.limiter, self.policy, &body, parse)?;
        Ok(Reply { text, usage, attempts })
    }
}
