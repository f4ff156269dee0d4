//! The expand stage: from ranked chunks to what a reader needs around them.
//!
//! In order, on the hits that fusion (and, in hierarchical mode, the section stage) chose:
//!
//! 1. **Auto-merge** ([`auto_merge`]): when at least a share (`[search] auto_merge`, 0.5 by
//!    default) of a section's chunks are hits, the section's own text is returned once, at
//!    the rank of its best chunk, in place of those chunks. A section of one chunk is left as
//!    it is.
//! 2. **Pages** ([`whole_pages`]): with `--pages N`, each hit becomes the whole pages it
//!    touches and `N` pages on each side, clipped to the filter's subtree, so that a page
//!    range never cites a section outside the filter (nor, under a page filter, a page
//!    outside it). A document without pages (one page) keeps its passages.
//! 3. **Dedupe** ([`dedupe`]): a hit inside a better hit is dropped; overlapping page ranges
//!    are joined into the better one.
//! 4. **Definitions** ([`definitions`]): each defined term in the query or used by a hit,
//!    with its definition from the same document and its citation; a term that documents
//!    define differently is marked as a conflict. The answer needs the terms the query names
//!    first, then those the most hits use: at most `max_definitions` (by default as many as
//!    the hits) are attached, and the rest only named, with where to read them.
//! 5. **References** ([`references`]): optionally, the sections the hits refer to, one hop.
//!
//! Everything here reads the store only for the documents and sections the hits touch.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use strata_core::{DocId, LineRange, NodeId, PageRange, Result, Span};
use strata_index::{Filter, StoreRead, StoredChunk, StoredDocument};

use crate::metas::Metas;
use crate::plan::Plan;
use crate::request::SearchRequest;
use crate::response::{AttachedDefinition, AttachedReference, MoreDefinition, SearchHit, Unit};

/// Most distinct terms of the hits looked up for definitions (query terms always are).
pub const MAX_HIT_TERMS: usize = 24;
/// Most referenced sections attached.
pub const MAX_REFERENCES: usize = 10;

/// What the expand stage hands on.
pub struct Expanded {
    /// The hits, merged, widened to pages and deduplicated, at most k.
    pub hits: Vec<SearchHit>,
    /// The definitions of the terms the query names and the hits use, at most
    /// `max_definitions`.
    pub definitions: Vec<AttachedDefinition>,
    /// The terms whose definitions were left out past `max_definitions`.
    pub more_definitions: Vec<MoreDefinition>,
    /// The sections the hits refer to.
    pub references: Vec<AttachedReference>,
}

/// The expand stage (see the module doc): `hits` expanded as `req.expand` asks, places that
/// merging and dedupe free filled from `reserve`.
pub fn expand(
    store: &dyn StoreRead,
    docs: &mut Docs<'_>,
    hits: Vec<SearchHit>,
    reserve: Vec<SearchHit>,
    req: &SearchRequest,
    plan: &Plan,
) -> Result<Expanded> {
    let x = &req.expand;
    let mut hits = auto_merge(store, hits, x.auto_merge, &req.filter)?;
    if let Some(around) = x.pages {
        hits = whole_pages(docs, hits, around, &req.filter)?;
    }
    hits = dedupe(docs, hits)?;
    for next in reserve {
        if hits.len() >= req.k {
            break;
        }
        let mut more = vec![next];
        if let Some(around) = x.pages {
            more = whole_pages(docs, more, around, &req.filter)?;
        }
        hits.extend(more);
        hits = dedupe(docs, hits)?;
    }
    let (definitions, more_definitions) = match x.definitions {
        true => bounded(definitions(store, docs, plan, &hits, &req.filter)?, &hits, x.max_definitions),
        false => (Vec::new(), Vec::new()),
    };
    let references = if x.references { references(store, docs, &hits, &req.filter)? } else { Vec::new() };
    Ok(Expanded { hits, definitions, more_definitions, references })
}

