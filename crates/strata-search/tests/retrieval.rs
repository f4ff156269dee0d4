//! Hierarchical retrieval, expansion and assembly on the real corpus (lexical legs; the
//! dense variants are in `dense.rs`).
//!
//! The properties every test here holds the searcher to:
//!
//! 1. A query that names `Section 9.3.1` of RFC 9110 returns that section first in every
//!    mode that runs the exact leg (exact, hybrid, hierarchical).
//! 2. A query that uses a term Title 35 defines attaches that definition, cited to its
//!    section (§100. Definitions).
//! 3. Hierarchical results (hits, definitions and references alike) never cite a section
//!    outside the `--doc` / subtree filter, and a page-range filter keeps every hit on those
//!    pages.
//! 4. Every returned span lies inside its cited section and its cited pages, no two hits
//!    overlap, and every highlight lies inside its hit, for every mode and expansion
//!    (checked on generated queries with proptest).
//! 5. The assembled context never exceeds its budget, and its token count is exact.
//! 6. Hierarchical mode takes at most `chunks_per_section` hits from one section, and numbers
//!    sections in the order they first appear.
//! 7. Hierarchical mode finds the section a query names by its heading: for the headings of
//!    RFC 9110's sections, a question that quotes one, asked of that document, puts a chunk
//!    of that section first at least as often as hybrid does, and for nearly all of them
//!    (`filing_sections.rs` shows the gain on filings, whose tables never repeat their
//!    headings). Across documents, a named heading lifts only the documents the query
//!    names (`[search] heading_scope = "named"`): every RFC has a "Content Negotiation".
//!
//! Ranking snapshots of hierarchical mode are reviewed against the same properties.
//!
//! The index is built as `strata ingest` builds it with the dense leg off
//! (`strata_engine::ingest_files`, structural contexts).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use strata_core::config::{HeadingScope, NameDrop, SearchConfig};
use strata_core::NodeId;
use strata_index::{EmbeddedStore, Filter, StoreRead};
use strata_ingest::tokenize::Cl100k;
use strata_search::fuse::Leg;
use strata_search::{navigate, Expand, Mode, SearchRequest, SearchResponse, Searcher, Unit};
use strata_text::tokenize::Tokenizer;

mod common;
use common::{ingest_lexical, shared, Ingested};

/// Ingests `parts` of the shared corpus (relative to it) into a new temporary index with the
/// dense leg off; `None` when the corpus is absent.
fn ingest_corpus(parts: &[&str]) -> Option<Ingested> {
    let corpus = shared("corpus/MANIFEST.tsv")?.parent().unwrap().to_path_buf();
    let files: Vec<PathBuf> = parts.iter().map(|p| corpus.join(p)).collect();
    Some(ingest_lexical(&files))
}

fn ingested() -> Option<&'static Ingested> {
    static INDEX: OnceLock<Option<Ingested>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            ingest_corpus(&[
                "html/rfc9110-http-semantics.html",
                "html/usc-title35-patents.htm",
                "html/usc-title09-arbitration.htm",
                "txt/rfc7231-http11-semantics.txt",
                "markdown/uslm-user-guide.md",
            ])
        })
        .as_ref()
}

fn store() -> Option<EmbeddedStore> {
    Some(EmbeddedStore::open(&ingested()?.index).unwrap())
}

fn searcher(store: &EmbeddedStore) -> Searcher<'_> {
    searcher_with(store, SearchConfig::default())
}

fn searcher_with(store: &EmbeddedStore, config: SearchConfig) -> Searcher<'_> {
    Searcher::new(store, config).unwrap().with_tokenizer(Arc::new(Cl100k::new().unwrap())).unwrap()
}

/// The search settings with the section legs on (off by default).
fn with_section_legs() -> SearchConfig {
    let mut config = SearchConfig::default();
    config.weights.sections = 1.0;
    config
}

