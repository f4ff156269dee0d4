//! The vector cache: a text's vector is looked up before it is computed.
//!
//! An entry is keyed by the embedder's [`Embedder::cache_id`] (the weights as loaded, the
//! version of the code that computes, the precision, prefixes and window) and the exact text
//! the dense leg embeds, so a different model, code, precision or text is a miss and a stale
//! vector is never served. An embedder that declares no cache id is not cached at all. Where
//! entries live is the caller's business ([`VectorCache`]): an index keeps them with the
//! documents they served (`StoreRead::cached_vectors`), `strata eval --vector-cache` in a
//! folder shared by its runs.
//!
//! [`embed`] is the one place that consults a cache: every front-end's ingest, chunks and
//! section profiles alike, goes through it.

use std::collections::HashMap;

use strata_core::{CachedVector, Result};

use strata_model::{Embedder, Embeddings};

/// Where cached vectors are found, by key.
pub trait VectorCache {
    /// The entries of `keys` the cache holds; keys it does not hold are absent.
    fn get(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>>;
}

impl<T: VectorCache + ?Sized> VectorCache for &T {
    fn get(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        (**self).get(keys)
    }
}

/// No cache: every text is embedded.
pub struct NoCache;

impl VectorCache for NoCache {
    fn get(&self, _keys: &[String]) -> Result<HashMap<String, CachedVector>> {
        Ok(HashMap::new())
    }
}

/// The key of `text` embedded by the embedder whose cache id is `cache_id`: 64 hex digits of
/// blake3 over both.
pub fn key(cache_id: &str, text: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"strata-vector-cache-1\0");
    hasher.update(cache_id.as_bytes());
    hasher.update(b"\0");
    hasher.update(text.as_bytes());
    hasher.finalize().to_hex().to_string()
}

/// What [`embed`] made of a list of texts.
#[derive(Debug)]
pub struct Embedded {
    /// A vector per text, in order, and the positions the model cut.
    pub embeddings: Embeddings,
    /// The cache's entry of each text, in order (a text that repeats repeats its entry).
    pub entries: Vec<CachedVector>,
    /// Texts the model embedded.
    pub computed: usize,
    /// Positions of the texts whose vector the model did not compute: found in the cache, or
    /// repeating a text of the same call.
    pub reused: Vec<usize>,
}

