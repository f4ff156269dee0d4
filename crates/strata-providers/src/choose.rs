//! The contextualizer and the reranker a configuration asks for.

use std::path::Path;
use std::sync::Arc;

use strata_core::config::{ContextConfig, ContextKind, RerankConfig, RerankKind};
use strata_core::Result;
use strata_embed::local::LocalOptions;
use strata_embed::rerank::cross_encoder::CrossEncoder;
use strata_embed::rerank::Reranker;
use strata_ingest::context::{Contextualizer, Structural};
use strata_ingest::tokenize::Tokenizer;

use crate::chat::{ChatClient, Provider};
use crate::contextualize::LlmContextualizer;
use crate::listwise::ListwiseReranker;
use crate::rerank_api::{ApiReranker, Flavor};

/// Pairs per forward pass of the local cross-encoder.
pub const RERANK_BATCH: usize = 4;

/// What writes the chunk contexts.
pub enum Chosen {
    /// No context.
    None,
    /// The structural context.
    Structural(Structural),
    /// A language model.
    Llm(Box<LlmContextualizer>),
}

impl Chosen {
    /// The contextualizer, when there is one.
    pub fn get(&self) -> Option<&dyn Contextualizer> {
        match self {
            Chosen::None => None,
            Chosen::Structural(s) => Some(s),
            Chosen::Llm(l) => Some(l.as_ref()),
        }
    }

    /// The language-model contextualizer, when that is the choice.
    pub fn llm(&self) -> Option<&LlmContextualizer> {
        match self {
            Chosen::Llm(l) => Some(l.as_ref()),
            _ => None,
        }
    }
}

/// The contextualizer of `config` (`[context]`), counting with `tokenizer` (the index's).
pub fn contextualizer(config: &ContextConfig, tokenizer: Arc<dyn Tokenizer>) -> Result<Chosen> {
    let provider = match config.kind {
        ContextKind::None => return Ok(Chosen::None),
        ContextKind::Structural => return Ok(Chosen::Structural(Structural)),
        ContextKind::Anthropic => Provider::Anthropic,
        ContextKind::OpenAi => Provider::OpenAi,
    };
    Ok(Chosen::Llm(Box::new(LlmContextualizer::new(ChatClient::new(provider, &config.llm)?, tokenizer))))
}

/// The reranker of `config` (`[rerank]`), or `None` for `kind = "none"`.
pub fn reranker(config: &RerankConfig) -> Result<Option<Box<dyn Reranker>>> {
    config.validate("the rerank configuration")?;
    let api = |flavor| -> Result<Box<dyn Reranker>> { Ok(Box::new(ApiReranker::new(flavor, config)?)) };
    let listwise = |provider| -> Result<Box<dyn Reranker>> {
        Ok(Box::new(ListwiseReranker::new(ChatClient::new(provider, &config.llm)?)))
    };
    Ok(Some(match config.kind {
        RerankKind::None => return Ok(None),
        // Batches of 4: pairs are padded to the longest of their batch, and at 50 candidates
        // of strata's chunk size batch 4 ran in 55 to 60 % of batch 32's time (benches/rerank.rs).
        RerankKind::CrossEncoder => Box::new(CrossEncoder::open(
            Path::new(config.model.trim()),
            LocalOptions { batch_size: RERANK_BATCH, ..LocalOptions::default() },
        )?),
        RerankKind::Cohere => api(Flavor::Cohere)?,
        RerankKind::Jina => api(Flavor::Jina)?,
        RerankKind::Voyage => api(Flavor::Voyage)?,
        RerankKind::Anthropic => listwise(Provider::Anthropic)?,
        RerankKind::OpenAi => listwise(Provider::OpenAi)?,
    }))
}