const MODES: [Mode; 4] = [Mode::Keyword, Mode::Exact, Mode::Hybrid, Mode::Hierarchical];

/// A document's text, read once per test run.
fn full_text(store: &EmbeddedStore, doc: &strata_core::DocId) -> Arc<String> {
    static TEXTS: OnceLock<std::sync::Mutex<std::collections::HashMap<String, Arc<String>>>> =
        OnceLock::new();
    let mut texts = TEXTS.get_or_init(Default::default).lock().unwrap();
    texts
        .entry(doc.to_string())
        .or_insert_with(|| Arc::new(store.document(doc).unwrap().unwrap().document.text))
        .clone()
}

/// The pages a hit cites; the test's documents have pages.
fn pages_of(h: &strata_search::SearchHit) -> strata_core::PageRange {
    h.pages.unwrap_or_else(|| panic!("{} cites no pages", h.chunk_id))
}

#[test]
fn section_9_3_1_of_rfc9110_comes_first_in_every_mode_with_exact() {
    let Some(store) = store() else { return };
    let rfc9110 = navigate::resolve_doc(&store, "rfc9110").unwrap();
    for s in [searcher(&store), searcher_with(&store, with_section_legs())] {
        for query in ["Section 9.3.1 of RFC 9110", "section 9.3.1 GET"] {
            for mode in MODES.into_iter().filter(|m| m.has_exact()) {
                for filter in [Filter::default(), Filter { doc: Some(rfc9110.clone()), ..Filter::default() }]
                {
                    let r =
                        s.search(&SearchRequest::new(query, mode, 5).with_filter(filter.clone())).unwrap();
                    let first = r.hits.first().unwrap_or_else(|| panic!("{query:?} {mode:?}: no hits"));
                    if filter.doc.is_some() {
                        assert_eq!(first.doc_id, rfc9110.as_str(), "{query:?} {mode:?}");
                    }
                    assert_eq!(
                        first.section_number.as_deref(),
                        Some("9.3.1"),
                        "{query:?} {mode:?}: {}",
                        first.chunk_id
                    );
                    assert!(first.heading_path.last().unwrap().contains("GET"), "{:?}", first.heading_path);
                }
            }
        }
    }
}

#[test]
fn a_term_defined_in_title_35_attaches_its_definition() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    for mode in MODES {
        let r = s
            .search(&SearchRequest::new("the effective filing date of a claimed invention", mode, 5))
            .unwrap();
        let def =
            r.definitions.iter().find(|d| d.normalized == "effective filing date").unwrap_or_else(|| {
                panic!("{mode:?}: no definition of effective filing date in {:#?}", r.definitions)
            });
        assert!(def.in_query);
        assert!(def.doc_title.contains("TITLE 35"), "{}", def.doc_title);
        assert!(def.heading_path.last().unwrap().contains("§100. Definitions"), "{:?}", def.heading_path);
        assert!(def.text.contains("effective filing date"), "{}", def.text);
        // Listed once, and in the context block under its citation.
        assert_eq!(r.definitions.iter().filter(|d| d.span == def.span).count(), 1);
        let context = r.context.as_ref().unwrap();
        assert!(context.text.contains("## Definitions"), "{mode:?}: {}", context.text);
        // Title 35 is HTML: no page to cite.
        assert!(context.text.contains("§100. Definitions] effective filing date"), "{}", context.text);
    }
    // A hit that uses a defined term brings its definition from its own document.
    let r = s
        .search(&SearchRequest::new("conditions for patentability novelty prior art", Mode::Hybrid, 5))
        .unwrap();
    assert!(
        r.definitions.iter().any(|d| !d.used_by.is_empty() && d.doc_title.contains("TITLE 35")),
        "{:#?}",
        r.definitions
    );
    for d in &r.definitions {
        for id in &d.used_by {
            let hit = r.hits.iter().find(|h| &h.chunk_id == id).unwrap();
            assert_eq!(hit.doc_id, d.doc_id, "a hit's term is defined from its own document");
        }
    }
}

