//! The record stage, and what the writing thread does around it: the context stage's
//! bookkeeping (the tally, the new contexts kept for the cache), then embed
//! ([`crate::embed`]), then [`StoreWrite::put`], the document whole or not at all (visible
//! at the next commit). It returns what it did, or the stage that failed and why
//! ([`Failed`]).

use serde::Serialize;
use strata_core::Result;
use strata_index::StoreWrite;
use strata_ingest::context::Situation;
use strata_ingest::pipeline::Ingested;
use strata_model::context::Usage;

use crate::driver::{Driver, Failed, Recorded, Stage};
use crate::embed::{Embedded, Vectors};

/// How the chunks of an ingest got their contexts, when a language model writes them.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ContextTally {
    /// Chunks whose context came from the cache.
    pub cached: usize,
    /// Chunks the model wrote a context for.
    pub written: usize,
    /// Chunks that fell back to their structural context.
    pub fallbacks: usize,
    /// Chunks of documents cut to fit the model's window.
    pub truncated: usize,
    /// What the provider reported.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub usage: Usage,
    /// What that cost in USD, when the model's price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The refusal that stopped the model's calls (a bad key, model or URL), when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl ContextTally {
    /// Adds what `situate` did for one document.
    pub fn add(&mut self, situation: &Situation) {
        self.cached += situation.cached;
        self.written += situation.written;
        self.fallbacks += situation.fallbacks;
        self.truncated += situation.truncated;
    }

    /// Takes the provider's usage, its cost and why it stopped, at the end of an ingest.
    pub fn finish(&mut self, llm: &strata_providers::contextualize::LlmContextualizer) {
        self.usage = llm.usage();
        self.stopped = llm.stopped().map(str::to_string);
        self.cost_usd = llm.client().price().map(|p| strata_providers::cost::cost(&self.usage, &p));
    }
}

/// Keeps new contexts (cache key, context) somewhere for the next ingest.
pub type KeepContexts<'a> = dyn FnMut(&[(String, String)]) -> Result<()> + 'a;

/// Where the new contexts of a language model are kept for the next ingest.
pub enum ContextSink<'a> {
    /// In the store the document is written to (its context cache).
    Store,
    /// Elsewhere (eval keeps them in a file beside its indexes).
    Other(&'a mut KeepContexts<'a>),
}
impl Driver<'_> {
    /// Records `ing`, whose contexts `situation` set: counts and keeps the new contexts,
    /// embeds (each text's vector from `vectors` when it holds it), and puts the document
    /// into `store`. `progress` is told the chunks embedded so far and the document's total.
    #[allow(clippy::too_many_arguments)]
    pub fn finish(
        &self,
        ing: &mut Ingested,
        situation: Result<Situation>,
        sink: ContextSink<'_>,
        vectors: Vectors<'_>,
        tally: &mut ContextTally,
        store: &mut dyn StoreWrite,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Recorded, Failed> {
        let embedded = self.embedder.map(|embedder| {
            let cache = self.cache(vectors, &*store);
            self.embed(embedder, cache.as_ref(), &[&*ing], progress).remove(0)
        });
        self.record(ing, situation, embedded, sink, vectors, tally, store)
    }

    /// Records `ing` with its chunk vectors made beforehand (`None` without the dense leg;
    /// the ingest loop embeds several documents at once with [`Driver::embed`]):
    /// counts and keeps the new contexts, embeds the section profiles (from `vectors` when
    /// it holds them), and puts the document, with its vector cache entries, into `store`.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        ing: &mut Ingested,
        situation: Result<Situation>,
        embedded: Option<Result<Embedded>>,
        sink: ContextSink<'_>,
        vectors: Vectors<'_>,
        tally: &mut ContextTally,
        store: &mut dyn StoreWrite,
    ) -> Result<Recorded, Failed> {
        let fail = |stage| move |error| Failed { stage, error };
        let mut recorded = Recorded::default();
        let situation = situation.map_err(fail(Stage::Context))?;
        self.keep_contexts(&situation, sink, store, tally, &mut recorded.messages)
            .map_err(fail(Stage::Context))?;
        if let (Some(embedder), Some(embedded)) = (self.embedder, embedded) {
            let embedded = embedded.map_err(fail(Stage::Embed))?;
            let cache = self.cache(vectors, &*store);
            self.set_vectors(embedder, cache.as_ref(), ing, embedded, &mut recorded)?;
            if matches!(vectors, Vectors::Store) && !self.vector_cache {
                ing.cached_vectors.clear();
            }
        }
        store.put(ing).map_err(fail(Stage::Record))?;
        Ok(recorded)
    }

    /// Counts what `situate` did, tells the document's outcome, and keeps the new contexts
    /// for the cache (on the writing thread).
    fn keep_contexts(
        &self,
        situation: &Situation,
        sink: ContextSink<'_>,
        store: &mut dyn StoreWrite,
        tally: &mut ContextTally,
        messages: &mut Vec<String>,
    ) -> Result<()> {
        let Some(contextualizer) = self.contextualizer().get() else { return Ok(()) };
        tally.add(situation);
        if situation.fallbacks > 0 {
            messages.push(format!(
                "{} chunks got their structural context: {} did not answer for them (see the warnings above)",
                situation.fallbacks,
                contextualizer.id()
            ));
        }
        if situation.truncated > 0 {
            messages.push(format!(
                "longer than the model's window: it was shown its beginning and end only ({} chunks flagged)",
                situation.truncated
            ));
        }
        match sink {
            _ if situation.to_cache.is_empty() => Ok(()),
            ContextSink::Store => store.cache_contexts(&situation.to_cache),
            ContextSink::Other(keep) => keep(&situation.to_cache),
        }
    }
}

