//! Judging: gold labels resolved against one ingest (document ids, node ids, byte spans of
//! strata's text), then each ranked hit matched against them.

use std::collections::HashMap;

use strata_core::{ChunkId, DocId, NodeId, Span, Tree};
use strata_search::SearchHit;

use crate::dataset::{Query, Target};
use crate::ingest::IndexedSet;
use crate::metrics::{self, DocRange, Judged};

/// A gold label in the ingest's terms.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Doc(DocId),
    Subtree {
        doc: DocId,
        node: NodeId,
    },
    Chunk(ChunkId),
    Span {
        doc: DocId,
        span: Span,
    },
    Page {
        doc: DocId,
        page: u32,
    },
    /// Gold that names something this ingest does not have (a failed document, an unknown
    /// section): never matched, so it counts as missed.
    Unresolved,
}

/// A query's gold, resolved against one ingest.
#[derive(Debug, Clone)]
pub struct ResolvedGold {
    items: Vec<Item>,
    grades: Vec<f64>,
    /// Judge by document: every gold item is a whole document.
    by_document: bool,
    /// Gold sections (for section recall).
    sections: Vec<(DocId, NodeId)>,
    /// Gold pages (for page recall).
    pages: Vec<(DocId, u32)>,
    /// Gold spans in code points of strata's text, documents numbered by `doc_number`.
    spans: Vec<DocRange>,
    /// How many chunks of this ingest overlap or touch a gold span: Chroma's "minimal"
    /// retrieval count, at which span metrics are also reported (`span_iou@min`).
    min_chunks: usize,
    /// Gold labels that could not be resolved.
    pub unresolved: usize,
}

impl ResolvedGold {
    /// Whether every gold item is a whole document (hits are then judged by document).
    pub fn by_document(&self) -> bool {
        self.by_document
    }
}

/// Resolves a query's gold against `set`.
pub fn resolve(query: &Query, set: &IndexedSet, doc_number: &HashMap<DocId, usize>) -> ResolvedGold {
    let mut gold = ResolvedGold {
        items: Vec::new(),
        grades: Vec::new(),
        by_document: !query.gold.is_empty() && query.gold.iter().all(|g| matches!(g.target, Target::Doc(_))),
        sections: Vec::new(),
        pages: Vec::new(),
        spans: Vec::new(),
        min_chunks: 0,
        unresolved: 0,
    };
    for g in &query.gold {
        let view = g.target.doc().and_then(|d| set.docs.get(d));
        let item = match (&g.target, view) {
            (Target::Chunk(id), _) if chunk_exists(set, id) => Item::Chunk(id.clone()),
            (Target::Chunk(_), _) => Item::Unresolved,
            (_, None) => Item::Unresolved,
            (Target::Doc(_), Some(v)) => Item::Doc(v.id.clone()),
            (Target::Node { node, .. }, Some(v)) => match find_node(&v.tree, node) {
                Some(n) => Item::Subtree { doc: v.id.clone(), node: n },
                None => Item::Unresolved,
            },
            (Target::Path { path, .. }, Some(v)) => match find_path(&v.tree, path) {
                Some(n) => Item::Subtree { doc: v.id.clone(), node: n },
                None => Item::Unresolved,
            },
            (Target::Page { page, .. }, Some(v)) if v.pages.iter().any(|p| p.number == *page) => {
                Item::Page { doc: v.id.clone(), page: *page }
            }
            (Target::Page { .. }, Some(_)) => Item::Unresolved,
            (Target::Span { span, .. }, Some(v)) => {
                let mapped = Span::new(v.align.map(span.start), v.align.map(span.end));
                if mapped.is_empty() {
                    Item::Unresolved
                } else {
                    Item::Span { doc: v.id.clone(), span: mapped }
                }
            }
        };
        // Sections, pages and character spans the item stands for.
        match (&item, view) {
            (Item::Subtree { doc, node }, Some(v)) => {
                gold.sections.push((doc.clone(), *node));
                // Page recall means something only where there are pages.
                if let Some(n) = v.tree.get(*node).filter(|_| v.pages.len() > 1) {
                    gold.pages.extend((n.pages.first..=n.pages.last).map(|p| (doc.clone(), p)));
                }
            }
            (Item::Span { doc, span }, Some(v)) => {
                gold.sections.push((doc.clone(), enclosing(&v.tree, *span)));
                let paged = v.pages.len() > 1;
                for p in v.pages.iter().filter(|p| paged && p.span.overlaps(*span)) {
                    gold.pages.push((doc.clone(), p.number));
                }
                let d = doc_number.get(doc).copied().unwrap_or(usize::MAX);
                let (s, e) = (v.chars.char_of(&v.text, span.start), v.chars.char_of(&v.text, span.end));
                gold.spans.push((d, s as u64, e as u64));
            }
            (Item::Page { doc, page }, _) => gold.pages.push((doc.clone(), *page)),
            _ => {}
        }
        if item == Item::Unresolved {
            gold.unresolved += 1;
        }
        gold.items.push(item);
        gold.grades.push(g.grade);
    }
    if !gold.spans.is_empty() {
        // Distinct chunks: one chunk may overlap two gold spans.
        let mut overlapping: Vec<(&DocId, Span)> = Vec::new();
        for item in &gold.items {
            if let Item::Span { doc, span } = item {
                let v = set.names.get(doc).and_then(|n| set.docs.get(n));
                // Chroma counts a chunk that touches a reference (closed intervals).
                let touches = |c: &&Span| c.start <= span.end && span.start <= c.end;
                for c in v.iter().flat_map(|v| &v.chunk_spans).filter(touches) {
                    overlapping.push((doc, *c));
                }
            }
        }
        overlapping.sort_by_key(|(d, c)| ((*d).clone(), c.start, c.end));
        overlapping.dedup();
        gold.min_chunks = overlapping.len();
    }
    gold.sections.sort();
    gold.sections.dedup();
    gold.pages.sort();
    gold.pages.dedup();
    gold
}