/// The documents a search touches, loaded once each: metadata (tree, pages, definitions,
/// references) for citations, from the commit's [`Metas`]; the text only when a page range
/// needs it.
pub struct Docs<'s> {
    store: &'s dyn StoreRead,
    metas: &'s Metas,
    meta: HashMap<String, Option<Arc<StoredDocument>>>,
    text: HashMap<String, Option<String>>,
}

impl<'s> Docs<'s> {
    /// An empty cache over `store`, reading metadata through `metas`.
    pub fn new(store: &'s dyn StoreRead, metas: &'s Metas) -> Docs<'s> {
        Docs { store, metas, meta: HashMap::new(), text: HashMap::new() }
    }

    /// A document's metadata (its `document.text` is empty).
    pub fn meta(&mut self, doc: &str) -> Result<Option<&StoredDocument>> {
        if !self.meta.contains_key(doc) {
            let loaded = self.metas.get(self.store, &DocId(doc.to_string()))?;
            self.meta.insert(doc.to_string(), loaded);
        }
        Ok(self.meta[doc].as_deref())
    }

    /// A document's text.
    pub fn text(&mut self, doc: &str) -> Result<Option<&str>> {
        if !self.text.contains_key(doc) {
            let loaded = self.store.document(&DocId(doc.to_string()))?.map(|d| d.document.text);
            self.text.insert(doc.to_string(), loaded);
        }
        Ok(self.text[doc].as_deref())
    }
}

/// The hit for a chunk as stored, before any expansion.
pub fn chunk_hit(c: &StoredChunk) -> SearchHit {
    SearchHit {
        chunk_id: c.chunk.id.clone(),
        unit: Unit::Chunk,
        merged: Vec::new(),
        doc_id: c.chunk.doc.to_string(),
        doc_title: c.doc_title.clone(),
        source_path: c.source_path.clone(),
        node_id: c.chunk.node.to_string(),
        heading_path: c.chunk.heading_path.clone(),
        section_number: c.number.clone(),
        pages: Some(c.chunk.pages),
        lines: c.chunk.lines,
        span: c.chunk.span,
        kind: c.chunk.kind,
        score: 0.0,
        document_rank: None,
        section_rank: None,
        legs: Default::default(),
        // Set apart from `text` once the hits are final (`show::show`).
        heading: None,
        text: c.text.clone(),
        // Set once the hits are final (`cite::cite`), which also drops the pages of a
        // document without pages.
        citation: String::new(),
        context: c.chunk.context.clone(),
        highlights: Vec::new(),
        terms: c.chunk.uses.clone(),
        ocr: c.chunk.ocr,
        ocr_confidence: c.chunk.ocr_confidence,
        references: c.chunk.references.clone(),
    }
}

/// Auto-merge (see the module doc). `threshold` 0 merges nothing, and neither does a page
/// filter: a whole section could reach past the pages asked for.
pub fn auto_merge(
    store: &dyn StoreRead,
    hits: Vec<SearchHit>,
    threshold: f64,
    filter: &Filter,
) -> Result<Vec<SearchHit>> {
    if threshold <= 0.0 || hits.is_empty() || filter.pages.is_some() {
        return Ok(hits);
    }
    let mut groups: HashMap<(String, String), Vec<usize>> = HashMap::new();
    for (i, h) in hits.iter().enumerate().filter(|(_, h)| h.unit == Unit::Chunk) {
        groups.entry((h.doc_id.clone(), h.node_id.clone())).or_default().push(i);
    }
    let mut merged_into: HashMap<usize, SearchHit> = HashMap::new();
    let mut dropped: HashSet<usize> = HashSet::new();
    let mut keys: Vec<_> = groups.into_iter().collect();
    keys.sort();
    for ((doc, node), members) in keys {
        let Some(node_id) = NodeId::parse(&node) else { continue };
        let section = store.chunks_of(&DocId(doc.clone()), Some((node_id, node_id)))?;
        if section.len() < 2 || (members.len() as f64) < threshold * section.len() as f64 {
            continue;
        }
        let best = &hits[members[0]];
        let mut hit = best.clone();
        hit.unit = Unit::Section;
        hit.merged = members.iter().map(|&i| hits[i].chunk_id.clone()).collect();
        hit.span = Span::new(section[0].chunk.span.start, section[section.len() - 1].chunk.span.end);
        hit.pages = section.iter().map(|c| c.chunk.pages).reduce(PageRange::union);
        hit.lines = section.iter().filter_map(|c| c.chunk.lines).reduce(LineRange::union);
        hit.text = section.iter().map(|c| c.text.as_str()).collect();
        hit.terms = union(section.iter().map(|c| c.chunk.uses.as_slice()));
        hit.references = {
            let mut r: Vec<u32> = section.iter().flat_map(|c| c.chunk.references.iter().copied()).collect();
            r.sort_unstable();
            r.dedup();
            r
        };
        // Context and highlights belong to chunks; a section has neither until highlighted.
        hit.context = None;
        merged_into.insert(members[0], hit);
        dropped.extend(members[1..].iter().copied());
    }
    Ok(hits
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(i, h)| merged_into.remove(&i).unwrap_or(h))
        .collect())
}

