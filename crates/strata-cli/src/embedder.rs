//! The CLI's embedder choice: `strata_embed::choose` with the context a user needs when a
//! model cannot be loaded.

use anyhow::{Context, Result};
use strata_core::Config;
use strata_embed::Embedder;
use strata_index::Manifest;

pub use strata_embed::choose::fit_chunks;

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

fn describe(config: &Config, model: Option<&str>) -> String {
    match config.dense.provider.as_str() {
        "http" => format!("connecting to {}", config.dense.http.base_url),
        _ => format!("loading embedding model {}", model.unwrap_or(&config.dense.model)),
    }
}