/// Every hit, definition and reference of `r` lies inside `filter`.
fn assert_inside(store: &EmbeddedStore, r: &SearchResponse, filter: &Filter, what: &str) {
    let Some(doc) = &filter.doc else { return };
    let meta = store.document_meta(doc).unwrap().unwrap();
    let (first, last) = filter.nodes.unwrap_or((NodeId::ROOT, NodeId((meta.document.tree.len() - 1) as u32)));
    let subtree = meta.document.tree.get(first).unwrap().subtree;
    let inside = |node: &str| NodeId::parse(node).is_some_and(|n| (first..=last).contains(&n));
    for h in &r.hits {
        assert_eq!(&h.doc_id, doc.as_str(), "{what}: hit {}", h.chunk_id);
        assert!(
            inside(&h.node_id),
            "{what}: hit {} cites node {} outside {first}..={last}",
            h.chunk_id,
            h.node_id
        );
        assert!(
            subtree.start <= h.span.start && h.span.end <= subtree.end,
            "{what}: hit {} span {}",
            h.chunk_id,
            h.span
        );
    }
    for d in &r.definitions {
        assert_eq!(&d.doc_id, doc.as_str(), "{what}: definition {}", d.term);
        assert!(inside(&d.node_id), "{what}: definition {} in node {}", d.term, d.node_id);
    }
    for x in &r.references {
        assert!(inside(&x.node_id), "{what}: reference {} to node {}", x.raw, x.node_id);
    }
}

#[test]
fn hierarchical_results_never_cite_outside_the_filter() {
    let Some(store) = store() else { return };
    for config in [SearchConfig::default(), with_section_legs()] {
        results_stay_inside_filters(&store, &searcher_with(&store, config));
    }
}

fn results_stay_inside_filters(store: &EmbeddedStore, s: &Searcher<'_>) {
    let mut filters = Vec::new();
    for target in ["rfc9110#9", "rfc9110#15", "usc-title35#100", "usc-title35", "uslm-user-guide"] {
        let (stored, node) = navigate::resolve_node(store, target).unwrap();
        let last = stored.document.tree.last_descendant(node);
        let nodes = (node != NodeId::ROOT).then_some((node, last));
        filters.push((target, Filter { doc: Some(stored.document.id.clone()), nodes, ..Filter::default() }));
    }
    let queries = [
        "what does invention mean",
        "section 102",
        "GET request caching",
        "error status codes",
        "element attributes",
    ];
    for (target, filter) in &filters {
        for q in queries {
            for pages in [None, Some(1)] {
                let mut req = SearchRequest::new(q, Mode::Hierarchical, 10).with_filter(filter.clone());
                req.expand.pages = pages;
                req.expand.references = true;
                let r = s.search(&req).unwrap();
                assert_inside(store, &r, filter, &format!("{target} {q:?} pages {pages:?}"));
            }
        }
    }
}

