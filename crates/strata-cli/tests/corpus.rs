//! Must-show statistics on the real corpus documents (Markdown, HTML, text).
//!
//! Ingests the corpus once into a temporary index, then checks the numbers the core issue
//! asks for. Skips, saying why, when `../shared/data/corpus` is absent.

mod common;

use std::collections::HashSet;
use std::sync::OnceLock;

use common::{ingest_corpus, json, strata, Ingested};
use strata_index::{EmbeddedStore, Filter, StoreRead};
use strata_search::{Mode, SearchRequest, Searcher};

fn ingested() -> Option<&'static Ingested> {
    static INDEX: OnceLock<Option<Ingested>> = OnceLock::new();
    INDEX.get_or_init(|| ingest_corpus(&["markdown", "html", "txt"])).as_ref()
}

fn store() -> Option<EmbeddedStore> {
    Some(EmbeddedStore::open(&ingested()?.index).unwrap())
}

fn doc_id(store: &EmbeddedStore, path_part: &str) -> strata_core::DocId {
    strata_search::navigate::resolve_doc(store, path_part).unwrap()
}

#[test]
fn rfc9110_tree_has_at_least_290_sections() {
    let Some(store) = store() else { return };
    let doc = store.document(&doc_id(&store, "rfc9110")).unwrap().unwrap();
    let sections = doc.document.tree.len() - 1;
    eprintln!("RFC 9110: {sections} section nodes");
    assert!(sections >= 290, "{sections}");
    // The outline JSON has the documented shape.
    let tree = json(&ingested().unwrap().index, &["tree", "rfc9110"]);
    for key in ["id", "title", "number", "level", "children"] {
        assert!(tree.get(key).is_some(), "outline JSON lacks {key}");
    }
    // RFC 9110 is HTML here: no pages, no source lines (tests/citations.rs).
    assert!(tree.get("pages").is_none() && tree.get("lines").is_none(), "{tree:#}");
}

#[test]
fn title35_defines_at_least_35_terms_including_invention() {
    let Some(store) = store() else { return };
    let doc = store.document(&doc_id(&store, "usc-title35")).unwrap().unwrap();
    let terms: HashSet<&str> = doc.definitions.iter().map(|d| d.normalized.as_str()).collect();
    eprintln!("Title 35: {} distinct defined terms", terms.len());
    assert!(terms.len() >= 35, "{}", terms.len());
    assert!(terms.contains("invention"));
    let defs = json(&ingested().unwrap().index, &["define", "invention"]);
    let text = defs[0]["text"].as_str().unwrap();
    assert!(text.contains("means invention or discovery"), "{text}");
}

#[test]
fn rfc3261_has_at_least_300_numbered_sections() {
    let Some(store) = store() else { return };
    let doc = store.document(&doc_id(&store, "rfc3261")).unwrap().unwrap();
    let numbered = doc.document.tree.nodes().iter().filter(|n| n.number.is_some()).count();
    eprintln!("RFC 3261: {numbered} numbered sections, {} pages", doc.document.pages.len());
    assert!(numbered >= 300, "{numbered}");
}

#[test]
fn rfc9110_section_references_mostly_resolve() {
    let Some(store) = store() else { return };
    let doc = store.document(&doc_id(&store, "rfc9110")).unwrap().unwrap();
    let dotted = |t: &str| {
        !t.is_empty() && t.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    };
    let internal: Vec<_> =
        doc.references.iter().filter(|r| r.external.is_none() && dotted(&r.target)).collect();
    let resolved = internal.iter().filter(|r| r.resolved.is_some()).count();
    let share = resolved as f64 / internal.len() as f64;
    eprintln!(
        "RFC 9110: {resolved}/{} Section N.N references resolve ({:.1}%)",
        internal.len(),
        share * 100.0
    );
    assert!(internal.len() > 300);
    assert!(share >= 0.8, "{share}");
}

#[test]
fn exact_search_for_section_102b_puts_title35_section_102_first() {
    let Some(ing) = ingested() else { return };
    for mode in ["exact", "hybrid"] {
        let r = json(&ing.index, &["search", "section 102(b)", "--mode", mode, "-k", "5"]);
        let first = &r["hits"][0];
        let path = first["heading_path"].as_array().unwrap();
        let last = path.last().unwrap().as_str().unwrap();
        assert!(last.starts_with("§102."), "{mode}: {last}");
        assert!(first["source_path"].as_str().unwrap().contains("usc-title35"));
    }
}

