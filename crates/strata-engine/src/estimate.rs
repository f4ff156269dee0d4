//! `strata ingest --dry-run`: what a language model's contexts would cost, predicted from the
//! files as they would be chunked and from the index's context cache; nothing is written
//! and nothing is called.

use std::path::Path;

use serde::Serialize;
use strata_core::{Config, Error, Result, ResultExt};
use strata_ingest::context;
use strata_ingest::pipeline::Pipeline;
use strata_model::context::Usage;

use crate::driver::Driver;
use crate::ingest::StoreCache;

/// What `strata ingest --dry-run` predicts.
#[derive(Debug, Serialize)]
pub struct Estimate {
    /// The contextualizer.
    pub context: String,
    /// Files read.
    pub files: usize,
    /// Files that could not be read.
    pub failed: usize,
    /// Chunks.
    pub chunks: usize,
    /// Chunks whose context is already cached.
    pub cached: usize,
    /// Documents longer than the model's window (cut, beginning and end kept).
    pub truncated_documents: usize,
    /// Calls and tokens to expect (input counted with the index tokenizer; output at most
    /// `max_tokens` per call).
    pub usage: Usage,
    /// The cost of that, when the model's price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Per file problems.
    pub messages: Vec<String>,
}

/// `strata ingest --dry-run`: reads and chunks every file, looks up the context cache, and
/// predicts the calls, tokens and cost of the contexts; writes nothing.
pub fn estimate(config: &Config, index: &Path, inputs: &[String]) -> Result<Estimate> {
    let pipeline = Pipeline::new(config).context("loading the tokenizer")?;
    let driver = Driver::new(config, pipeline, None)?;
    let chosen = driver.contextualizer();
    let Some(contextualizer) = chosen.get() else {
        return Err(Error::user(
            "--dry-run estimates what a language model's contexts cost; [context] kind is none",
        ));
    };
    // An index that does not exist yet has no cache; the dry run never creates one.
    let location = crate::Location::of(config, index)?;
    let store = if location.manifest()?.is_some() { Some(location.open()?) } else { None };
    let (files, problems) = crate::ingest::collect(inputs);
    let mut estimate = Estimate {
        context: contextualizer.id().to_string(),
        files: files.len() + problems.len(),
        failed: problems.len(),
        chunks: 0,
        cached: 0,
        truncated_documents: 0,
        usage: Usage::default(),
        cost_usd: None,
        messages: problems.into_iter().flat_map(|p| p.messages).collect(),
    };
    for path in &files {
        let ing = match driver
            .pipeline()
            .load(path)
            .and_then(|(source, bytes)| driver.process(source, &bytes, None))
        {
            Ok(ing) => ing,
            Err(e) => {
                estimate.failed += 1;
                estimate.messages.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let (cached, usage) = match &store {
            Some(store) => {
                context::estimate(contextualizer, &StoreCache(store.as_ref()), &ing.document, &ing.chunks)?
            }
            None => context::estimate(contextualizer, &context::NoCache, &ing.document, &ing.chunks)?,
        };
        estimate.chunks += ing.chunks.len();
        estimate.cached += cached;
        estimate.usage.add(&usage);
        if chosen.llm().is_some_and(|llm| llm.truncates(&ing.document, &ing.chunks)) {
            estimate.truncated_documents += 1;
        }
    }
    if let Some(llm) = chosen.llm() {
        estimate.cost_usd = llm.client().price().map(|p| strata_providers::cost::cost(&estimate.usage, &p));
    }
    Ok(estimate)
}