#[test]
fn a_page_range_filter_keeps_every_hit_on_those_pages() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    let rfc7231 = navigate::resolve_doc(&store, "rfc7231").unwrap();
    for mode in MODES {
        for (first, last) in [(20, 24), (57, 57)] {
            let filter =
                Filter { doc: Some(rfc7231.clone()), pages: Some((first, last)), ..Filter::default() };
            let r = s
                .search(&SearchRequest::new("request method semantics", mode, 10).with_filter(filter))
                .unwrap();
            if mode != Mode::Exact {
                assert!(!r.hits.is_empty(), "{mode:?} {first}-{last}");
            }
            for h in &r.hits {
                let pages = pages_of(h);
                assert!(pages.first <= last && pages.last >= first, "{mode:?}: {} on {pages}", h.chunk_id);
            }
        }
    }
    // Whole pages and merged sections stay on the pages asked for.
    let filter = Filter { doc: Some(rfc7231.clone()), pages: Some((30, 31)), ..Filter::default() };
    let mut req = SearchRequest::new("request method semantics", Mode::Hybrid, 5).with_filter(filter);
    req.expand.pages = Some(2);
    req.expand.references = true;
    let r = s.search(&req).unwrap();
    assert!(!r.hits.is_empty());
    for h in &r.hits {
        let pages = pages_of(h);
        assert!(30 <= pages.first && pages.last <= 31, "{} on {pages}", h.chunk_id);
    }
    for d in &r.definitions {
        let pages = d.pages.expect("a definition in RFC 7231 cites pages");
        assert!(pages.first <= 31 && pages.last >= 30, "definition {} on {pages}", d.term);
    }
    // Without the document filter too.
    let filter = Filter { pages: Some((2, 3)), ..Filter::default() };
    let r = s.search(&SearchRequest::new("request", Mode::Hybrid, 10).with_filter(filter)).unwrap();
    assert!(r.hits.iter().all(|h| pages_of(h).first <= 3 && pages_of(h).last >= 2));
}

#[test]
fn hierarchical_takes_a_few_hits_per_section_and_numbers_sections_as_they_appear() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    let per_section = SearchConfig::default().chunks_per_section;
    for q in
        ["conditional request preconditions", "arbitration agreement enforcement", "patent term extension"]
    {
        let r = s.search(&SearchRequest::new(q, Mode::Hierarchical, 12).ranking_only()).unwrap();
        assert!(r.hits.len() >= 10, "{q}: {} hits", r.hits.len());
        let ranks: Vec<usize> = r.hits.iter().map(|h| h.section_rank.unwrap()).collect();
        let mut seen = 0;
        for &rank in &ranks {
            assert!(rank <= seen + 1, "{q}: a section numbered before it appears: {ranks:?}");
            seen = seen.max(rank);
            assert!(ranks.iter().filter(|&&x| x == rank).count() <= per_section, "{q}: {ranks:?}");
        }
    }
}

/// Property 7 over every numbered section of RFC 9110 whose heading has at least four
/// words, asked across the five documents.
#[test]
fn hierarchical_finds_the_section_a_query_names_by_its_heading() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    let doc = store
        .documents()
        .unwrap()
        .into_iter()
        .find(|d| d.path.ends_with("rfc9110-http-semantics.html"))
        .unwrap();
    let tree = store.document_meta(&doc.id).unwrap().unwrap().document.tree;
    let headings: Vec<(NodeId, String)> = tree
        .nodes()
        .iter()
        .filter(|n| n.number.is_some() && n.title.split_whitespace().count() >= 4)
        .map(|n| (n.id, n.title.clone()))
        .collect();
    assert!(headings.len() > 50, "{} headings", headings.len());
    let found = |mode: Mode| {
        headings
            .iter()
            .filter(|(node, title)| {
                let query = format!(
                    "What must a client or a server do, and what must it never do? Base the answer on the \
                     section {title}."
                );
                let filter = Filter { doc: Some(doc.id.clone()), ..Filter::default() };
                let r = s.search(&SearchRequest::new(&query, mode, 1).with_filter(filter).ranking_only());
                r.unwrap().hits.iter().any(|h| {
                    let at = NodeId::parse(&h.node_id).unwrap();
                    h.doc_id == doc.id.0 && *node <= at && at <= tree.last_descendant(*node)
                })
            })
            .count()
    };
    let (hierarchical, hybrid) = (found(Mode::Hierarchical), found(Mode::Hybrid));
    eprintln!("named sections first, of {}: hierarchical {hierarchical}, hybrid {hybrid}", headings.len());
    assert!(hierarchical >= hybrid, "hierarchical {hierarchical}, hybrid {hybrid}");
    assert!(hierarchical * 10 >= headings.len() * 9, "{hierarchical} of {}", headings.len());
}

