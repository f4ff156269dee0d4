//! What a search asks for: the query, the mode, the filter and how to expand and assemble.

use strata_core::config::SearchConfig;
use strata_core::{Error, Result};
use strata_index::Filter;

pub use strata_core::config::{Mode, Order};

/// How hits are expanded after fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Expand {
    /// Auto-merge: a section is returned whole when at least this share of its chunks are
    /// hits. 0 turns merging off.
    pub auto_merge: f64,
    /// Whole pages around each hit: `Some(n)` returns the pages a hit touches and `n` pages
    /// on each side (clipped to the filter's subtree). `None` keeps passages as found.
    pub pages: Option<u32>,
    /// Attach definitions of the defined terms in the query and in the hits.
    pub definitions: bool,
    /// Definitions attached at most (`None`: as many as the hits); see
    /// [`crate::expand::definitions`].
    pub max_definitions: Option<usize>,
    /// Attach the sections the hits refer to (one hop).
    pub references: bool,
    /// Sentences highlighted per hit; 0 for none.
    pub highlights: usize,
    /// Score highlight sentences with the dense model when the searcher has one (else, or
    /// when false, with BM25 over the hits' sentences).
    pub dense_highlights: bool,
    /// Dense highlights: sentences embedded per search at most.
    pub dense_highlight_sentences: usize,
}

impl Default for Expand {
    fn default() -> Self {
        Expand::from_config(&SearchConfig::default())
    }
}

impl Expand {
    /// The expansion `[search]` asks for.
    pub fn from_config(config: &SearchConfig) -> Expand {
        Expand {
            auto_merge: config.auto_merge,
            pages: None,
            definitions: true,
            max_definitions: config.max_definitions,
            references: config.references,
            highlights: config.highlights,
            dense_highlights: config.dense_highlights,
            dense_highlight_sentences: config.dense_highlight_sentences,
        }
    }

    /// No expansion at all: hits exactly as ranked (what the eval harness measures).
    pub fn none() -> Expand {
        Expand {
            auto_merge: 0.0,
            pages: None,
            definitions: false,
            max_definitions: None,
            references: false,
            highlights: 0,
            dense_highlights: false,
            dense_highlight_sentences: 0,
        }
    }
}

/// A search request, the same whichever front-end it came from.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// Mode.
    pub mode: Mode,
    /// Number of results, 1 to [`strata_core::config::MAX_K`].
    pub k: usize,
    /// Restrictions.
    pub filter: Filter,
    /// Metadata conditions (`--where key=value`): only documents that meet all of them.
    pub conditions: Vec<(String, String)>,
    /// Expansion after fusion.
    pub expand: Expand,
    /// Tokens of the assembled context; `None` assembles none.
    pub budget: Option<usize>,
    /// Order of the hits in the context.
    pub order: Order,
    /// Rerank the top fused candidates, when the searcher has a reranker.
    pub rerank: bool,
}

impl SearchRequest {
    /// A request with the default expansion and budget of [`SearchConfig::default`].
    pub fn new(query: impl Into<String>, mode: Mode, k: usize) -> SearchRequest {
        let config = SearchConfig::default();
        SearchRequest {
            query: query.into(),
            mode,
            k,
            filter: Filter::default(),
            conditions: Vec::new(),
            expand: Expand::from_config(&config),
            budget: Some(config.budget),
            order: Order::default(),
            rerank: true,
        }
    }

    /// The request with a filter.
    pub fn with_filter(mut self, filter: Filter) -> SearchRequest {
        self.filter = filter;
        self
    }

    /// Checks the request's values: a query, k, budget and auto-merge share in range. Every
    /// front-end's request passes here, so the messages are the same everywhere.
    pub fn validate(&self) -> Result<()> {
        if self.query.trim().is_empty() {
            return Err(Error::user(
                "the query is empty; give some words, a quoted phrase or a section number",
            ));
        }
        let max = strata_core::config::MAX_K;
        if !(1..=max).contains(&self.k) {
            return Err(Error::user(format!("k must be between 1 and {max}, got {}", self.k)));
        }
        if let Some(budget) = self.budget {
            let max = strata_core::config::MAX_BUDGET;
            if !(1..=max).contains(&budget) {
                return Err(Error::user(format!(
                    "the budget must be between 1 and {max} tokens, got {budget}"
                )));
            }
        }
        let merge = self.expand.auto_merge;
        if !(merge.is_finite() && (0.0..=1.0).contains(&merge)) {
            return Err(Error::user(format!(
                "the auto-merge share (--merge, [search] auto_merge) must be between 0 (off) and 1, got {merge}"
            )));
        }
        Ok(())
    }

    /// The ranked hits only: no expansion, no highlights, no context.
    pub fn ranking_only(mut self) -> SearchRequest {
        self.expand = Expand::none();
        self.budget = None;
        self
    }
}
