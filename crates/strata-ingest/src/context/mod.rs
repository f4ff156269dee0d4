//! The context stage: a short text that situates each chunk in its document (Anthropic's
//! contextual retrieval), stored apart from the chunk (`Chunk::context`) and prepended to
//! what every retrieval leg indexes (`Chunk::indexed_text`), never to the chunk's own text.
//!
//! A [`Contextualizer`] writes the contexts of one document's chunks. [`Structural`] is the
//! offline, deterministic default ([`structural`]); language-model contextualizers live in
//! `strata-providers`. [`situate`] runs one over a document with a [`ContextCache`], so a
//! context a model wrote is paid for once: re-ingesting an unchanged document (`--force`,
//! after a removal, or the same file under another path) finds its contexts by
//! [`cache_key`].

mod structural;

use std::collections::HashMap;

use serde::Serialize;
use strata_core::{Chunk, Document, Result};
use strata_model::context::{ContextSource, Contextualizer, Usage};

pub use structural::{add_structural, structural, table, Structural, MAX_CONTEXT};

/// Contexts written earlier, by [`cache_key`]. The store keeps them (`StoreRead` /
/// `StoreWrite` in `strata-index`), so a cache survives re-ingest and removal.
pub trait ContextCache {
    /// The cached contexts among `keys`.
    fn get(&self, keys: &[String]) -> Result<HashMap<String, String>>;
}

/// No cache.
pub struct NoCache;

impl ContextCache for NoCache {
    fn get(&self, _: &[String]) -> Result<HashMap<String, String>> {
        Ok(HashMap::new())
    }
}

/// The cache key of `doc`'s summary written by `contextualizer_id` (see [`cache_key`]).
pub fn summary_key(doc: &Document, contextualizer_id: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [b"summary".as_slice(), doc.source.content_hash.as_bytes(), contextualizer_id.as_bytes()] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize().to_hex()[..32].to_string()
}

/// The cache key of `chunk`'s context in `doc` written by `contextualizer_id`: blake3 of the
/// document's content hash, the chunk's text, and the contextualizer id (which holds the
/// model and the prompt version).
pub fn cache_key(doc: &Document, chunk: &Chunk, contextualizer_id: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [
        doc.source.content_hash.as_bytes(),
        chunk.span.slice(&doc.text).as_bytes(),
        contextualizer_id.as_bytes(),
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize().to_hex()[..32].to_string()
}

/// What the dense leg embeds for `chunk` of `doc_text`, in an embedding window of `window`
/// tokens counted by `tokenizer` (the one that sized the chunks).
///
/// Without a context: the overlap and the chunk's own text, which the chunk size leaves room
/// for. With one: the context on a line before the chunk's own text, in place of the
/// overlap (both situate the chunk), and cut to the room the chunk leaves, so that the
/// embedding model's truncation never takes the chunk's tail: with 190-token chunks in
/// MiniLM's 256-token window, whole contexts pushed the tails of 296 of 737 given chunks of
/// the Anthropic set out of it, and dense recall@5 fell from 0.676 to 0.628.
pub fn embedded_text<'t>(
    chunk: &Chunk,
    doc_text: &'t str,
    tokenizer: &dyn strata_text::tokenize::Tokenizer,
    window: usize,
) -> std::borrow::Cow<'t, str> {
    let own = chunk.span.slice(doc_text);
    let Some(context) = &chunk.context else {
        return chunk.indexed_span().slice(doc_text).into();
    };
    // [CLS], [SEP] and the line break.
    let room = window.saturating_sub(chunk.tokens as usize + 3);
    let starts = tokenizer.token_starts(context);
    if starts.len() <= room {
        return format!("{context}\n{own}").into();
    }
    if room < 4 {
        return own.into();
    }
    format!("{}…\n{own}", context[..starts[room - 1]].trim_end()).into()
}

/// What [`situate`] did for one document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Situation {
    /// Chunks whose context came from the cache.
    pub cached: usize,
    /// Chunks a model wrote a context for in this run.
    pub written: usize,
    /// Chunks that fell back to their structural context.
    pub fallbacks: usize,
    /// Chunks whose document was cut to fit the model's window.
    pub truncated: usize,
    /// New contexts to keep in the cache: (key, context).
    pub to_cache: Vec<(String, String)>,
    /// The document's summary ([`Contextualizer::summarize`]), from the cache or written in
    /// this run; the caller puts it on the tree's root, where its profile reads it.
    #[serde(skip)]
    pub summary: Option<String>,
}