/// Every metric of one query at every cut-off in `ks`, keyed `recall@5`, `span_iou@5`, …;
/// empty when the query has no gold.
pub fn score(
    gold: &ResolvedGold,
    hits: &[SearchHit],
    set: &IndexedSet,
    doc_number: &HashMap<DocId, usize>,
    ks: &[usize],
) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if gold.items.is_empty() {
        return out;
    }
    let hits: Vec<&SearchHit> = if gold.by_document {
        metrics::dedupe(hits.iter().collect(), |h| h.doc_id.clone())
    } else {
        hits.iter().collect()
    };
    let parsed: Vec<(DocId, NodeId)> = hits
        .iter()
        .map(|h| (DocId(h.doc_id.clone()), NodeId::parse(&h.node_id).unwrap_or(NodeId(0))))
        .collect();
    let tree_of = |doc: &DocId| set.names.get(doc).and_then(|n| set.docs.get(n)).map(|v| &v.tree);
    let judged = Judged {
        grades: gold.grades.clone(),
        ranked: hits
            .iter()
            .zip(&parsed)
            .map(|(h, (doc, node))| {
                (0..gold.items.len())
                    .filter(|&i| matches(&gold.items[i], h, doc, *node, tree_of(doc)))
                    .collect()
            })
            .collect(),
    };
    let sections = section_matches(gold, &parsed, &tree_of);
    let pages = page_matches(gold, &hits, &parsed);
    let retrieved = retrieved_ranges(&hits, &parsed, set, doc_number);
    if gold.min_chunks > 0 {
        let top = &retrieved[..gold.min_chunks.min(retrieved.len())];
        if let Some(s) = metrics::span_scores(&gold.spans, top) {
            out.push(("span_recall@min".to_string(), s.recall));
            out.push(("span_precision@min".to_string(), s.precision));
            out.push(("span_iou@min".to_string(), s.iou));
        }
    }
    for &k in ks {
        if let Some(s) = judged.at(k) {
            out.push((format!("recall@{k}"), s.recall));
            out.push((format!("precision@{k}"), s.precision));
            out.push((format!("mrr@{k}"), s.mrr));
            out.push((format!("ndcg@{k}"), s.ndcg));
            out.push((format!("hit@{k}"), s.hit));
        }
        if let Some(r) = metrics::coverage_at(gold.sections.len(), &sections, k) {
            out.push((format!("section_recall@{k}"), r));
        }
        if let Some(r) = metrics::coverage_at(gold.pages.len(), &pages, k) {
            out.push((format!("page_recall@{k}"), r));
        }
        if !gold.spans.is_empty() {
            let top = &retrieved[..k.min(retrieved.len())];
            if let Some(s) = metrics::span_scores(&gold.spans, top) {
                out.push((format!("span_recall@{k}"), s.recall));
                out.push((format!("span_precision@{k}"), s.precision));
                out.push((format!("span_iou@{k}"), s.iou));
            }
        }
    }
    out
}

