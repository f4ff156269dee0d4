//! Hosted models: what strata calls over HTTP besides the embedder.
//!
//! - [`chat`]: one client for the Anthropic Messages API and OpenAI-compatible chat
//!   completions (OpenAI, Azure OpenAI, vLLM, Ollama), with bounded, self-adjusting
//!   concurrency ([`limiter`]) and retries ([`transport`]);
//! - [`contextualize`]: the [`strata_model::context::Contextualizer`] that asks a chat model
//!   to situate each chunk in its document (Anthropic's contextual retrieval prompt, the
//!   document marked for prompt caching), with cost estimates from [`cost`];
//! - [`listwise`]: a [`strata_model::rerank::Reranker`] that asks a chat model to order the
//!   candidates;
//! - [`rerank_api`]: a [`strata_model::rerank::Reranker`] over the Cohere / Jina / Voyage
//!   `/rerank` shape;
//!
//! Which of these a configuration asks for is chosen in `strata-engine` (`models`), beside
//! the local models. API keys are read from the environment variable a configuration names, kept in
//! [`secret::ApiKey`] (whose `Debug` prints `***`), sent as sensitive headers and cut out of
//! every message a server echoes them in.

pub mod chat;
pub mod contextualize;
pub mod cost;
pub mod limiter;
pub mod listwise;
pub mod rerank_api;
pub mod secret;
pub mod transport;