fn union<'a>(lists: impl Iterator<Item = &'a [String]>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for list in lists {
        for t in list {
            if !out.contains(t) {
                out.push(t.clone());
            }
        }
    }
    out
}

/// Whole pages around each hit (see the module doc): the pages it touches and `around` on
/// each side, clipped to the subtree of `filter.nodes` when there is one.
pub fn whole_pages(
    docs: &mut Docs<'_>,
    hits: Vec<SearchHit>,
    around: u32,
    filter: &Filter,
) -> Result<Vec<SearchHit>> {
    let mut out = Vec::with_capacity(hits.len());
    for mut hit in hits {
        let Some(meta) = docs.meta(&hit.doc_id)? else {
            out.push(hit);
            continue;
        };
        let document = &meta.document;
        // A document without pages (one page: Markdown, HTML) keeps its passages: its one
        // "page" is the whole document.
        let (Some(first_page), Some(last_page)) = (document.pages.first(), document.pages.last()) else {
            out.push(hit);
            continue;
        };
        if document.pages.len() < 2 {
            out.push(hit);
            continue;
        }
        let Some(found) = hit.pages else {
            out.push(hit);
            continue;
        };
        let mut from = found.first.saturating_sub(around).max(first_page.number);
        let mut to = found.last.saturating_add(around).min(last_page.number);
        if let Some((lo, hi)) = filter.pages {
            (from, to) = (from.max(lo), to.min(hi));
        }
        let start = document.pages.iter().find(|p| p.number >= from).map_or(0, |p| p.span.start);
        let end = document.pages.iter().rev().find(|p| p.number <= to).map_or(start, |p| p.span.end);
        // The pages, and the whole hit when it reaches past them; under a page filter, the
        // pages asked for only.
        let mut span = match filter.pages {
            Some(_) if start < end => Span::new(start, end),
            _ => Span::new(start.min(hit.span.start), end.max(hit.span.end)),
        };
        if let (Some(doc), Some((first, _))) = (&filter.doc, filter.nodes) {
            if doc.as_str() == hit.doc_id {
                if let Some(node) = document.tree.get(first) {
                    span = Span::new(span.start.max(node.subtree.start), span.end.min(node.subtree.end));
                }
            }
        }
        let pages = document.pages_of(span);
        cite_section_holding(&mut hit, document, span);
        let Some(text) = docs.text(&hit.doc_id)? else {
            out.push(hit);
            continue;
        };
        hit.text = span.slice(text).to_string();
        hit.span = span;
        hit.pages = Some(pages);
        if hit.merged.is_empty() {
            hit.merged.push(hit.chunk_id.clone());
        }
        hit.unit = Unit::Pages;
        hit.context = None;
        out.push(hit);
    }
    Ok(out)
}