/// For each hit, the gold sections it covers: a hit in the section or its subtree, or on the
/// section's parent (a merged section).
fn section_matches<'t>(
    gold: &ResolvedGold,
    parsed: &[(DocId, NodeId)],
    tree_of: &dyn Fn(&DocId) -> Option<&'t Tree>,
) -> Vec<Vec<usize>> {
    parsed
        .iter()
        .map(|(doc, node)| {
            (0..gold.sections.len())
                .filter(|&i| {
                    let (gd, gn) = &gold.sections[i];
                    gd == doc
                        && tree_of(doc).is_some_and(|t| {
                            is_within(t, *node, *gn) || t.get(*gn).and_then(|n| n.parent) == Some(*node)
                        })
                })
                .collect()
        })
        .collect()
}

/// For each hit, the gold pages it is on.
fn page_matches(gold: &ResolvedGold, hits: &[&SearchHit], parsed: &[(DocId, NodeId)]) -> Vec<Vec<usize>> {
    hits.iter()
        .zip(parsed)
        .map(|(h, (doc, _))| {
            (0..gold.pages.len())
                .filter(|&i| &gold.pages[i].0 == doc && on_pages(h).contains(&gold.pages[i].1))
                .collect()
        })
        .collect()
}

/// Each hit as a character range of its document's input text, for span scores.
fn retrieved_ranges(
    hits: &[&SearchHit],
    parsed: &[(DocId, NodeId)],
    set: &IndexedSet,
    doc_number: &HashMap<DocId, usize>,
) -> Vec<DocRange> {
    hits.iter()
        .zip(parsed)
        .filter_map(|(h, (doc, _))| {
            let v = set.names.get(doc).and_then(|n| set.docs.get(n))?;
            let d = doc_number.get(doc).copied()?;
            Some((
                d,
                v.chars.char_of(&v.text, h.span.start) as u64,
                v.chars.char_of(&v.text, h.span.end) as u64,
            ))
        })
        .collect()
}

/// Hits judged for their highlights: the first this many.
pub const HIGHLIGHT_HITS: usize = 10;

/// How well the highlights of the hits that hold gold point at it: over the first
/// [`HIGHLIGHT_HITS`] hits that overlap a gold span, the share whose first highlight
/// overlaps one (`highlight_p@1`) and the share of their first three highlights that do
/// (`highlight_p@3`, over the highlights given; a hit with none scores 0). Empty when no
/// hit holds span gold: the ranking, not the highlighter, missed.
pub fn score_highlights(gold: &ResolvedGold, hits: &[SearchHit]) -> Vec<(String, f64)> {
    let spans: Vec<(&DocId, Span)> = gold
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Span { doc, span } => Some((doc, *span)),
            _ => None,
        })
        .collect();
    let on_gold = |doc: &str, span: Span| spans.iter().any(|(d, g)| d.0 == doc && g.overlaps(span));
    let (mut p1, mut p3, mut n) = (0.0, 0.0, 0usize);
    for hit in hits.iter().take(HIGHLIGHT_HITS).filter(|h| on_gold(&h.doc_id, h.span)) {
        n += 1;
        let first: Vec<bool> = hit.highlights.iter().take(3).map(|h| on_gold(&hit.doc_id, h.span)).collect();
        if first.first() == Some(&true) {
            p1 += 1.0;
        }
        if !first.is_empty() {
            p3 += first.iter().filter(|&&on| on).count() as f64 / first.len() as f64;
        }
    }
    if n == 0 {
        return Vec::new();
    }
    vec![("highlight_p@1".into(), p1 / n as f64), ("highlight_p@3".into(), p3 / n as f64)]
}