/// Property 7 across documents (issue 42: on 509 contracts, every contract's "Term" section
/// was lifted for a question about one contract's term). RFC 9110 and RFC 7231 both have a
/// "Content Negotiation" section.
#[test]
fn a_named_heading_lifts_only_the_documents_the_query_names() {
    let Some(store) = store() else { return };
    let lifted = |scope: HeadingScope, query: &str| {
        let s = searcher_with(&store, SearchConfig { heading_scope: scope, ..SearchConfig::default() });
        let r = s.search(&SearchRequest::new(query, Mode::Hierarchical, 10).ranking_only()).unwrap();
        let lifted: Vec<_> = r.hits.into_iter().filter(|h| h.legs.contains_key(&Leg::Section)).collect();
        lifted
    };
    let unnamed = "how does content negotiation choose a representation";
    assert!(!lifted(HeadingScope::All, unnamed).is_empty(), "every document's headings can be named");
    assert!(lifted(HeadingScope::Named, unnamed).is_empty(), "the query names no document");
    let named = "In HTTP Semantics, how does content negotiation choose a representation";
    let hits = lifted(HeadingScope::Named, named);
    assert!(!hits.is_empty(), "the query names RFC 9110");
    for h in hits {
        assert!(h.legs.contains_key(&Leg::Document), "{} is lifted and not named", h.doc_title);
    }
}

/// The hits of `query` that a named heading lifted, with `scope`.
fn lifted_with(store: &EmbeddedStore, scope: HeadingScope, query: &str) -> Vec<strata_search::SearchHit> {
    let s = searcher_with(store, SearchConfig { heading_scope: scope, ..SearchConfig::default() });
    let r = s.search(&SearchRequest::new(query, Mode::Hierarchical, 10).ranking_only()).unwrap();
    r.hits.into_iter().filter(|h| h.legs.contains_key(&Leg::Section)).collect()
}

/// `heading_scope = "distinct"` had no test (issue 54): a heading lifts in any document when
/// only one candidate document has it, and only in the named documents when several do.
#[test]
fn the_distinct_scope_lifts_a_heading_that_one_candidate_alone_has() {
    let Some(store) = store() else { return };
    let unique = "what are the stream types and identifiers";
    assert!(lifted_with(&store, HeadingScope::Named, unique).is_empty(), "the query names no document");
    let hits = lifted_with(&store, HeadingScope::Distinct, unique);
    assert!(!hits.is_empty(), "one candidate alone has such a heading");
    let docs: HashSet<&str> = hits.iter().map(|h| h.doc_id.as_str()).collect();
    assert_eq!(docs.len(), 1, "only the one that has it: {docs:?}");
    let shared = "how does content negotiation choose a representation";
    assert!(!lifted_with(&store, HeadingScope::All, shared).is_empty());
    assert!(
        lifted_with(&store, HeadingScope::Distinct, shared).is_empty(),
        "RFC 9110 and RFC 7231 both have it"
    );
}

