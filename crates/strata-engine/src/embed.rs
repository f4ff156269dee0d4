//! The embed stage: one vector per chunk, of the text the legs index
//! (`context::embedded_text`: the context cut to the room the chunk leaves in the model's
//! window, then the chunk's own text), and with `[dense] sections = true` one per section
//! profile (every document's root gets one: the dense document leg). Each text's vector
//! comes from a vector cache when it holds the text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use strata_core::{CachedVector, ChunkVectors, Error, Result};
use strata_embed::cache::{self, VectorCache};
use strata_index::{StoreRead, StoreWrite};
use strata_ingest::context;
use strata_ingest::pipeline::Ingested;
use strata_model::Embedder;

use crate::driver::{Driver, Failed, Recorded, Stage};

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
impl Driver<'_> {
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
    pub(crate) fn set_vectors(
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
        let sections = sections
            .map_err(|error| Failed { stage: Stage::Embed, error: error.context("its section profiles") })?;
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

    /// The embed stage for chunks: one vector per chunk of each document, as the legs index
    /// it, all documents' chunks in one queue (the embedder batches them by length, so many
    /// small documents fill batches as one large one does), each from `cache` when it holds
    /// the chunk's text. `progress` is told the chunks embedded so far and the total. When
    /// the shared call fails, each document is embedded alone, so that a failure belongs to
    /// the document that caused it.
    pub fn embed(
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
                ing.chunks.iter().map(|c| {
                    context::embedded_text(c, &ing.document.text, self.tokenizer(), info.max_seq_len)
                })
            })
            .collect();
        let started = Instant::now();
        let all = match self.embed_texts(embedder, cache, &texts, progress) {
            Ok(all) => all,
            Err(e) if docs.len() == 1 => return vec![Err(e)],
            Err(_) => {
                return docs.iter().map(|d| self.embed(embedder, cache, &[d], progress).remove(0)).collect()
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

/// What [`Driver::embed_texts`] made.
struct EmbeddedTexts {
    values: Vec<f32>,
    entries: Vec<CachedVector>,
    /// Positions whose vector the model did not compute.
    reused: Vec<usize>,
}

/// One document's chunk vectors, made by [`Driver::embed`].
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
    use std::sync::atomic::{AtomicBool, AtomicUsize};

    use strata_model::{EmbedderInfo, Embeddings};

    use super::*;
    use crate::testing::{driver, markdown, test_model};

    /// An embedder that sets the ingest's stop flag once it has embedded one slice.
    struct StopsAfterOne<'a>(EmbedderInfo, &'a AtomicBool, AtomicUsize);

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
        let stop = AtomicBool::new(false);
        let embedder = StopsAfterOne(test_model(), &stop, Default::default());
        let mut driver = driver(Some(&embedder)).with_embed_slice(1).with_stop(Some(&stop));
        driver.vector_cache = false;
        let text = "# A\n\nAlpha holds.\n\n# B\n\nBeta holds.\n\n# C\n\nGamma holds.\n";
        let ing = markdown(driver.pipeline(), "abc.md", text);
        assert!(ing.chunks.len() >= 3, "{} chunks", ing.chunks.len());
        let results = driver.embed(&embedder, &strata_embed::cache::NoCache, &[&ing], &mut |_, _| {});
        let err = results.into_iter().next().unwrap().unwrap_err().to_string();
        assert!(err.contains("the ingest was stopped"), "{err}");
        assert_eq!(embedder.2.load(Ordering::Relaxed), 1, "one slice embedded, then none");
    }
}
