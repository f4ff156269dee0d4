//! The one ingest driver. Every ingest runs a document through the same stages in the same
//! order, whoever asks: `strata ingest`, the server's jobs and Python ([`crate::ingest`]),
//! `strata eval` and the latency bench.
//!
//! | stage | what it does | where |
//! |---|---|---|
//! | read | the format's reader: text, pages, blocks, heading marks | [`Pipeline::read`] |
//! | annotate | identity, metadata and title | [`Pipeline::annotate`] |
//! | tree | the heading tree | [`Pipeline::tree`] |
//! | chunk | token-bounded chunks that tile each section | [`Pipeline::chunk`] |
//! | enrich | chunk kinds, defined terms, cross-references | [`Pipeline::enrich`] |
//! | context | each chunk's context, a language model's from a cache first | [`Driver::context`] |
//! | embed | a vector per chunk and per section profile | [`Driver::embed`] |
//! | record | the document into the store, whole or not at all | [`Driver::record`] |
//!
//! The first six run on any thread ([`Driver::prepare`]); embed and record run on the
//! thread that owns the store ([`Driver::finish`] for one document; the ingest loop embeds
//! many documents' chunks together with [`Driver::embed`], then records each).
//! [`Stage`] names each stage once, for code, tracing spans and crash messages.

use std::sync::atomic::AtomicBool;

use strata_core::{Config, Document, Error, Result, Source};
use strata_ingest::context::{self, ContextCache, Situation};
use strata_ingest::pipeline::{Cut, Ingested, Pipeline};
pub use strata_ingest::stage::Stage;
use strata_model::Embedder;
use strata_text::tokenize::Tokenizer;

use crate::models::Chosen;

/// The ingest driver: the stages with one configuration, its models and how they run.
pub struct Driver<'a> {
    pipeline: Pipeline,
    contextualizer: Chosen,
    pub(crate) embedder: Option<&'a dyn Embedder>,
    pub(crate) section_vectors: bool,
    pub(crate) vector_cache: bool,
    pub(crate) embed_slice: Option<usize>,
    pub(crate) stop: Option<&'a AtomicBool>,
}

/// What a caller decides about a document once it is read (after the tree stage, before the
/// chunk stage): eval renames documents and cuts them at a data set's own spans.
pub type Adjust<'a> = dyn FnMut(&mut Document) -> Result<Cut> + 'a;

/// A document through the stages that run on any thread.
#[derive(Debug)]
pub struct Prepared {
    /// The document, chunked, enriched and situated.
    pub ingested: Ingested,
    /// How its context stage went; a failure there is the document's, reported when it is
    /// recorded ([`Driver::record`]).
    pub situation: Result<Situation>,
}