/// The searcher's wiring of `title_phrases` and `drop_names = "titles"` had no test (issue
/// 54): a quoted document title names the document instead of being searched as a phrase,
/// and the chunk legs search the query without it.
#[test]
fn a_quoted_title_names_its_document_and_the_legs_search_without_it() {
    let Some(store) = store() else { return };
    let search = |config: SearchConfig| {
        let s = searcher_with(&store, config);
        s.search(&SearchRequest::new(TITLED, Mode::Hierarchical, 5).ranking_only()).unwrap()
    };
    const TITLED: &str = "\"HTTP Semantics\" conditional requests";
    let on = search(SearchConfig::default());
    assert_eq!(on.plan.titles, ["HTTP Semantics"], "{:?}", on.plan);
    assert!(on.plan.phrases.is_empty());
    assert!(on
        .hits
        .iter()
        .all(|h| h.doc_title.contains("HTTP Semantics") && h.legs.contains_key(&Leg::Document)));
    let off = search(SearchConfig { title_phrases: false, ..SearchConfig::default() });
    assert!(off.plan.titles.is_empty());
    assert_eq!(off.plan.phrases, ["HTTP Semantics"], "searched as a phrase");
    // With the title's words kept, BM25 scores the same chunk higher: they match it too.
    let kept = search(SearchConfig { drop_names: NameDrop::Off, ..SearchConfig::default() });
    let keyword = |r: &SearchResponse, chunk: &str| {
        r.hits
            .iter()
            .find(|h| h.chunk_id.as_str() == chunk)
            .and_then(|h| h.legs.get(&Leg::Keyword))
            .map(|l| l.score)
    };
    let top = on.hits[0].chunk_id.as_str();
    let (dropped, whole) = (keyword(&on, top), keyword(&kept, top));
    assert!(matches!((dropped, whole), (Some(d), Some(w)) if d < w), "{dropped:?} against {whole:?}");
}

/// With the document leg off (`[search.weights] documents = 0`) the documents stage returned
/// no shortlist, so `heading_scope = "named"` lifted no heading on any index of two documents
/// or more (issue 54). The query's named documents still scope the lift; they lift nothing
/// themselves.
#[test]
fn regression_a_named_heading_is_lifted_with_the_document_leg_off() {
    let Some(store) = store() else { return };
    let search = |documents: f64, query: &str, k: usize| {
        let mut config = SearchConfig { heading_scope: HeadingScope::Named, ..SearchConfig::default() };
        config.weights.documents = documents;
        let s = searcher_with(&store, config);
        s.search(&SearchRequest::new(query, Mode::Hierarchical, k).ranking_only()).unwrap().hits
    };
    let named = "In HTTP Semantics, how does content negotiation choose a representation";
    // The documents the query names: those the document leg lifts (RFC 9110 and RFC 7231).
    let with_leg = search(SearchConfig::default().weights.documents, named, 100);
    let named_docs: HashSet<&str> =
        with_leg.iter().filter(|h| h.legs.contains_key(&Leg::Document)).map(|h| h.doc_id.as_str()).collect();
    let hits = search(0.0, named, 10);
    let lifted: Vec<_> = hits.iter().filter(|h| h.legs.contains_key(&Leg::Section)).collect();
    assert!(!lifted.is_empty(), "the query names RFC 9110 and its heading");
    for h in lifted {
        assert!(named_docs.contains(h.doc_id.as_str()), "{} is lifted and not named", h.doc_title);
    }
    assert!(hits.iter().all(|h| !h.legs.contains_key(&Leg::Document)), "the document leg is off");
    let unnamed = search(0.0, "how does content negotiation choose a representation", 10);
    assert!(unnamed.iter().all(|h| !h.legs.contains_key(&Leg::Section)), "the query names no document");
}

#[test]
fn auto_merge_returns_a_section_whole_and_pages_return_whole_pages() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    // RFC 7231 (paginated text): a page range around the GET section.
    let mut req =
        SearchRequest::new("GET method transfer a current selected representation", Mode::Hybrid, 3);
    req.expand.pages = Some(0);
    let r = s.search(&req).unwrap();
    let paged = r.hits.iter().find(|h| h.doc_title.contains("7231")).expect("an RFC 7231 hit");
    assert_eq!(paged.unit, Unit::Pages);
    let doc = store.document(&strata_core::DocId(paged.doc_id.clone())).unwrap().unwrap().document;
    let first = doc.pages.iter().find(|p| p.number == pages_of(paged).first).unwrap();
    assert_eq!(paged.span.start, first.span.start, "starts at the top of its first page");
    // A section whose chunks are all hits comes back once, as the whole section.
    let mut req = SearchRequest::new("section 9.3.1", Mode::Hybrid, 5);
    req.expand.auto_merge = 0.5;
    let r = s.search(&req).unwrap();
    let top = &r.hits[0];
    let node = NodeId::parse(&top.node_id).unwrap();
    let chunks = store.chunks_of(&strata_core::DocId(top.doc_id.clone()), Some((node, node))).unwrap();
    if chunks.len() > 1 {
        assert_eq!(top.unit, Unit::Section);
        assert_eq!(top.span.start, chunks[0].chunk.span.start);
        assert_eq!(top.span.end, chunks.last().unwrap().chunk.span.end);
        assert!(
            r.hits[1..].iter().all(|h| !(h.doc_id == top.doc_id && top.span.overlaps(h.span))),
            "deduped"
        );
    }
    assert_eq!(r.hits.len(), 5, "merged places are filled");
}