/// Drops hits that lie inside a better hit of the same document, and joins an overlapping
/// page range into the better one (its text re-read from `docs`), absorbing every later
/// kept hit the joined range then overlaps.
pub fn dedupe(docs: &mut Docs<'_>, hits: Vec<SearchHit>) -> Result<Vec<SearchHit>> {
    let mut kept: Vec<SearchHit> = Vec::with_capacity(hits.len());
    for hit in hits {
        let Some(mut i) = kept.iter().position(|k| k.doc_id == hit.doc_id && k.span.overlaps(hit.span))
        else {
            kept.push(hit);
            continue;
        };
        merge_ids(&mut kept[i], &hit);
        let mut span = kept[i].span;
        if span.start <= hit.span.start && hit.span.end <= span.end {
            continue;
        }
        // Partial overlap (only page ranges and merged sections can overlap): join, then
        // absorb whatever else the joined range now overlaps, until nothing does.
        span = Span::new(span.start.min(hit.span.start), span.end.max(hit.span.end));
        loop {
            let other = (0..kept.len())
                .find(|&j| j != i && kept[j].doc_id == hit.doc_id && kept[j].span.overlaps(span));
            let Some(j) = other else { break };
            let absorbed = kept.remove(j);
            if j < i {
                i -= 1;
            }
            span = Span::new(span.start.min(absorbed.span.start), span.end.max(absorbed.span.end));
            merge_ids(&mut kept[i], &absorbed);
        }
        let doc_id = kept[i].doc_id.clone();
        let text = docs.text(&doc_id)?.map(str::to_string);
        let meta = docs.meta(&doc_id)?;
        let (Some(text), Some(meta)) = (text, meta) else {
            return Err(strata_core::Error::Internal(format!("document {doc_id} vanished while expanding")));
        };
        let k = &mut kept[i];
        k.text = span.slice(&text).to_string();
        k.span = span;
        k.pages = Some(meta.document.pages_of(span));
        k.lines = meta.document.first_line.map(|first| LineRange::of(&text, span, first));
        if k.unit == Unit::Chunk {
            k.unit = Unit::Pages;
        }
        cite_section_holding(k, &meta.document, span);
    }
    Ok(kept)
}

/// Makes `hit` cite the deepest section whose subtree holds `span`, starting from its own
/// node and walking up (a page range can reach past the section it was found in).
fn cite_section_holding(hit: &mut SearchHit, document: &strata_core::Document, span: Span) {
    let tree = &document.tree;
    let mut at = NodeId::parse(&hit.node_id).and_then(|n| tree.get(n));
    while let Some(node) = at {
        if node.subtree.start <= span.start && span.end <= node.subtree.end || node.parent.is_none() {
            if node.id.to_string() != hit.node_id {
                hit.node_id = node.id.to_string();
                hit.heading_path = tree.heading_path(node.id);
                hit.section_number = node.number.as_ref().map(strata_text::number::key);
            }
            return;
        }
        at = node.parent.and_then(|p| tree.get(p));
    }
}

fn merge_ids(into: &mut SearchHit, from: &SearchHit) {
    if into.merged.is_empty() {
        into.merged.push(into.chunk_id.clone());
    }
    let ids = if from.merged.is_empty() { std::slice::from_ref(&from.chunk_id) } else { &from.merged[..] };
    for id in ids {
        if !into.merged.contains(id) {
            into.merged.push(id.clone());
        }
    }
    for t in &from.terms {
        if !into.terms.contains(t) {
            into.terms.push(t.clone());
        }
    }
}