/// `texts` as passages: each text's vector from `cache` when it holds the text's key, the
/// others embedded by `embedder` in one call (a text that repeats is embedded once).
///
/// An embedder without a cache id ([`Embedder::cache_id`] `None`) is never looked up, and its
/// entries have an empty key: they carry each vector and whether it was cut for the caller,
/// and are never stored ([`CachedVector::key`] empty).
pub fn embed(embedder: &dyn Embedder, cache: &dyn VectorCache, texts: &[&str]) -> Result<Embedded> {
    let dim = embedder.info().dim;
    let id = embedder.cache_id()?;
    // What tells two texts apart: their keys, or without a cache id the texts themselves.
    let (keys, ids): (Vec<String>, Vec<String>) = match &id {
        Some(id) => {
            let keys: Vec<String> = texts.iter().map(|t| key(id, t)).collect();
            (keys.clone(), keys)
        }
        None => (vec![String::new(); texts.len()], texts.iter().map(|t| t.to_string()).collect()),
    };
    let mut found = match id {
        Some(_) => cache.get(&keys)?,
        None => HashMap::new(),
    };
    found.retain(|_, v| v.values.len() == dim);
    let mut missing: Vec<usize> = Vec::new();
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    for (i, k) in ids.iter().enumerate() {
        if !found.contains_key(k) && first_of.insert(k, i).is_none() {
            missing.push(i);
        }
    }
    let refs: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
    let computed =
        if refs.is_empty() { Embeddings::new(dim, Vec::new()) } else { embedder.embed_passages(&refs)? };
    let truncated: std::collections::HashSet<usize> = computed.truncated().iter().copied().collect();
    for (row, &i) in missing.iter().enumerate() {
        let entry = CachedVector {
            key: keys[i].clone(),
            values: computed.row(row).to_vec(),
            truncated: truncated.contains(&row),
        };
        found.insert(ids[i].clone(), entry);
    }
    let mut values = Vec::with_capacity(texts.len() * dim);
    let mut cut = Vec::new();
    let mut entries = Vec::with_capacity(texts.len());
    let mut missing = missing.iter().peekable();
    let mut reused = Vec::new();
    for (i, k) in ids.iter().enumerate() {
        if missing.next_if(|&&m| m == i).is_none() {
            reused.push(i);
        }
        let entry = &found[k];
        values.extend_from_slice(&entry.values);
        if entry.truncated {
            cut.push(i);
        }
        entries.push(entry.clone());
    }
    let mut embeddings = Embeddings::new(dim, values);
    embeddings.set_truncated(cut);
    Ok(Embedded { embeddings, computed: texts.len() - reused.len(), reused, entries })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use strata_model::{EmbedderInfo, Pooling};

    /// Embeds a text as its length and its first byte; counts the texts it embedded. Its
    /// cache id is the third field (none when empty).
    struct Counting(EmbedderInfo, AtomicUsize, &'static str);

    impl Embedder for Counting {
        fn info(&self) -> &EmbedderInfo {
            &self.0
        }
        fn cache_id(&self) -> Result<Option<String>> {
            Ok(Some(self.2.to_string()).filter(|id| !id.is_empty()))
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings> {
            self.1.fetch_add(texts.len(), Ordering::Relaxed);
            let data =
                texts.iter().flat_map(|t| [t.len() as f32, t.bytes().next().unwrap_or(0) as f32]).collect();
            let mut e = Embeddings::new(2, data);
            e.set_truncated(texts.iter().enumerate().filter(|(_, t)| t.len() > 8).map(|(i, _)| i).collect());
            Ok(e)
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
            self.embed_passages(texts)
        }
    }

    fn model(id: &'static str) -> Counting {
        let info = EmbedderInfo {
            model_id: "m".into(),
            dim: 2,
            max_seq_len: 8,
            pooling: Pooling::Mean,
            tokenizer: None,
            query_prefix: String::new(),
            passage_prefix: String::new(),
        };
        Counting(info, AtomicUsize::new(0), id)
    }

    struct Map(HashMap<String, CachedVector>);

    impl VectorCache for Map {
        fn get(&self, keys: &[String]) -> Result<HashMap<String, CachedVector>> {
            Ok(keys.iter().filter_map(|k| Some((k.clone(), self.0.get(k)?.clone()))).collect())
        }
    }

    #[test]
    fn only_texts_the_cache_lacks_are_embedded_once_each() {
        let m = model("m@fp32");
        let first = embed(&m, &NoCache, &["a", "a long text", "a"]).unwrap();
        assert_eq!((first.reused.as_slice(), first.computed, m.1.load(Ordering::Relaxed)), (&[2][..], 2, 2));
        assert_eq!(first.embeddings.truncated(), &[1]);
        let cache = Map(first.entries.iter().map(|e| (e.key.clone(), e.clone())).collect());
        let second = embed(&m, &cache, &["a long text", "b", "a"]).unwrap();
        assert_eq!((second.reused.as_slice(), m.1.load(Ordering::Relaxed)), (&[0, 2][..], 3));
        assert_eq!(second.embeddings.as_slice(), &[11.0, 97.0, 1.0, 98.0, 1.0, 97.0]);
        assert_eq!(second.embeddings.truncated(), &[0], "a cached vector keeps its truncation");
    }

    #[test]
    fn another_cache_id_or_text_is_a_miss() {
        let a = model("m@fp32");
        let first = embed(&a, &NoCache, &["clause 1"]).unwrap();
        let cache = Map(first.entries.iter().map(|e| (e.key.clone(), e.clone())).collect());
        let b = model("m@int8");
        assert_eq!(embed(&b, &cache, &["clause 1"]).unwrap().computed, 1);
        assert_eq!(embed(&a, &cache, &["clause 1 "]).unwrap().computed, 1);
        assert_eq!(embed(&a, &cache, &["clause 1"]).unwrap().computed, 0);
    }

    /// An embedder that declares no cache id was cached by its name and shape alone
    /// (issue 54): another model behind the same name was served the first one's vectors.
    #[test]
    fn regression_an_embedder_without_a_cache_id_is_never_looked_up_nor_stored() {
        let m = model("");
        let first = embed(&m, &NoCache, &["a", "a long text", "a"]).unwrap();
        assert_eq!(
            (first.reused.as_slice(), first.computed),
            (&[2][..], 2),
            "repeats are still embedded once"
        );
        assert_eq!(first.embeddings.truncated(), &[1]);
        assert!(first.entries.iter().all(|e| e.key.is_empty()), "no key: never stored");
        let everything = Map(HashMap::from([(
            key("", "a"),
            CachedVector { key: key("", "a"), values: vec![9.0, 9.0], truncated: false },
        )]));
        let again = embed(&m, &everything, &["a"]).unwrap();
        assert_eq!((again.computed, again.embeddings.row(0)), (1, &[1.0, 97.0][..]));
    }

    #[test]
    fn an_entry_of_another_dimension_is_a_miss() {
        let m = model("m");
        let k = key("m", "x");
        let wrong = CachedVector { key: k.clone(), values: vec![1.0; 3], truncated: false };
        let got = embed(&m, &Map(HashMap::from([(k, wrong)])), &["x"]).unwrap();
        assert_eq!((got.computed, got.embeddings.row(0)), (1, &[1.0, 120.0][..]));
    }
}