#[cfg(test)]
mod tests {
    use strata_core::Error;
    use strata_index::{EmbeddedStore, Manifest, StoreRead};
    use strata_ingest::context::NoCache;

    use super::*;
    use crate::testing::{driver, markdown, test_model, Down};

    const BACKUPS: &str = "# Backups\n\nBackups are kept for thirty days.\n";

    #[test]
    fn a_failed_embedding_names_its_stage_and_records_nothing() {
        let down = Down(test_model());
        let driver = driver(Some(&down)).with_section_vectors(true).with_embed_slice(64);
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(driver.tokenizer().id(), 256, 0);
        let mut store = EmbeddedStore::open_or_create(dir.path(), manifest).unwrap();
        let mut ing = markdown(driver.pipeline(), "backups.md", BACKUPS);
        let mut tally = ContextTally::default();
        let failed = driver
            .finish(
                &mut ing,
                Ok(Situation::default()),
                ContextSink::Store,
                Vectors::Store,
                &mut tally,
                &mut store,
                &mut |_, _| {},
            )
            .unwrap_err();
        assert_eq!(failed.stage, Stage::Embed);
        assert!(failed.to_string().starts_with("embedding failed: service test-model"), "{failed}");
        let error = Error::from(failed);
        assert!(matches!(error.root(), Error::Remote { .. }), "{error:?}");
        store.commit().unwrap();
        assert!(store.documents().unwrap().is_empty(), "nothing of a failed document is written");
    }

    #[test]
    fn without_an_embedder_the_document_is_recorded_as_read() {
        let config = strata_core::Config::default();
        let pipeline = strata_ingest::pipeline::Pipeline::new(&config).unwrap();
        let driver = Driver::new(&config, pipeline, None).unwrap().with_section_vectors(false);
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(driver.tokenizer().id(), 256, 0);
        let mut store = EmbeddedStore::open_or_create(dir.path(), manifest).unwrap();
        let mut ing = markdown(driver.pipeline(), "backups.md", BACKUPS);
        let situation = driver.context(&NoCache, &mut ing);
        let mut tally = ContextTally::default();
        let recorded = driver
            .finish(
                &mut ing,
                situation,
                ContextSink::Store,
                Vectors::Store,
                &mut tally,
                &mut store,
                &mut |_, _| {},
            )
            .unwrap();
        assert_eq!((recorded.embedded, recorded.messages.len()), (0, 0));
        assert!(ing.chunks.iter().all(|c| c.context.as_deref().is_some_and(|x| x.contains("Backups"))));
        store.commit().unwrap();
        assert_eq!(store.documents().unwrap().len(), 1);
    }
}