/// Definitions of the terms the query names (from the hits' documents when they define it,
/// else from every document that does) and of the terms the hits use (from the hit's own
/// document: the definition in the hit's section or nearest above it, else the first).
///
/// Under a `filter` on a document (or a subtree), only definitions inside it are attached,
/// so that nothing is cited from outside what the user selected.
pub fn definitions(
    store: &dyn StoreRead,
    docs: &mut Docs<'_>,
    plan: &Plan,
    hits: &[SearchHit],
    filter: &Filter,
) -> Result<Vec<AttachedDefinition>> {
    let hit_docs: HashSet<&str> = hits.iter().map(|h| h.doc_id.as_str()).collect();
    let mut out: Vec<AttachedDefinition> = Vec::new();
    let mut seen: HashSet<(String, usize)> = HashSet::new();
    let allowed = |d: &strata_core::Definition| {
        filter.doc.as_ref().is_none_or(|doc| *doc == d.doc)
            && filter.nodes.is_none_or(|(first, last)| (first..=last).contains(&d.node))
    };
    for term in &plan.terms {
        let all: Vec<_> = store.definitions(term)?.into_iter().filter(allowed).collect();
        let from_hits: Vec<_> = all.iter().filter(|d| hit_docs.contains(d.doc.as_str())).cloned().collect();
        let chosen = if from_hits.is_empty() { all } else { from_hits };
        for def in chosen {
            if seen.insert((def.doc.to_string(), def.span.start)) {
                out.push(cite(docs, def, true)?);
            }
        }
    }
    let mut terms: Vec<(&str, &SearchHit)> = Vec::new();
    for hit in hits {
        for term in &hit.terms {
            if terms.len() < MAX_HIT_TERMS && !terms.iter().any(|(t, h)| *t == term && h.doc_id == hit.doc_id)
            {
                terms.push((term, hit));
            }
        }
    }
    for (term, hit) in terms {
        let defs: Vec<_> = store
            .definitions(term)?
            .into_iter()
            .filter(|d| d.doc.as_str() == hit.doc_id && allowed(d))
            .collect();
        let Some(def) = nearest(docs, &hit.doc_id, &hit.node_id, defs)? else { continue };
        if seen.insert((def.doc.to_string(), def.span.start)) {
            out.push(cite(docs, def, false)?);
        }
    }
    // Which hits use each term, and terms defined differently by two documents.
    for def in &mut out {
        def.used_by = hits
            .iter()
            .filter(|h| h.doc_id == def.doc_id && h.terms.contains(&def.normalized))
            .map(|h| h.chunk_id.clone())
            .collect();
    }
    if let Some((first, last)) = filter.pages {
        out.retain(|d| d.pages.is_none_or(|p| p.first <= last && p.last >= first));
    }
    let mut texts: HashMap<String, HashSet<(String, String)>> = HashMap::new();
    for def in &out {
        texts.entry(def.normalized.clone()).or_default().insert((def.doc_id.clone(), squash(&def.text)));
    }
    for def in &mut out {
        let variants = &texts[&def.normalized];
        let docs: HashSet<&str> = variants.iter().map(|(d, _)| d.as_str()).collect();
        let distinct: HashSet<&str> = variants.iter().map(|(_, t)| t.as_str()).collect();
        def.conflict = docs.len() > 1 && distinct.len() > 1;
    }
    Ok(out)
}

/// The definitions the answer needs, at most `max` (`None`: as many as the hits, and never
/// fewer than the terms the query names): those of the terms the query names, then by how
/// many hits use the term, then by the best hit that uses it (document order among equals).
/// The rest are only named.
pub fn bounded(
    mut defs: Vec<AttachedDefinition>,
    hits: &[SearchHit],
    max: Option<usize>,
) -> (Vec<AttachedDefinition>, Vec<MoreDefinition>) {
    let first_use = |d: &AttachedDefinition| hits.iter().position(|h| d.used_by.contains(&h.chunk_id));
    defs.sort_by_key(|d| {
        (!d.in_query, std::cmp::Reverse(d.used_by.len()), first_use(d).unwrap_or(usize::MAX))
    });
    let named = defs.iter().filter(|d| d.in_query).count();
    let keep = max.unwrap_or(hits.len().max(named)).min(defs.len());
    let more = defs.split_off(keep).into_iter().map(|d| MoreDefinition::of(&d)).collect();
    (defs, more)
}

fn squash(text: &str) -> String {
    strata_core::normalize_term(text)
}

