//! The per-document step after enrich: context → embed → record.
//!
//! Every ingest runs it, `strata ingest` and the server's jobs ([`crate::ingest`]), the eval
//! harness and the latency bench, so a document is indexed the same way whoever asks:
//!
//! 1. **context** ([`RecordStep::situate`], on any thread): each chunk's context from the
//!    contextualizer, a language model's from a cache first; then, on the writing thread,
//!    the tally and the new contexts kept for the cache;
//! 2. **embed** ([`RecordStep::embed`]): one vector per chunk (`context::embedded_text`: the
//!    context cut to the room the chunk leaves in the model's window, then the chunk's own
//!    text) and, with `[dense] sections = true`, one per section profile;
//! 3. **record**: [`StoreWrite::put`], the document whole or not at all (visible at the
//!    next commit).
//!
//! It returns what it did, or the stage that failed and why ([`Failed`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Serialize;
use strata_core::{CachedVector, ChunkVectors, Error, Result};
use strata_embed::cache::{self, VectorCache};
use strata_index::{StoreRead, StoreWrite};
use strata_ingest::context::{self, ContextCache, Situation};
use strata_ingest::pipeline::Ingested;
use strata_model::context::{Contextualizer, Usage};
use strata_model::Embedder;
use strata_text::tokenize::Tokenizer;

/// The step's settings: who writes contexts, who embeds, and how.
#[derive(Clone, Copy)]
pub struct RecordStep<'a> {
    /// What writes the chunks' contexts (`[context] kind`); `None` leaves them empty.
    pub contextualizer: Option<&'a dyn Contextualizer>,
    /// The passage embedder, when the dense leg is on.
    pub embedder: Option<&'a dyn Embedder>,
    /// The index's tokenizer (it cuts contexts to the room the model's window leaves).
    pub tokenizer: &'a dyn Tokenizer,
    /// Embed section profiles too (`[dense] sections`).
    pub section_vectors: bool,
    /// Look texts up in, and keep their vectors in, the index (`[dense] vector_cache`);
    /// `false` leaves [`Vectors::Store`] unused: every text is embedded, nothing kept.
    pub vector_cache: bool,
    /// Chunks embedded per call, so that progress shows inside long documents; `None`
    /// embeds a document in one call. The embedder batches each call by length, so the
    /// slices decide which chunks share a batch.
    pub embed_slice: Option<usize>,
    /// Set, embedding stops before its next slice and the documents in it fail
    /// ([`crate::IngestOptions::stop`]: a server shutting down, Ctrl-C in Python).
    pub stop: Option<&'a AtomicBool>,
}

/// The stage of [`RecordStep`] that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Writing the chunks' contexts, or keeping them for the cache.
    Context,
    /// Embedding the chunks.
    Embed,
    /// Embedding the section profiles.
    Sections,
    /// Writing the document to the store.
    Record,
}

/// Why a document was not recorded.
#[derive(Debug, thiserror::Error)]
#[error("{}{error}", stage_prefix(*.stage))]
pub struct Failed {
    /// The stage that failed.
    pub stage: Stage,
    /// What went wrong.
    pub error: Error,
}

impl From<Failed> for Error {
    /// The error with the stage that failed as its context (`embedding failed: …`).
    fn from(failed: Failed) -> Error {
        match stage_prefix(failed.stage).strip_suffix(": ") {
            Some(stage) => failed.error.context(stage),
            None => failed.error,
        }
    }
}

fn stage_prefix(stage: Stage) -> &'static str {
    match stage {
        Stage::Context => "writing its chunks' contexts failed: ",
        Stage::Embed => "embedding failed: ",
        Stage::Sections => "embedding its sections failed: ",
        Stage::Record => "",
    }
}

/// What recording one document did.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Chunks the model embedded.
    pub embedded: usize,
    /// Chunks whose vector came from the vector cache.
    pub reused: usize,
    /// Section profiles embedded.
    pub sections_embedded: usize,
    /// Chunks longer than the model's window (their tails are invisible to the dense leg).
    pub truncated: usize,
    /// Seconds spent embedding chunks and sections.
    pub embed_seconds: f64,
    /// What the user should know about this document (fallback contexts, truncated chunks).
    pub messages: Vec<String>,
}

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

/// Where the vector cache is looked up.
#[derive(Clone, Copy)]
pub enum Vectors<'a> {
    /// In the store the document is written to (the vectors of the documents it holds).
    Store,
    /// Elsewhere (`strata eval --vector-cache`, a folder its runs share).
    Other(&'a dyn VectorCache),
}