/// Hierarchical mode on the corpus: a named section comes first; at most
/// `chunks_per_section` (3) chunks of one section, sections numbered as they first appear,
/// and k hits; and a `--doc` subtree filter keeps every hit inside it.
#[test]
fn hierarchical_caps_hits_per_section_and_keeps_filters() {
    let Some(ing) = ingested() else { return };
    let r = json(&ing.index, &["search", "section 102(b)", "--mode", "hierarchical", "-k", "20"]);
    let hits = r["hits"].as_array().unwrap();
    let first = hits[0]["heading_path"].as_array().unwrap().last().unwrap().as_str().unwrap().to_string();
    assert!(first.starts_with("§102."), "{first}");
    let ranks: Vec<u64> = hits.iter().map(|h| h["section_rank"].as_u64().unwrap()).collect();
    assert_eq!(hits.len(), 20, "{ranks:?}");
    let mut seen = 0;
    for &rank in &ranks {
        assert!(rank <= seen + 1, "a section numbered before it appears: {ranks:?}");
        seen = seen.max(rank);
        assert!(ranks.iter().filter(|r| **r == rank).count() <= 3, "{ranks:?}");
    }
    // Only sections under RFC 9110's section 9 (Methods).
    let r = json(
        &ing.index,
        &["search", "cache the response", "--mode", "hierarchical", "--doc", "rfc9110#9", "-k", "20"],
    );
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        let path: Vec<&str> =
            h["heading_path"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(path.iter().any(|p| p.starts_with("9.")), "{path:?}");
    }
}

/// Every section number that exists in the corpus is found first, in hybrid mode, written
/// as `section N`: within its document, the first hit is that section; across the corpus,
/// the first hit has that number.
#[test]
fn exact_leg_is_top1_on_every_section_number() {
    let Some(store) = store() else { return };
    let searcher = Searcher::new(&store, Default::default()).unwrap();
    let (mut total, mut in_doc, mut anywhere) = (0, 0, 0);
    let mut misses = Vec::new();
    for summary in store.documents().unwrap() {
        let doc = store.document(&summary.id).unwrap().unwrap();
        let mut seen = HashSet::new();
        for node in doc.document.tree.nodes() {
            let Some(number) = &node.number else { continue };
            if number.unit.is_some() || !seen.insert(strata_text::number::key(number)) {
                continue;
            }
            // Headings with no chunk of their own text (empty) cannot be hits.
            total += 1;
            let query = format!("section {}", number.number);
            let key = strata_text::number::key(number);
            let req = |filter: Filter| {
                SearchRequest::new(query.clone(), Mode::Hybrid, 1).ranking_only().with_filter(filter)
            };
            let r =
                searcher.search(&req(Filter { doc: Some(summary.id.clone()), ..Filter::default() })).unwrap();
            if r.hits.first().and_then(|h| h.section_number.as_deref()) == Some(key.as_str()) {
                in_doc += 1;
            } else if misses.len() < 40 {
                misses.push(format!("{}: {query}", summary.id));
            }
            let r = searcher.search(&req(Filter::default())).unwrap();
            if r.hits.first().and_then(|h| h.section_number.as_deref()) == Some(key.as_str()) {
                anywhere += 1;
            }
        }
    }
    eprintln!("section numbers: {total}; top-1 within document {in_doc}, across corpus {anywhere}");
    assert!(total > 1000);
    assert_eq!(in_doc, total, "misses: {misses:?}");
    assert_eq!(anywhere, total);
}

#[test]
fn search_hits_carry_citations() {
    let Some(ing) = ingested() else { return };
    let r = json(&ing.index, &["search", "conditional request preconditions", "-k", "3"]);
    let hit = &r["hits"][0];
    for key in
        ["doc_title", "source_path", "heading_path", "span", "kind", "score", "legs", "text", "citation"]
    {
        assert!(hit.get(key).is_some(), "hit lacks {key}: {hit:#}");
    }
    // Pages where the document has them, source lines in plain text and Markdown, neither in
    // HTML (tests/citations.rs).
    let format = hit["source_path"].as_str().unwrap().rsplit('.').next().unwrap();
    let place = (hit.get("pages").is_some(), hit.get("lines").is_some());
    assert!(
        matches!((format, place), ("htm" | "html", (false, false)) | (_, (true, false) | (false, true))),
        "{hit:#}"
    );
    let (citation, title) = (hit["citation"].as_str().unwrap(), hit["doc_title"].as_str().unwrap());
    assert!(citation.starts_with(&format!("[{title} › ")) && citation.ends_with(']'), "{citation}");
    let out = strata(&ing.index, &["search", "conditional request preconditions", "-k", "500"]);
    assert!(!out.status.success(), "k above 100 must be refused");
}

