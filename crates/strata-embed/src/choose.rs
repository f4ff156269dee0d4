//! Choosing the embedder of the dense leg from the configuration, for ingest and for
//! queries, and fitting chunk sizes to its window. Every front-end (CLI, server, eval) calls
//! these, so they all embed alike.

use strata_core::config::DenseProvider;
use strata_core::{Config, Result};

use crate::folder::model_id_of;
use crate::http::{HttpEmbedder, HttpEmbedderConfig};
use crate::local::{self, LocalEmbedder, LocalOptions};
use crate::locate;
use crate::static_model::{self, StaticEmbedder};
use strata_model::Embedder;

/// Special tokens every BERT input carries (`[CLS]`, `[SEP]`).
const SPECIAL_TOKENS: usize = 2;

fn local(config: &Config, spec: &str) -> Result<Box<dyn Embedder>> {
    let threads = match config.dense.threads {
        0 => LocalOptions::default().threads,
        n => n,
    };
    let lanes = match config.dense.lanes {
        0 => local::default_lanes(threads),
        n => n,
    };
    let options = LocalOptions {
        threads,
        lanes,
        batch_size: config.dense.batch_size,
        precision: local::precision_for(config.dense.precision),
    };
    let dir = locate::find_model(spec)?;
    if static_model::is_static(&dir) {
        return Ok(Box::new(StaticEmbedder::open_dir(&dir)?));
    }
    Ok(Box::new(LocalEmbedder::open_dir(&dir, options)?))
}

fn http(config: &Config) -> Result<Box<dyn Embedder>> {
    let http = HttpEmbedderConfig::from(&config.dense.http);
    Ok(Box::new(HttpEmbedder::connect(http)?))
}

/// The embedder ingest uses, or `None` when `[dense] enabled = false`. `model` (`--model`)
/// overrides `[dense] model`.
pub fn for_ingest(config: &Config, model: Option<&str>) -> Result<Option<Box<dyn Embedder>>> {
    if !config.dense.enabled {
        return Ok(None);
    }
    Ok(Some(match config.dense.provider {
        DenseProvider::Http => http(config)?,
        DenseProvider::Local => local(config, model.unwrap_or(&config.dense.model))?,
    }))
}

/// The query embedder for an index whose vectors were made with `recorded` (the model id in
/// its manifest): `None` when the index has no vectors or the dense leg is turned off.
/// `--model` or `[dense] model` may say where the model lives (a path whose folder name is
/// that id).
pub fn for_index(
    config: &Config,
    recorded: Option<&str>,
    model: Option<&str>,
) -> Result<Option<Box<dyn Embedder>>> {
    let Some(recorded) = recorded else { return Ok(None) };
    if !config.dense.enabled {
        return Ok(None);
    }
    if recorded.starts_with("http:") {
        return http(config).map(Some);
    }
    // `--model` wins (and is checked against the index by the searcher); else `[dense] model`
    // when it names the index's model (it may be a path); else the recorded id.
    let configured = config.dense.model.as_str();
    let spec = model.unwrap_or(if model_id_of(std::path::Path::new(configured)) == recorded {
        configured
    } else {
        recorded
    });
    local(config, spec).map(Some)
}

/// Fits chunking to a local model's window: when no chunk tokenizer is configured, chunks are
/// counted in the model's own tokens, and `chunk.max_tokens` is lowered so that a chunk with
/// its overlap, the passage prefix and the special tokens fits the window. Returns a note
/// when it changed something.
pub fn fit_chunks(config: &mut Config, embedder: &dyn Embedder) -> Option<String> {
    let info = embedder.info();
    let tokenizer = info.tokenizer.as_ref()?;
    if config.tokenizer.model.is_some() {
        return None;
    }
    config.tokenizer.model = Some(tokenizer.clone());
    // The prefix is a few words; count it generously rather than tokenize here.
    let prefix = info.passage_prefix.split_whitespace().count() * 2;
    let room = info.max_seq_len.saturating_sub(SPECIAL_TOKENS + prefix + config.chunk.overlap);
    if room >= config.chunk.max_tokens {
        return None;
    }
    let before = config.chunk.max_tokens;
    config.chunk.max_tokens = room.max(16);
    if config.chunk.overlap * 2 > config.chunk.max_tokens {
        config.chunk.overlap = config.chunk.max_tokens / 4;
    }
    Some(format!(
        "chunks are counted in {}'s tokens and cut at {} (chunk.max_tokens {before} does not fit its \
         {}-token window with {} tokens of overlap); set [tokenizer] model to choose otherwise",
        info.model_id, config.chunk.max_tokens, info.max_seq_len, config.chunk.overlap
    ))
}
