//! The retrieve stage: one ranked list per lexical leg (the dense leg, which needs the query
//! embedder, is run by `search`).

use std::collections::HashMap;

use strata_core::number;
use strata_core::Result;
use strata_index::{Filter, LegHit, StoreRead, StoredChunk};

use crate::plan::Plan;

/// How many candidates each leg contributes to fusion, at least.
pub const LEG_DEPTH: usize = 100;

/// BM25 leg.
pub fn keyword(store: &dyn StoreRead, plan: &Plan, filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
    store.keyword(&plan.query, filter, limit)
}

/// Exact leg: section identifiers first (nearest existing ancestor when the exact number has
/// no heading, so `102(b)` finds § 102), then chunks that hold a quoted phrase, then chunks
/// that define a term the query asks about.
///
/// Within an identifier's section, the chunk that holds the named subsection (`(b)` at the
/// start of a line or paragraph) comes first, then the section's chunks in order. Across
/// documents, the document whose chunks rank higher on `keyword_rank` comes first.
pub fn exact(
    store: &dyn StoreRead,
    plan: &Plan,
    filter: &Filter,
    limit: usize,
    keyword_rank: &HashMap<String, usize>,
) -> Result<ExactHits> {
    let mut out: Vec<LegHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for id in &plan.identifiers {
        let mut keys = vec![id.key.clone()];
        keys.extend(number::parents(&id.key));
        for (depth, key) in keys.iter().enumerate() {
            let hits = store.exact_numbers(std::slice::from_ref(key), filter, 1000)?;
            if hits.is_empty() {
                continue;
            }
            let suffix = &id.key[key.len()..];
            let ids: Vec<String> = hits.iter().map(|h| h.chunk.clone()).collect();
            let chunks = store.chunks(&ids)?;
            let mut doc_best: HashMap<&str, usize> = HashMap::new();
            for c in &chunks {
                let r = keyword_rank.get(&c.chunk.id).copied().unwrap_or(usize::MAX);
                let e = doc_best.entry(c.chunk.doc.as_str()).or_insert(usize::MAX);
                *e = (*e).min(r);
            }
            let mut ranked: Vec<(&StoredChunk, (usize, bool, u32))> = chunks
                .iter()
                .map(|c| {
                    let doc_rank = doc_best.get(c.chunk.doc.as_str()).copied().unwrap_or(usize::MAX);
                    let holds = !suffix.is_empty() && holds_subsection(&c.text, suffix);
                    (c, (doc_rank, !holds, c.chunk.ordinal))
                })
                .collect();
            ranked.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.chunk.doc.cmp(&b.0.chunk.doc)));
            for (c, _) in ranked {
                if seen.insert(c.chunk.id.clone()) {
                    out.push(LegHit { chunk: c.chunk.id.clone(), score: 1.0 / (1.0 + depth as f32) });
                }
            }
            break;
        }
    }
    let identifier_hits = out.len();
    for phrase in &plan.phrases {
        for hit in store.exact_phrase(phrase, filter, limit)? {
            if seen.insert(hit.chunk.clone()) {
                out.push(hit);
            }
        }
    }
    // Chunks that define a term score alike on the exact leg; the one the keyword leg ranks
    // higher (the definitions section over a passing "X includes") comes first.
    let mut defining = store.exact_terms(&plan.terms, filter, limit)?;
    defining.sort_by_key(|h| keyword_rank.get(&h.chunk).copied().unwrap_or(usize::MAX));
    for hit in defining {
        if seen.insert(hit.chunk.clone()) {
            out.push(hit);
        }
    }
    out.truncate(limit.max(LEG_DEPTH));
    Ok(ExactHits { identifier_hits: identifier_hits.min(out.len()), hits: out })
}

/// The exact leg's list; its first `identifier_hits` come from section identifiers.
#[derive(Debug, Clone, Default)]
pub struct ExactHits {
    /// Hits, best first.
    pub hits: Vec<LegHit>,
    /// How many leading hits matched a section identifier.
    pub identifier_hits: usize,
}

/// True when `text` has the first subsection marker of `suffix` (`(b)` of `(b)(1)`) at the
/// start of a line or paragraph.
fn holds_subsection(text: &str, suffix: &str) -> bool {
    let Some(end) = suffix.find(')') else { return false };
    let marker = &suffix[..=end];
    text.lines().any(|l| l.trim_start().to_ascii_lowercase().starts_with(marker))
}