#[test]
fn the_context_fits_its_budget_exactly() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    let cl100k = Cl100k::new().unwrap();
    for budget in [60, 300, 1000, 4000] {
        for q in ["what is an invention", "stay of proceedings pending arbitration"] {
            let mut req = SearchRequest::new(q, Mode::Hierarchical, 10);
            req.budget = Some(budget);
            let c = s.search(&req).unwrap().context.unwrap();
            assert!(c.tokens <= budget, "{q} {budget}: {} tokens", c.tokens);
            assert_eq!(c.tokens, cl100k.count(&c.text), "exact count");
            assert!(!c.hits.is_empty() || budget < 100, "{q} {budget}: nothing packed");
        }
    }
}

/// The document (without text) and the node a result cites.
fn cited(store: &EmbeddedStore, doc: &str, node: &str) -> (strata_core::Document, strata_core::Node) {
    let doc = store.document_meta(&strata_core::DocId(doc.to_string())).unwrap().unwrap().document;
    let node = doc.tree.get(NodeId::parse(node).unwrap()).unwrap().clone();
    (doc, node)
}

/// Checks property 4 on one response.
fn assert_spans_inside_sections_and_pages(
    store: &EmbeddedStore,
    r: &SearchResponse,
) -> Result<(), TestCaseError> {
    for h in &r.hits {
        let (doc, node) = cited(store, &h.doc_id, &h.node_id);
        prop_assert!(
            node.subtree.start <= h.span.start && h.span.end <= node.subtree.end,
            "{} ({:?}) span {} outside its section {} {}",
            h.chunk_id,
            h.unit,
            h.span,
            node.id,
            node.subtree
        );
        let mut path = doc.tree.heading_path(node.id);
        strata_search::cite::below_title(&doc.title, &mut path);
        prop_assert_eq!(&h.heading_path, &path);
        if doc.has_pages() {
            let (cited, pages) = (pages_of(h), doc.pages_of(h.span));
            prop_assert!(
                cited.first <= pages.first && pages.last <= cited.last,
                "{} pages {cited} vs {pages}",
                h.chunk_id
            );
        } else {
            prop_assert!(h.pages.is_none(), "{} in {} cites {:?}", h.chunk_id, doc.id, h.pages);
        }
        // The text is the span's, its leading heading apart (and, in Markdown, its markup).
        let text = full_text(store, &doc.id);
        let source = h.span.slice(&text);
        match (&h.heading, doc.source.format) {
            (None, strata_core::Format::Markdown) => {}
            (None, _) => prop_assert_eq!(h.text.as_str(), source),
            (Some(_), strata_core::Format::Markdown) => prop_assert!(!h.text.starts_with('#'), "{}", h.text),
            (Some(_), _) => prop_assert!(source.ends_with(h.text.as_str()), "{}: {:?}", h.chunk_id, h.text),
        }
        for other in r.hits.iter().filter(|o| !std::ptr::eq(*o, h) && o.doc_id == h.doc_id) {
            prop_assert!(
                !other.span.overlaps(h.span),
                "{} {} overlaps {} {}",
                h.chunk_id,
                h.span,
                other.chunk_id,
                other.span
            );
        }
        for hl in &h.highlights {
            prop_assert!(
                h.span.start <= hl.span.start && hl.span.end <= h.span.end,
                "highlight {} outside {}",
                hl.span,
                h.span
            );
            if doc.source.format != strata_core::Format::Markdown {
                prop_assert_eq!(
                    &source[hl.span.start - h.span.start..hl.span.end - h.span.start],
                    hl.text.as_str()
                );
            }
        }
    }
    for d in &r.definitions {
        let (_, node) = cited(store, &d.doc_id, &d.node_id);
        prop_assert!(
            node.subtree.start <= d.span.start && d.span.end <= node.subtree.end,
            "definition {}",
            d.term
        );
    }
    Ok(())
}

