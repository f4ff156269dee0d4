//! Which models an index needs: the embedder and tokenizer (`strata_embed::choose`, with the
//! context a user needs when a model cannot be loaded), and the contextualizer and reranker
//! a configuration asks for, local or hosted.

use std::path::Path;
use std::sync::Arc;

use strata_core::config::{ContextConfig, ContextKind, DenseProvider, RerankConfig, RerankKind};
use strata_core::{Config, Error, Result, ResultExt};
use strata_embed::local::LocalOptions;
use strata_embed::rerank::cross_encoder::CrossEncoder;
use strata_index::Manifest;
use strata_ingest::context::{self, Structural};
use strata_ingest::tokenize::{Cl100k, HfTokenizer};
use strata_model::context::Contextualizer;
use strata_model::rerank::Reranker;
use strata_model::Embedder;
use strata_providers::chat::{ChatClient, Provider};
use strata_providers::contextualize::LlmContextualizer;
use strata_providers::listwise::ListwiseReranker;
use strata_providers::rerank_api::{ApiReranker, Flavor};
use strata_text::tokenize::Tokenizer;

pub use strata_embed::choose::fit_chunks;
pub use strata_embed::static_model::{DistillOptions, Distilled};

/// The embedder ingest uses, or `None` when `[dense] enabled = false`.
pub fn for_ingest(config: &Config, model: Option<&str>) -> Result<Option<Box<dyn Embedder>>> {
    strata_embed::choose::for_ingest(config, model).with_context(|| describe(config, model))
}

/// The query embedder for an index, or `None` when it has no vectors or the leg is off.
pub fn for_index(
    config: &Config,
    manifest: &Manifest,
    model: Option<&str>,
) -> Result<Option<Box<dyn Embedder>>> {
    let recorded = manifest.dense.as_ref().map(|d| d.model.as_str());
    strata_embed::choose::for_index(config, recorded, model).with_context(|| describe(config, model))
}

/// Distills a static model from the local model `source` (a folder or a name) into `out`,
/// by default the cache's `models/NAME-static`, where `--model NAME-static` finds it.
pub fn distill(source: &str, out: Option<&std::path::Path>, options: DistillOptions) -> Result<Distilled> {
    let dir = strata_embed::locate::find_model(source).with_context(|| format!("distilling {source}"))?;
    let out = match out {
        Some(out) => out.to_path_buf(),
        None => {
            let name = strata_embed::folder::model_id_of(&dir).replace('/', "--");
            strata_embed::locate::cache_dir().join("models").join(format!("{name}-static"))
        }
    };
    strata_embed::static_model::distill(&dir, &out, options)
        .with_context(|| format!("distilling {} into {}", dir.display(), out.display()))
}

fn describe(config: &Config, model: Option<&str>) -> String {
    match config.dense.provider {
        DenseProvider::Http => format!("connecting to {}", config.dense.http.base_url),
        DenseProvider::Local => format!("loading embedding model {}", model.unwrap_or(&config.dense.model)),
    }
}

/// The tokenizer the index counts tokens with (its manifest names it): the configured
/// `[tokenizer] model`, tiktoken `cl100k_base`, or the embedding model's own
/// `tokenizer.json` (what ingest uses when no tokenizer is configured).
pub fn tokenizer_for_index(
    config: &Config,
    manifest: &Manifest,
    embedder: Option<&dyn Embedder>,
    model: Option<&str>,
) -> Result<Arc<dyn Tokenizer>> {
    let wanted = manifest.tokenizer.as_str();
    let mut candidates: Vec<std::path::PathBuf> = Vec::new();
    if let Some(path) = &config.tokenizer.model {
        candidates.push(path.clone());
    }
    if let Some(path) = embedder.and_then(|e| e.info().tokenizer.clone()) {
        candidates.push(path);
    }
    for spec in [model, Some(config.dense.model.as_str()), manifest.dense.as_ref().map(|d| d.model.as_str())]
        .into_iter()
        .flatten()
    {
        if let Ok(dir) = strata_embed::locate::find_model(spec) {
            candidates.push(dir);
        }
    }
    let cl100k = Cl100k::new()?;
    if wanted == cl100k.id() {
        return Ok(Arc::new(cl100k));
    }
    for path in candidates {
        if let Ok(t) = HfTokenizer::from_path(&path) {
            if t.id() == wanted {
                return Ok(Arc::new(t));
            }
        }
    }
    Err(Error::user(format!(
        "the index counts tokens with {wanted}, which was not found; set [tokenizer] model to its tokenizer.json"
    )))
}

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
    let client = ChatClient::new(provider, &config.llm)?;
    Ok(Chosen::Llm(Box::new(LlmContextualizer::new(client, tokenizer, context::structural))))
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
        // of strata's chunk size batch 4 ran in 55 to 60 % of batch 32's time
        // (strata-embed's benches/rerank.rs).
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