/// Sets the context of every chunk of `doc` with `contextualizer`, taking what `cache`
/// already holds, and the document's summary when the contextualizer writes one. Returns
/// what happened and what to add to the cache.
pub fn situate(
    contextualizer: &dyn Contextualizer,
    cache: &dyn ContextCache,
    doc: &Document,
    chunks: &mut [Chunk],
) -> Result<Situation> {
    let mut out = situate_chunks(contextualizer, cache, doc, chunks)?;
    if contextualizer.cacheable() {
        let key = summary_key(doc, contextualizer.id());
        out.summary = match cache.get(std::slice::from_ref(&key))?.remove(&key) {
            Some(cached) => Some(cached),
            None => contextualizer.summarize(doc).inspect(|s| out.to_cache.push((key, s.clone()))),
        };
    }
    Ok(out)
}

fn situate_chunks(
    contextualizer: &dyn Contextualizer,
    cache: &dyn ContextCache,
    doc: &Document,
    chunks: &mut [Chunk],
) -> Result<Situation> {
    let mut out = Situation::default();
    if !contextualizer.cacheable() {
        let all: Vec<&Chunk> = chunks.iter().collect();
        let found = contextualizer.contextualize(doc, &all)?;
        for (chunk, s) in chunks.iter_mut().zip(found) {
            chunk.context = Some(s.context);
        }
        return Ok(out);
    }
    let keys: Vec<String> = chunks.iter().map(|c| cache_key(doc, c, contextualizer.id())).collect();
    let hits = cache.get(&keys)?;
    let mut todo = Vec::new();
    for (i, chunk) in chunks.iter_mut().enumerate() {
        match hits.get(&keys[i]) {
            Some(context) => {
                chunk.context = Some(with_table(doc, chunk, context.clone()));
                out.cached += 1;
            }
            None => todo.push(i),
        }
    }
    if todo.is_empty() {
        return Ok(out);
    }
    let asked: Vec<&Chunk> = todo.iter().map(|&i| &chunks[i]).collect();
    let found = contextualizer.contextualize(doc, &asked)?;
    if found.len() != todo.len() {
        return Err(strata_core::Error::Internal(format!(
            "contextualizer {} returned {} contexts for {} chunks",
            contextualizer.id(),
            found.len(),
            todo.len()
        )));
    }
    for (&i, s) in todo.iter().zip(found) {
        out.truncated += usize::from(s.truncated);
        match s.source {
            ContextSource::Model => {
                out.written += 1;
                out.to_cache.push((keys[i].clone(), s.context.clone()));
                chunks[i].context = Some(with_table(doc, &chunks[i], s.context));
                continue;
            }
            ContextSource::Fallback => out.fallbacks += 1,
            ContextSource::Structural => {}
        }
        chunks[i].context = Some(s.context);
    }
    Ok(out)
}

/// A model's context for a chunk that starts inside a table, with the table's header rows
/// and title after it ([`table`]): the model sees the table around the chunk, but the
/// keyword leg needs the header word for word. The cache keeps the model's own words.
fn with_table(doc: &Document, chunk: &Chunk, mut context: String) -> String {
    if let Some(table) = table(doc, chunk.span) {
        context.push_str(" | table: ");
        context.push_str(&table);
    }
    context
}

/// What [`situate`] would cost for `doc`: the chunks the cache lacks, estimated.
pub fn estimate(
    contextualizer: &dyn Contextualizer,
    cache: &dyn ContextCache,
    doc: &Document,
    chunks: &[Chunk],
) -> Result<(usize, Usage)> {
    let keys: Vec<String> = chunks.iter().map(|c| cache_key(doc, c, contextualizer.id())).collect();
    let hits = if contextualizer.cacheable() { cache.get(&keys)? } else { HashMap::new() };
    let todo: Vec<&Chunk> =
        chunks.iter().zip(&keys).filter(|(_, k)| !hits.contains_key(*k)).map(|(c, _)| c).collect();
    let mut usage = contextualizer.estimate(doc, &todo);
    let key = summary_key(doc, contextualizer.id());
    if contextualizer.cacheable() && cache.get(std::slice::from_ref(&key))?.is_empty() {
        usage.add(&contextualizer.estimate_summary(doc));
    }
    Ok((chunks.len() - todo.len(), usage))
}