/// Ranking snapshots on the real corpus (hybrid mode, top 5). A changed snapshot is reviewed
/// against these properties before it is accepted:
///
/// 1. A query that names a section returns that section first (`section 102(b)`, `§ 4.2`).
/// 2. A quoted phrase returns a chunk that holds it word for word first.
/// 3. A topical query ranks a section whose heading names the topic within the top 3.
/// 4. A query naming a defined term returns the chunk that defines it within the top 5.
///
/// Lines show the document title, the chunk ordinal, the section heading and the per-leg
/// ranks (document ids are left out: they depend on where the corpus lives).
#[test]
fn ranking_snapshots() {
    let Some(store) = store() else { return };
    let searcher = Searcher::new(&store, Default::default()).unwrap();
    let queries = [
        "section 102(b)",
        "§ 4.2",
        "\"means invention or discovery\"",
        "idle timeout",
        "conditional request preconditions",
        "Discriminator Object",
        "INVITE client transaction timer",
        "stay of proceedings pending arbitration",
        "definition of invention",
    ];
    let mut out = String::new();
    for q in queries {
        let r = searcher.search(&SearchRequest::new(q, Mode::Hybrid, 5).ranking_only()).unwrap();
        out.push_str(&format!("query: {q}\n"));
        for (i, h) in r.hits.iter().enumerate() {
            let ordinal = h.chunk_id.as_str().rsplit(':').next().unwrap();
            let ranks: Vec<String> = h.legs.iter().map(|(l, r)| format!("{}#{}", l.name(), r.rank)).collect();
            out.push_str(&format!(
                "  {}. {} [{ordinal}] {} ({})\n",
                i + 1,
                h.doc_title,
                h.heading_path.last().map(String::as_str).unwrap_or("(start)"),
                ranks.join(" ")
            ));
        }
    }
    insta::assert_snapshot!("hybrid_top5", out);
}

/// Scores a passage by its length: a reranker whose order is known in advance.
struct ByLength;

impl strata_model::rerank::Reranker for ByLength {
    fn id(&self) -> &str {
        "by-length"
    }

    fn score(&self, _query: &str, passages: &[&str]) -> strata_core::Result<Vec<f32>> {
        Ok(passages.iter().map(|p| p.len() as f32).collect())
    }
}

/// The rerank stage on the corpus: only the top `candidates` fused hits are reordered (by
/// the reranker's scores, each marked with its rerank rank), the hits after them keep their
/// fused order, and identifier hits stay pinned first.
#[test]
fn rerank_reorders_the_candidates_only_and_keeps_identifier_hits_first() {
    let Some(store) = store() else { return };
    let fused = Searcher::new(&store, Default::default()).unwrap();
    let reranked = Searcher::new(&store, Default::default()).unwrap().with_reranker(&ByLength, 5);
    let request = SearchRequest::new("idle timeout", Mode::Hybrid, 10).ranking_only();
    let before = fused.search(&request).unwrap().hits;
    let after = reranked.search(&request).unwrap().hits;
    assert_eq!(before.len(), 10);
    let ids = |hits: &[strata_search::SearchHit]| hits.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>();
    let mut top: Vec<_> = ids(&before[..5]);
    top.sort();
    let mut top_after: Vec<_> = ids(&after[..5]);
    top_after.sort();
    assert_eq!(top, top_after, "the same five candidates");
    let lengths: Vec<usize> =
        after[..5].iter().map(|h| h.context.as_ref().map_or(0, |c| c.len() + 1) + h.text.len()).collect();
    assert!(lengths.windows(2).all(|w| w[0] >= w[1]), "ordered by the reranker: {lengths:?}");
    for (i, h) in after[..5].iter().enumerate() {
        assert_eq!(h.legs[&strata_search::fuse::Leg::Rerank].rank, i + 1);
    }
    assert_eq!(ids(&after[5..]), ids(&before[5..]), "past the candidates, the fused order");

    let request = SearchRequest::new("section 102(b)", Mode::Hybrid, 5).ranking_only();
    let before = fused.search(&request).unwrap().hits;
    let after = reranked.search(&request).unwrap().hits;
    let pinned: Vec<_> =
        before.iter().take_while(|h| h.legs.contains_key(&strata_search::fuse::Leg::Exact)).collect();
    assert!(!pinned.is_empty());
    for (b, a) in pinned.iter().zip(&after) {
        assert_eq!(b.chunk_id, a.chunk_id, "identifier hits stay first");
        assert!(!a.legs.contains_key(&strata_search::fuse::Leg::Rerank));
    }
}