impl<'a> Driver<'a> {
    /// The driver of `config`: `pipeline` runs read to enrich, `[context]` chooses the
    /// contextualizer, `embedder` (with the dense leg on) embeds; `[dense] sections` and
    /// `vector_cache` say what is embedded and where vectors are looked up.
    pub fn new(
        config: &Config,
        pipeline: Pipeline,
        embedder: Option<&'a dyn Embedder>,
    ) -> Result<Driver<'a>> {
        let contextualizer = crate::models::contextualizer(&config.context, pipeline.tokenizer().clone())?;
        Ok(Driver {
            pipeline,
            contextualizer,
            embedder,
            section_vectors: config.dense.sections,
            vector_cache: config.dense.vector_cache,
            embed_slice: None,
            stop: None,
        })
    }

    /// This driver, embedding every section profile (`true`) or only each document's
    /// root (`false`), whatever `[dense] sections` says.
    pub fn with_section_vectors(mut self, sections: bool) -> Driver<'a> {
        self.section_vectors = sections;
        self
    }

    /// This driver, embedding `n` chunks per call, so that progress shows inside long
    /// documents and a stop is seen between slices (by default a document's chunks go in one
    /// call). The embedder batches each call by length, so the slices decide which chunks
    /// share a batch.
    pub fn with_embed_slice(mut self, n: usize) -> Driver<'a> {
        self.embed_slice = Some(n);
        self
    }

    /// This driver, stopping before its next embedding slice once `stop` is set (a server
    /// shutting down, Ctrl-C in Python); the documents in that slice fail.
    pub fn with_stop(mut self, stop: Option<&'a AtomicBool>) -> Driver<'a> {
        self.stop = stop;
        self
    }

    /// The stages from read to enrich.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The index's tokenizer (chunks are counted in it; it cuts contexts to the room the
    /// model's window leaves).
    pub fn tokenizer(&self) -> &dyn Tokenizer {
        self.pipeline.tokenizer().as_ref()
    }

    /// What writes the chunks' contexts (`[context] kind`).
    pub fn contextualizer(&self) -> &Chosen {
        &self.contextualizer
    }

    /// The passage embedder, when the dense leg is on.
    pub fn embedder(&self) -> Option<&'a dyn Embedder> {
        self.embedder
    }

    /// read → annotate → tree → chunk → enrich → context on the bytes of `source`, on any
    /// thread ([`Driver::process`], then the context stage). Contexts a language model wrote
    /// before come from `cache`.
    pub fn prepare(
        &self,
        source: Source,
        bytes: &[u8],
        adjust: Option<&mut Adjust<'_>>,
        cache: &dyn ContextCache,
    ) -> Result<Prepared> {
        let path = source.path.clone();
        let mut ingested = self.process(source, bytes, adjust)?;
        let situation = Stage::Context.run(&path, || Ok(self.context(cache, &mut ingested)))?;
        Ok(Prepared { ingested, situation })
    }

    /// read → annotate → tree → chunk → enrich on the bytes of `source`, on any thread.
    /// `adjust`, when given, sees the document once it is read and says how to cut it;
    /// strata's chunker cuts it otherwise, and a document it leaves without a chunk is
    /// refused. `strata ingest --dry-run` stops here.
    pub fn process(&self, source: Source, bytes: &[u8], adjust: Option<&mut Adjust<'_>>) -> Result<Ingested> {
        let path = source.path.clone();
        let mut document = self.pipeline.document(source, bytes)?;
        let cut = match adjust {
            Some(adjust) => adjust(&mut document)?,
            None => Cut::Chunker,
        };
        let ingested = self.pipeline.process(document, &cut)?;
        // A PDF whose every line is a running header, footer or page number reads as text
        // that no chunk holds: listed with 0 chunks, it would be found by nothing.
        if matches!(cut, Cut::Chunker) && ingested.chunks.is_empty() {
            return Err(Error::read(
                &path,
                "no text to index: every line read is page furniture (running headers, footers, page numbers) or blank",
            ));
        }
        Ok(ingested)
    }

    /// The context stage: sets the contexts of `ing`'s chunks, a language model's from
    /// `cache` when it has them. Runs on any thread.
    pub fn context(&self, cache: &dyn ContextCache, ing: &mut Ingested) -> Result<Situation> {
        let Some(contextualizer) = self.contextualizer.get() else { return Ok(Situation::default()) };
        let situation = context::situate(contextualizer, cache, &ing.document, &mut ing.chunks)?;
        if let (Some(summary), Some(root)) = (&situation.summary, ing.document.tree.nodes_mut().first_mut()) {
            root.summary = Some(summary.clone());
        }
        Ok(situation)
    }
}

/// Why a document was not recorded ([`Driver::record`]).
#[derive(Debug, thiserror::Error)]
#[error("{}{error}", stage_prefix(*.stage))]
pub struct Failed {
    /// The stage that failed: context (writing the chunks' contexts, or keeping them for
    /// the cache), embed (the chunks or the section profiles) or record.
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
        _ => "",
    }
}

/// What embedding and recording one document did ([`Driver::record`]).
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