impl<'a> Vectors<'a> {
    /// The cache to look texts up in, `store` for [`Vectors::Store`].
    pub fn cache<'s>(self, store: &'s dyn StoreWrite) -> Box<dyn VectorCache + 's>
    where
        'a: 's,
    {
        match self {
            Vectors::Store => Box::new(StoreVectors(store)),
            Vectors::Other(cache) => Box::new(cache),
        }
    }
}

/// A store as a vector cache: the vectors of the documents it holds, by key.
pub struct StoreVectors<'a, S: StoreRead + ?Sized>(pub &'a S);

impl<S: StoreRead + ?Sized> VectorCache for StoreVectors<'_, S> {
    fn get(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        self.0.cached_vectors(keys)
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

impl RecordStep<'_> {
    /// The context stage: sets the contexts of `ing`'s chunks, a language model's from
    /// `cache` when it has them. Runs on any thread.
    pub fn situate(&self, cache: &dyn ContextCache, ing: &mut Ingested) -> Result<Situation> {
        let Some(contextualizer) = self.contextualizer else { return Ok(Situation::default()) };
        let situation = context::situate(contextualizer, cache, &ing.document, &mut ing.chunks)?;
        if let (Some(summary), Some(root)) = (&situation.summary, ing.document.tree.nodes_mut().first_mut()) {
            root.summary = Some(summary.clone());
        }
        Ok(situation)
    }

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
            self.embed_documents(embedder, cache.as_ref(), &[&*ing], progress).remove(0)
        });
        self.record(ing, situation, embedded, sink, vectors, tally, store)
    }

    /// Records `ing` with its chunk vectors made beforehand (`None` without the dense leg;
    /// the ingest loop embeds several documents at once with [`RecordStep::embed_documents`]):
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

    /// The cache to look texts up in: `vectors`' own, none for the index's when
    /// `[dense] vector_cache` is off.
    pub fn cache<'s>(&self, vectors: Vectors<'s>, store: &'s dyn StoreWrite) -> Box<dyn VectorCache + 's> {
        match vectors {
            Vectors::Store if !self.vector_cache => Box::new(strata_embed::cache::NoCache),
            _ => vectors.cache(store),
        }
    }

    /// Gives `ing` its chunk vectors and its section vectors (embedded here, from `cache`
    /// when it holds them), and the cache's entries of both.
    fn set_vectors(
        &self,
        embedder: &dyn Embedder,
        cache: &dyn VectorCache,
        ing: &mut Ingested,
        embedded: Embedded,
        recorded: &mut Recorded,
    ) -> Result<(), Failed> {
        let started = Instant::now();
        recorded.embedded = embedded.vectors.len() - embedded.reused;
        recorded.reused = embedded.reused;
        recorded.truncated = embedded.truncated;
        if embedded.truncated > 0 {
            recorded.messages.push(format!(
                "{} chunks are longer than {}'s {}-token window; their tails are invisible to \
                 the dense leg (lower [chunk] max_tokens)",
                embedded.truncated,
                embedder.info().model_id,
                embedder.info().max_seq_len
            ));
        }
        ing.vectors = Some(embedded.vectors);
        // Every document's root gets its profile's vector (the dense document leg); the
        // other sections theirs only when asked for.
        let sections = match self.section_vectors {
            true => strata_embed::sections::embed_sections(embedder, cache, &ing.document),
            false => strata_embed::sections::embed_document(embedder, cache, &ing.document),
        };
        let sections = sections.map_err(|error| Failed { stage: Stage::Sections, error })?;
        let mut entries = embedded.entries;
        if let Some(sections) = sections {
            if self.section_vectors {
                recorded.sections_embedded = sections.computed;
            }
            entries.extend(sections.entries);
            ing.section_vectors = Some(sections.vectors);
        }
        // An embedder without a cache id leaves its entries without a key: never stored.
        let mut seen = std::collections::HashSet::new();
        entries.retain(|e| !e.key.is_empty() && seen.insert(e.key.clone()));
        ing.cached_vectors = entries;
        recorded.embed_seconds = embedded.seconds + started.elapsed().as_secs_f64();
        Ok(())
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
        let Some(contextualizer) = self.contextualizer else { return Ok(()) };
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

    /// The embed stage for chunks: one vector per chunk of each document, as the legs index
    /// it, all documents' chunks in one queue (the embedder batches them by length, so many
    /// small documents fill batches as one large one does), each from `cache` when it holds
    /// the chunk's text. `progress` is told the chunks embedded so far and the total. When
    /// the shared call fails, each document is embedded alone, so that a failure belongs to
    /// the document that caused it.
    pub fn embed_documents(
        &self,
        embedder: &dyn Embedder,
        cache: &dyn VectorCache,
        docs: &[&Ingested],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Vec<Result<Embedded>> {
        let info = embedder.info();
        let texts: Vec<Cow<'_, str>> = docs
            .iter()
            .flat_map(|ing| {
                ing.chunks
                    .iter()
                    .map(|c| context::embedded_text(c, &ing.document.text, self.tokenizer, info.max_seq_len))
            })
            .collect();
        let started = Instant::now();
        let all = match self.embed_texts(embedder, cache, &texts, progress) {
            Ok(all) => all,
            Err(e) if docs.len() == 1 => return vec![Err(e)],
            Err(_) => {
                return docs
                    .iter()
                    .map(|d| self.embed_documents(embedder, cache, &[d], progress).remove(0))
                    .collect()
            }
        };
        // Each document gets its rows, its truncated chunks and its share of the time.
        let seconds = started.elapsed().as_secs_f64() / texts.len().max(1) as f64;
        let mut entries = all.entries.into_iter();
        let mut first = 0;
        docs.iter()
            .map(|ing| {
                let rows = first..first + ing.chunks.len();
                first = rows.end;
                let entries: Vec<CachedVector> = entries.by_ref().take(rows.len()).collect();
                Ok(Embedded {
                    vectors: ChunkVectors {
                        model: info.model_id.clone(),
                        dim: info.dim,
                        values: all.values[rows.start * info.dim..rows.end * info.dim].to_vec(),
                    },
                    truncated: entries.iter().filter(|e| e.truncated).count(),
                    reused: all.reused.iter().filter(|&&i| rows.contains(&i)).count(),
                    entries,
                    seconds: seconds * rows.len() as f64,
                })
            })
            .collect()
    }

    /// `texts` embedded in slices of `embed_slice`, each slice's texts from `cache` first:
    /// the values, the cache's entries, and the positions the model did not compute.
    fn embed_texts(
        &self,
        embedder: &dyn Embedder,
        cache: &dyn VectorCache,
        texts: &[Cow<'_, str>],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<EmbeddedTexts> {
        let mut out = EmbeddedTexts {
            values: Vec::with_capacity(texts.len() * embedder.info().dim),
            entries: Vec::with_capacity(texts.len()),
            reused: Vec::new(),
        };
        let mut done = 0;
        for slice in texts.chunks(self.embed_slice.unwrap_or(texts.len()).max(1)) {
            if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Err(Error::user("not embedded: the ingest was stopped; ingest it again"));
            }
            let refs: Vec<&str> = slice.iter().map(|t| t.as_ref()).collect();
            let embedded = cache::embed(embedder, cache, &refs)?;
            out.values.extend_from_slice(embedded.embeddings.as_slice());
            out.entries.extend(embedded.entries);
            out.reused.extend(embedded.reused.iter().map(|i| done + i));
            done += slice.len();
            progress(done, texts.len());
        }
        Ok(out)
    }
}

/// What [`RecordStep::embed_texts`] made.
struct EmbeddedTexts {
    values: Vec<f32>,
    entries: Vec<CachedVector>,
    /// Positions whose vector the model did not compute.
    reused: Vec<usize>,
}

/// One document's chunk vectors, made by [`RecordStep::embed_documents`].
#[derive(Debug)]
pub struct Embedded {
    /// A vector per chunk.
    pub vectors: ChunkVectors,
    /// Chunks the model truncated.
    pub truncated: usize,
    /// Chunks whose vector came from the cache (or repeats a chunk's of the same call).
    pub reused: usize,
    /// The cache's entry of each chunk, in order.
    pub entries: Vec<CachedVector>,
    /// The document's share of the embedding time.
    pub seconds: f64,
}

#[cfg(test)]
mod tests {
    use strata_core::{Config, Format, Source};
    use strata_index::{EmbeddedStore, Manifest, StoreRead};
    use strata_ingest::pipeline::Pipeline;
    use strata_model::{EmbedderInfo, Embeddings, Pooling};

    use super::*;

    /// An embedding service that is down.
    struct Down(EmbedderInfo);

    impl Embedder for Down {
        fn info(&self) -> &EmbedderInfo {
            &self.0
        }
        fn embed_passages(&self, _texts: &[&str]) -> Result<Embeddings> {
            Err(Error::Remote {
                service: "test-model at http://127.0.0.1:9".into(),
                reason: "refused".into(),
            })
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
            self.embed_passages(texts)
        }
    }

    fn document(pipeline: &Pipeline) -> Ingested {
        markdown(pipeline, "backups.md", "# Backups\n\nBackups are kept for thirty days.\n")
    }

    /// The Markdown `text`, read and processed as the file `path`.
    fn markdown(pipeline: &Pipeline, path: &str, text: &str) -> Ingested {
        let source = Source {
            path: path.into(),
            format: Format::Markdown,
            content_hash: "h".into(),
            size: text.len() as u64,
            mtime: None,
        };
        pipeline.process(pipeline.read_bytes(source, text.as_bytes()).unwrap())
    }

    /// A 4-dimensional test model.
    fn test_model() -> EmbedderInfo {
        EmbedderInfo {
            model_id: "test-model".into(),
            dim: 4,
            max_seq_len: 256,
            pooling: Pooling::Mean,
            tokenizer: None,
            query_prefix: String::new(),
            passage_prefix: String::new(),
        }
    }

    #[test]
    fn a_failed_embedding_names_its_stage_and_records_nothing() {
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(pipeline.tokenizer().id(), 256, 0);
        let mut store = EmbeddedStore::open_or_create(dir.path(), manifest).unwrap();
        let step = RecordStep {
            contextualizer: None,
            embedder: Some(&Down(test_model())),
            tokenizer: pipeline.tokenizer().as_ref(),
            section_vectors: true,
            vector_cache: true,
            embed_slice: Some(64),
            stop: None,
        };
        let mut ing = document(&pipeline);
        let mut tally = ContextTally::default();
        let failed = step
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

    /// An embedder that sets the ingest's stop flag once it has embedded one slice.
    struct StopsAfterOne<'a>(EmbedderInfo, &'a AtomicBool, std::sync::atomic::AtomicUsize);

    impl Embedder for StopsAfterOne<'_> {
        fn info(&self) -> &EmbedderInfo {
            &self.0
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings> {
            self.2.fetch_add(1, Ordering::Relaxed);
            self.1.store(true, Ordering::Relaxed);
            Ok(Embeddings::new(4, vec![0.5; 4 * texts.len()]))
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
            self.embed_passages(texts)
        }
    }

    /// Issue 55: Ctrl-C in Python waited for the whole ingest. The stop flag is checked
    /// between embedding slices too: the slice in hand ends, no further one starts, and the
    /// document fails at the embed stage, saying why.
    #[test]
    fn regression_a_stop_ends_embedding_after_the_slice_in_hand() {
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let text = "# A\n\nAlpha holds.\n\n# B\n\nBeta holds.\n\n# C\n\nGamma holds.\n";
        let ing = markdown(&pipeline, "abc.md", text);
        assert!(ing.chunks.len() >= 3, "{} chunks", ing.chunks.len());
        let stop = AtomicBool::new(false);
        let embedder = StopsAfterOne(test_model(), &stop, Default::default());
        let step = RecordStep {
            contextualizer: None,
            embedder: Some(&embedder),
            tokenizer: pipeline.tokenizer().as_ref(),
            section_vectors: false,
            vector_cache: false,
            embed_slice: Some(1),
            stop: Some(&stop),
        };
        let results = step.embed_documents(&embedder, &strata_embed::cache::NoCache, &[&ing], &mut |_, _| {});
        let err = results.into_iter().next().unwrap().unwrap_err().to_string();
        assert!(err.contains("the ingest was stopped"), "{err}");
        assert_eq!(embedder.2.load(Ordering::Relaxed), 1, "one slice embedded, then none");
    }

    #[test]
    fn without_an_embedder_the_document_is_recorded_as_read() {
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(pipeline.tokenizer().id(), 256, 0);
        let mut store = EmbeddedStore::open_or_create(dir.path(), manifest).unwrap();
        let step = RecordStep {
            contextualizer: Some(&strata_ingest::context::Structural),
            embedder: None,
            tokenizer: pipeline.tokenizer().as_ref(),
            section_vectors: false,
            vector_cache: true,
            embed_slice: None,
            stop: None,
        };
        let mut ing = document(&pipeline);
        let situation = step.situate(&context::NoCache, &mut ing);
        let mut tally = ContextTally::default();
        let recorded = step
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
