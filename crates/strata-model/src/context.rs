//! The contextualizer: what writes the short text that situates each chunk in its document.
//!
//! The structural contextualizer and the context stage that runs one over a document with a
//! cache live in `strata-ingest`; the language-model contextualizers in `strata-providers`.

use serde::Serialize;
use strata_core::{Chunk, Document, Result};

/// What wrote a chunk's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextSource {
    /// The structural context: title, heading path, section number, lead, terms.
    Structural,
    /// A language model, in this run.
    Model,
    /// A language model was asked and failed; the structural context stands in.
    Fallback,
}

/// One chunk's context and how it came about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Situated {
    /// The context text.
    pub context: String,
    /// What wrote it.
    pub source: ContextSource,
    /// The document was longer than the model's window and was shown to it cut (beginning
    /// and end kept).
    pub truncated: bool,
}

/// Tokens a contextualizer used or expects to use (a model's own counts after a call; the
/// index tokenizer's counts in an estimate).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Calls made (or to make).
    pub calls: u64,
    /// Input tokens billed at the full rate.
    pub input: u64,
    /// Input tokens written to the provider's prompt cache.
    pub cache_write: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cache_read: u64,
    /// Output tokens.
    pub output: u64,
}

impl Usage {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Usage) {
        self.calls += other.calls;
        self.input += other.input;
        self.cache_write += other.cache_write;
        self.cache_read += other.cache_read;
        self.output += other.output;
    }
}

/// Writes the contexts of a document's chunks.
pub trait Contextualizer: Send + Sync {
    /// Names what writes the contexts and how: provider, model and prompt version
    /// (`anthropic:claude-haiku-4-5@1`). Part of every context cache key, so another model or
    /// prompt never reuses a context.
    fn id(&self) -> &str;

    /// Whether contexts are worth caching (false for cheap deterministic ones).
    fn cacheable(&self) -> bool {
        true
    }

    /// The contexts of `chunks` (all of `doc`'s, or the ones the cache lacks), in order.
    /// A failure on one chunk falls back to its structural context rather than failing the
    /// document; `Err` is for failures that concern the whole document.
    fn contextualize(&self, doc: &Document, chunks: &[&Chunk]) -> Result<Vec<Situated>>;

    /// What [`Contextualizer::contextualize`] would cost for these chunks, without calling
    /// anything (`strata ingest --dry-run`).
    fn estimate(&self, _doc: &Document, _chunks: &[&Chunk]) -> Usage {
        Usage::default()
    }

    /// A summary of the whole document, for its profile (what the document leg ranks
    /// documents by); `None` when this contextualizer writes none, or the model gave none.
    fn summarize(&self, _doc: &Document) -> Option<String> {
        None
    }

    /// What [`Contextualizer::summarize`] would cost, without calling anything.
    fn estimate_summary(&self, _doc: &Document) -> Usage {
        Usage::default()
    }
}