/// The pages a hit is on. A hit in a document without pages (which a search cites by line
/// or section) is on page 1, the one page such a document reads as in gold labels.
fn on_pages(hit: &SearchHit) -> std::ops::RangeInclusive<u32> {
    hit.pages.map_or(1..=1, |p| p.first..=p.last)
}

fn matches(item: &Item, hit: &SearchHit, doc: &DocId, node: NodeId, tree: Option<&Tree>) -> bool {
    match item {
        Item::Doc(d) => d == doc,
        Item::Subtree { doc: d, node: n } => d == doc && tree.is_some_and(|t| is_within(t, node, *n)),
        Item::Chunk(id) => &hit.chunk_id == id,
        Item::Span { doc: d, span } => d == doc && hit.span.overlaps(*span),
        Item::Page { doc: d, page } => d == doc && on_pages(hit).contains(page),
        Item::Unresolved => false,
    }
}

/// Whether `node` is `ancestor` or below it.
fn is_within(tree: &Tree, node: NodeId, ancestor: NodeId) -> bool {
    let mut at = Some(node);
    while let Some(n) = at {
        if n == ancestor {
            return true;
        }
        if n.0 < ancestor.0 {
            return false; // ids are depth-first: an ancestor never has a larger id
        }
        at = tree.get(n).and_then(|x| x.parent);
    }
    false
}

/// The deepest node whose subtree holds the whole span.
fn enclosing(tree: &Tree, span: Span) -> NodeId {
    let mut node = tree.node_at(span.start);
    loop {
        match tree.get(node) {
            Some(n) if n.subtree.end >= span.end || n.parent.is_none() => return node,
            Some(n) => node = n.parent.unwrap_or(NodeId(0)),
            None => return NodeId(0),
        }
    }
}

/// A node by section number (`102(b)`, `§ 4.2`), or by node id: `#0042`, or digits that no
/// section number matches.
fn find_node(tree: &Tree, spec: &str) -> Option<NodeId> {
    let spec = spec.trim();
    let by_id = |s: &str| NodeId::parse(s).filter(|id| tree.get(*id).is_some());
    if let Some(id) = spec.strip_prefix('#') {
        return by_id(id);
    }
    let key = strata_text::number::normalize(spec);
    match strata_text::number::find(tree, &key).next() {
        Some(n) => Some(n.id),
        None if spec.bytes().all(|b| b.is_ascii_digit()) => by_id(spec),
        None => None,
    }
}

/// Whether a chunk id (`doc:7`) names a chunk of this ingest.
fn chunk_exists(set: &IndexedSet, id: &ChunkId) -> bool {
    let Some((doc, ordinal)) = id.as_str().rsplit_once(':') else { return false };
    let view = set.names.get(&DocId(doc.to_string())).and_then(|n| set.docs.get(n));
    matches!((view, ordinal.parse::<usize>()), (Some(v), Ok(i)) if i < v.chunk_spans.len())
}

/// A node whose heading path ends with `path`. Titles are compared case-insensitively, and a
/// gold title may leave out the heading's section number (`Encryption` matches
/// `2. Encryption`, not `Data Encryption`).
fn find_path(tree: &Tree, path: &[String]) -> Option<NodeId> {
    let want: Vec<String> = path.iter().map(|p| p.trim().to_lowercase()).collect();
    if want.is_empty() {
        return None;
    }
    let same = |have: &str, want: &str| {
        let lower = have.trim().to_lowercase();
        lower == want
            || lower.strip_suffix(want).is_some_and(|head| {
                let number = strata_text::number::from_heading(have).map(|n| strata_text::number::key(&n));
                !head.trim().is_empty() && number == Some(strata_text::number::normalize(head))
            })
    };
    tree.nodes().iter().find_map(|n| {
        let have = tree.heading_path(n.id);
        let tail = have.len().checked_sub(want.len())?;
        have[tail..].iter().zip(&want).all(|(h, w)| same(h, w)).then_some(n.id)
    })
}