const WORDS: &[&str] = &[
    "request",
    "response",
    "cache",
    "invention",
    "patent",
    "arbitration",
    "award",
    "section",
    "102",
    "9.3.1",
    "§ 4.2",
    "filing",
    "date",
    "method",
    "header",
    "element",
    "attribute",
    "court",
    "agreement",
    "status",
    "\"prior art\"",
    "client",
    "server",
    "definition",
    "term",
    "fee",
    "application",
    "GET",
    "range",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_span_lies_inside_its_cited_section_and_pages(
        words in proptest::collection::vec(proptest::sample::select(WORDS), 1..5),
        mode in proptest::sample::select(&MODES[..]),
        pages in proptest::option::of(0u32..2),
        merge in proptest::sample::select(&[0.0, 0.5, 1.0][..]),
        k in 1usize..15,
        section_legs in proptest::bool::ANY,
        page_range in proptest::option::of((1u32..60, 0u32..4)),
    ) {
        let Some(store) = store() else { return Ok(()) };
        let s = if section_legs { searcher_with(&store, with_section_legs()) } else { searcher(&store) };
        let mut req = SearchRequest::new(words.join(" "), mode, k);
        req.expand = Expand { auto_merge: merge, pages, references: true, ..Expand::default() };
        req.filter.pages = page_range.map(|(first, extra)| (first, first + extra));
        let r = s.search(&req).unwrap();
        prop_assert!(r.hits.len() <= k);
        if let Some((first, last)) = req.filter.pages {
            // A document without pages reads as its one page 1 under a page filter, as before
            // pages were told apart: its hits pass a range from 1 and cite no page.
            for h in &r.hits {
                match h.pages {
                    Some(pages) => prop_assert!(pages.first <= last && pages.last >= first, "{} on {pages}", h.chunk_id),
                    None => prop_assert_eq!(first, 1, "{} has no pages", h.chunk_id),
                }
            }
        }
        assert_spans_inside_sections_and_pages(&store, &r)?;
    }
}

/// Hierarchical mode on the corpus, top 8 with section ranks. Reviewed against the
/// properties in the module doc (1, 3 and 6 in particular).
#[test]
fn hierarchical_ranking_snapshots() {
    let Some(store) = store() else { return };
    let s = searcher(&store);
    let queries = [
        "section 102(b)",
        "how does a client make a request conditional",
        "stay of proceedings pending arbitration",
        "patent term adjustment for delays",
        "definition of invention",
    ];
    let mut out = String::new();
    for q in queries {
        let r = s.search(&SearchRequest::new(q, Mode::Hierarchical, 8).ranking_only()).unwrap();
        out.push_str(&format!("query: {q}\n"));
        for h in &r.hits {
            let ordinal = h.chunk_id.as_str().rsplit(':').next().unwrap();
            out.push_str(&format!(
                "  s{} {} [{ordinal}] {}\n",
                h.section_rank.unwrap(),
                h.doc_title,
                h.heading_path.last().map(String::as_str).unwrap_or("(start)"),
            ));
        }
    }
    insta::assert_snapshot!("hierarchical_top8", out);
}
