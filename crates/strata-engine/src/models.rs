//! Which embedder and tokenizer an index needs: `strata_embed::choose` with the context a
//! user needs when a model cannot be loaded.

use std::sync::Arc;

use strata_core::config::DenseProvider;
use strata_core::{Config, Error, Result, ResultExt};
use strata_embed::Embedder;
use strata_index::Manifest;
use strata_ingest::tokenize::{Cl100k, HfTokenizer, Tokenizer};

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
