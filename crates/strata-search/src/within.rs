//! A search restricted to documents chosen by their metadata (`--where company=Acme`).
//!
//! [`Within`] is a [`StoreRead`] over the documents a request's metadata conditions select:
//! each leg runs with the filter narrowed to one of them at a time, and the lists are merged
//! by score, which is the leg's own ranking over those documents (a leg scores a chunk alike
//! with or without a document filter). Its cost grows with the number of documents chosen;
//! a filter naming one document costs one search, as `--doc` does.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;
use strata_core::{ChunkId, Definition, DocId, NodeId, Result};
use strata_index::{
    DocSummary, Filter, LegHit, Manifest, SectionHit, StoreRead, StoredChunk, StoredDocument,
};

/// Whether `metadata` holds `value` under `key` (case-insensitive; a number as written; an
/// array when one of its elements does).
pub fn holds(metadata: &BTreeMap<String, Value>, key: &str, value: &str) -> bool {
    let equal = |v: &Value| match v {
        Value::String(s) => s.trim().eq_ignore_ascii_case(value.trim()),
        Value::Number(n) => n.to_string() == value.trim(),
        Value::Bool(b) => b.to_string() == value.trim().to_ascii_lowercase(),
        _ => false,
    };
    match metadata.get(key) {
        Some(Value::Array(items)) => items.iter().any(equal),
        Some(v) => equal(v),
        None => false,
    }
}

/// The store seen through a set of documents.
pub struct Within<'s> {
    store: &'s dyn StoreRead,
    docs: Vec<DocId>,
    set: HashSet<DocId>,
}

impl<'s> Within<'s> {
    /// `store` restricted to `docs`.
    pub fn new(store: &'s dyn StoreRead, docs: Vec<DocId>) -> Within<'s> {
        let set = docs.iter().cloned().collect();
        Within { store, docs, set }
    }

    /// The filters a leg runs with: `filter` itself when it names one of the documents,
    /// nothing when it names another, else one per document.
    fn filters(&self, filter: &Filter) -> Vec<Filter> {
        match &filter.doc {
            Some(doc) if self.set.contains(doc) => vec![filter.clone()],
            Some(_) => Vec::new(),
            None => self.docs.iter().map(|d| Filter { doc: Some(d.clone()), ..filter.clone() }).collect(),
        }
    }

    /// A leg over every document, merged by score (stable: on ties, document order).
    fn merged<T: Scored>(
        &self,
        filter: &Filter,
        limit: usize,
        leg: impl Fn(&Filter) -> Result<Vec<T>>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for f in self.filters(filter) {
            out.extend(leg(&f)?);
        }
        out.sort_by(|a, b| b.score().total_cmp(&a.score()));
        out.truncate(limit);
        Ok(out)
    }
}

/// A leg's hit, chunk or section, by its score.
trait Scored {
    fn score(&self) -> f32;
}

impl Scored for LegHit {
    fn score(&self) -> f32 {
        self.score
    }
}

impl Scored for SectionHit {
    fn score(&self) -> f32 {
        self.score
    }
}

impl StoreRead for Within<'_> {
    fn manifest(&self) -> &Manifest {
        self.store.manifest()
    }

    fn documents(&self) -> Result<Vec<DocSummary>> {
        Ok(self.store.documents()?.into_iter().filter(|d| self.set.contains(&d.id)).collect())
    }

    fn document(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        self.store.document(id)
    }

    fn document_meta(&self, id: &DocId) -> Result<Option<StoredDocument>> {
        self.store.document_meta(id)
    }

    fn content_hash(&self, id: &DocId) -> Result<Option<String>> {
        self.store.content_hash(id)
    }

    fn chunks(&self, ids: &[ChunkId]) -> Result<Vec<StoredChunk>> {
        self.store.chunks(ids)
    }

    fn sections_of(&self, ids: &[ChunkId]) -> Result<Vec<(ChunkId, DocId, NodeId)>> {
        self.store.sections_of(ids)
    }

    fn chunks_of(&self, doc: &DocId, nodes: Option<(NodeId, NodeId)>) -> Result<Vec<StoredChunk>> {
        self.store.chunks_of(doc, nodes)
    }

    fn keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.merged(filter, limit, |f| self.store.keyword(query, f, limit))
    }

    fn section_keyword(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        self.merged(filter, limit, |f| self.store.section_keyword(query, f, limit))
    }

    fn section_dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<SectionHit>> {
        self.merged(filter, limit, |f| self.store.section_dense(query, f, limit))
    }

    fn exact_numbers(&self, keys: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.merged(filter, limit, |f| self.store.exact_numbers(keys, f, limit))
    }

    fn exact_terms(&self, terms: &[String], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.merged(filter, limit, |f| self.store.exact_terms(terms, f, limit))
    }

    fn exact_phrase(&self, phrase: &str, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.merged(filter, limit, |f| self.store.exact_phrase(phrase, f, limit))
    }

    fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        self.merged(filter, limit, |f| self.store.dense(query, f, limit))
    }

    fn definitions(&self, term: &str) -> Result<Vec<Definition>> {
        Ok(self.store.definitions(term)?.into_iter().filter(|d| self.set.contains(&d.doc)).collect())
    }

    fn defined_terms(&self) -> Result<Vec<String>> {
        self.store.defined_terms()
    }

    fn cached_contexts(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        self.store.cached_contexts(keys)
    }

    fn cached_vectors(&self, keys: &[String]) -> Result<HashMap<String, strata_core::CachedVector>> {
        self.store.cached_vectors(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_holds_case_insensitively_on_strings_numbers_and_arrays() {
        let m: BTreeMap<String, Value> = serde_json::from_value(
            serde_json::json!({"company": "Acme Corp", "year": 2024, "tags": ["a", "B"]}),
        )
        .unwrap();
        assert!(holds(&m, "company", "acme corp"));
        assert!(holds(&m, "year", "2024"));
        assert!(holds(&m, "tags", "b"));
        assert!(!holds(&m, "company", "acme"));
        assert!(!holds(&m, "missing", "x"));
    }
}
