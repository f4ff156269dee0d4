//! The options of a search as data: `strata search` flags, the JSON of `POST /v1/search`
//! and the MCP `search` tool all become a [`SearchOptions`], and one function turns it into
//! the library's [`SearchRequest`] against the index's documents.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use strata_core::config::valid_meta_key;
use strata_core::{ChunkKind, Config, Error, Result};
use strata_index::{Filter, StoreRead};
use strata_search::{navigate, Expand, Mode, Order, SearchRequest};

/// Most pages returned on each side of a hit (`pages`).
pub const MAX_PAGES_AROUND: u32 = 20;
/// Most definitions a search may attach (`definitions`).
pub const MAX_DEFINITIONS: usize = 100;

/// A search, as a front-end received it. Every field but `query` falls back to `[search]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchOptions {
    /// The query: words, "quoted phrases", section numbers (§ 4.2, Section 102(b)).
    pub query: String,
    /// `keyword`, `exact`, `dense`, `hybrid` or `hierarchical` (default from `[search] mode`).
    #[serde(default)]
    pub mode: Option<String>,
    /// Number of results, 1 to 100 (default from `[search] k`).
    #[serde(default)]
    pub k: Option<usize>,
    /// Only this document (id or part of its path), or one subtree as `DOC#NODE`.
    #[serde(default)]
    pub doc: Option<String>,
    /// Only documents whose metadata has these values (`{"company": "Acme", "year": "2024"}`;
    /// case-insensitive, all must hold). `strata docs` lists each document's metadata.
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub conditions: BTreeMap<String, String>,
    /// Only chunks of this kind: content, definition, requirement, table, code, list.
    #[serde(default)]
    pub kind: Option<String>,
    /// Only chunks on these pages: `12` or `5-7` (physical page numbers, from 1).
    #[serde(default)]
    pub page_range: Option<String>,
    /// Tokens of the assembled context block (default from `[search] budget`).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Return whole pages around each hit, with this many more pages on each side (at most 20).
    #[serde(default)]
    pub pages: Option<u32>,
    /// Attach the sections the hits refer to (one hop).
    #[serde(default)]
    pub refs: bool,
    /// Auto-merge share: a section is returned whole when at least this share of its chunks
    /// are hits; 0 turns merging off.
    #[serde(default)]
    pub merge: Option<f64>,
    /// Order of the hits in the context: `position` (grouped by document) or `score`.
    #[serde(default)]
    pub order: Option<String>,
    /// Rerank with the configured reranker (default true when one is configured).
    #[serde(default)]
    pub rerank: Option<bool>,
    /// Sentences highlighted per hit, 0 to 20; 0 turns highlights off (default from
    /// `[search] highlights`).
    #[serde(default)]
    pub highlights: Option<usize>,
    /// Score highlights with the embedding model (false: BM25 over the hits' sentences, much
    /// cheaper; default from `[search] dense_highlights`).
    #[serde(default)]
    pub dense_highlights: Option<bool>,
    /// Definitions attached at most, 0 to 100 (default from `[search] max_definitions`: as
    /// many as the hits shown); the rest are named in `more_definitions`.
    #[serde(default)]
    pub definitions: Option<usize>,
}

impl SearchOptions {
    /// Options with only a query.
    pub fn new(query: impl Into<String>) -> SearchOptions {
        SearchOptions { query: query.into(), ..SearchOptions::default() }
    }

    /// The mode these options ask for.
    pub fn mode(&self, config: &Config) -> Result<Mode> {
        self.mode.as_deref().map_or(Ok(config.search.mode), Mode::parse)
    }

    /// The library request for these options; `store` resolves `doc`. Errors name the field,
    /// the value and what would be accepted.
    pub fn request(&self, config: &Config, store: &dyn StoreRead) -> Result<SearchRequest> {
        // The query, k, the budget and the merge share are checked by the searcher itself.
        let mode = self.mode(config)?;
        let k = self.k.unwrap_or(config.search.k);
        let mut filter = Filter::default();
        if let Some(doc) = self.doc.as_deref().filter(|d| !d.is_empty()) {
            if doc.contains('#') {
                let (stored, node) = navigate::resolve_node(store, doc)?;
                let last = stored.document.tree.last_descendant(node);
                filter.doc = Some(stored.document.id.clone());
                filter.nodes = Some((node, last));
            } else {
                filter.doc = Some(navigate::resolve_doc(store, doc)?);
            }
        }
        if let Some(kind) = &self.kind {
            filter.kind = Some(ChunkKind::parse(kind).ok_or_else(|| {
                Error::user(format!(
                    "unknown chunk kind {kind:?}; use one of content, definition, requirement, table, code, list"
                ))
            })?);
        }
        if let Some(range) = &self.page_range {
            filter.pages = Some(
                strata_search::navigate::parse_page_range(range)
                    .map_err(|e| Error::user(format!("--page-range (page_range): {e}")))?,
            );
        }
        let mut request = SearchRequest::new(self.query.clone(), mode, k).with_filter(filter);
        if let Some(key) = self.conditions.keys().find(|k| !valid_meta_key(k)) {
            return Err(Error::user(format!(
                "where: {key:?} is not a metadata key (1 to 64 letters, digits, '_', '-', '.'); write --where company=Acme"
            )));
        }
        request.conditions = self.conditions.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        request.expand = Expand::from_config(&config.search);
        if let Some(n) = self.pages.filter(|&n| n > MAX_PAGES_AROUND) {
            return Err(Error::user(format!("pages must be between 0 and {MAX_PAGES_AROUND}, got {n}")));
        }
        request.expand.pages = self.pages;
        request.expand.references |= self.refs;
        if let Some(merge) = self.merge {
            request.expand.auto_merge = merge;
        }
        request.budget = Some(self.budget.unwrap_or(config.search.budget));
        request.order = self.order.as_deref().map_or(Ok(config.search.order), Order::parse)?;
        request.rerank = self.rerank.unwrap_or(true);
        if let Some(n) = self.highlights {
            if n > 20 {
                return Err(Error::user(format!("highlights must be between 0 (off) and 20, got {n}")));
            }
            request.expand.highlights = n;
        }
        if let Some(dense) = self.dense_highlights {
            request.expand.dense_highlights = dense;
        }
        if let Some(n) = self.definitions {
            if n > MAX_DEFINITIONS {
                return Err(Error::user(format!(
                    "definitions must be between 0 and {MAX_DEFINITIONS}, got {n}; `strata define TERM` reads any one"
                )));
            }
            request.expand.max_definitions = Some(n);
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_refused() {
        let err = serde_json::from_str::<SearchOptions>(r#"{"query":"q","top_k":3}"#).unwrap_err();
        assert!(err.to_string().contains("top_k"), "{err}");
        let o: SearchOptions = serde_json::from_str(r#"{"query":"q","k":3}"#).unwrap();
        assert_eq!(o.k, Some(3));
    }
}