/// Of a document's definitions of one term, the one in `node` or nearest above it, else the
/// first in document order.
fn nearest(
    docs: &mut Docs<'_>,
    doc: &str,
    node: &str,
    mut defs: Vec<strata_core::Definition>,
) -> Result<Option<strata_core::Definition>> {
    if defs.len() <= 1 {
        return Ok(defs.pop());
    }
    defs.sort_by_key(|d| d.span.start);
    let Some(meta) = docs.meta(doc)? else { return Ok(defs.into_iter().next()) };
    let tree = &meta.document.tree;
    let mut at = NodeId::parse(node);
    while let Some(n) = at {
        if let Some(i) = defs.iter().position(|d| d.node == n) {
            return Ok(Some(defs.swap_remove(i)));
        }
        at = tree.get(n).and_then(|x| x.parent);
    }
    Ok(defs.into_iter().next())
}

fn cite(docs: &mut Docs<'_>, def: strata_core::Definition, in_query: bool) -> Result<AttachedDefinition> {
    let (doc_title, heading_path, pages) = match docs.meta(def.doc.as_str())? {
        Some(meta) => (
            meta.document.title.clone(),
            meta.document.tree.heading_path(def.node),
            Some(meta.document.pages_of(def.span)),
        ),
        None => (String::new(), Vec::new(), None),
    };
    Ok(AttachedDefinition {
        term: def.term,
        normalized: def.normalized,
        text: def.text,
        doc_id: def.doc.to_string(),
        doc_title,
        node_id: def.node.to_string(),
        heading_path,
        pages,
        lines: def.lines,
        // Set with the hits' (`cite::cite`).
        citation: String::new(),
        span: def.span,
        in_query,
        used_by: Vec::new(),
        conflict: false,
    })
}

/// The sections the hits refer to, one hop: each resolved reference inside a hit, to a
/// section that no hit already covers and that lies inside the `filter`'s subtree, once, at
/// most [`MAX_REFERENCES`].
pub fn references(
    store: &dyn StoreRead,
    docs: &mut Docs<'_>,
    hits: &[SearchHit],
    filter: &Filter,
) -> Result<Vec<AttachedReference>> {
    let mut out: Vec<AttachedReference> = Vec::new();
    let covered: HashSet<(&str, &str)> =
        hits.iter().map(|h| (h.doc_id.as_str(), h.node_id.as_str())).collect();
    let mut seen: HashSet<(String, NodeId)> = HashSet::new();
    for hit in hits {
        let Some(meta) = docs.meta(&hit.doc_id)? else { continue };
        let targets: Vec<_> = hit
            .references
            .iter()
            .filter_map(|&i| meta.references.get(i as usize))
            .filter_map(|r| r.resolved.map(|node| (r.raw.clone(), node, r.exact)))
            .collect();
        let (title, tree) = (meta.document.title.clone(), meta.document.tree.clone());
        for (raw, node, exact) in targets {
            if out.len() >= MAX_REFERENCES {
                return Ok(out);
            }
            if filter.nodes.is_some_and(|(first, last)| !(first..=last).contains(&node)) {
                continue;
            }
            let node_str = node.to_string();
            if covered.contains(&(hit.doc_id.as_str(), node_str.as_str()))
                || !seen.insert((hit.doc_id.clone(), node))
            {
                continue;
            }
            let chunks = store.chunks_of(&DocId(hit.doc_id.clone()), Some((node, node)))?;
            let (Some(first), Some(last)) = (chunks.first(), chunks.last()) else { continue };
            if filter.pages.is_some_and(|(lo, hi)| first.chunk.pages.first > hi || last.chunk.pages.last < lo)
            {
                continue;
            }
            out.push(AttachedReference {
                raw,
                from_chunk: hit.chunk_id.clone(),
                doc_id: hit.doc_id.clone(),
                doc_title: title.clone(),
                node_id: node_str,
                heading_path: tree.heading_path(node),
                pages: Some(PageRange { first: first.chunk.pages.first, last: last.chunk.pages.last }),
                lines: chunks.iter().filter_map(|c| c.chunk.lines).reduce(LineRange::union),
                citation: String::new(),
                span: Span::new(first.chunk.span.start, last.chunk.span.end),
                text: chunks.iter().map(|c| c.text.as_str()).collect(),
                exact,
            });
        }
    }
    Ok(out)
}
