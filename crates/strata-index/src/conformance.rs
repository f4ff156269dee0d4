//! The shared conformance suite of the [`StoreRead`] / [`StoreWrite`] seam.
//!
//! Every store runs the same checks (tantivy's `directory/tests.rs` pattern): the embedded
//! store in `tests/embedded_conformance.rs`, and any external backend (PostgreSQL, Qdrant, …)
//! from its own crate with the `conformance` feature of `strata-index` turned on:
//!
//! ```ignore
//! // in the backend crate's tests, with strata-index = { features = ["conformance"] }
//! strata_index::conformance::run_all(|| MyStore::connect_fresh());
//! ```
//!
//! [`run_all`] gives each check a fresh, empty store from `make`, runs them all, and fails
//! with the list of the checks that failed. Each check is also public, named for the property
//! it holds a store to:
//!
//! 1. [`put_commit_lists_and_returns_the_document`]: listing, counts, text byte for byte,
//!    tree, definitions, references, content hash; the same without text from
//!    `document_meta`.
//! 2. [`staged_writes_are_invisible_until_commit`]: puts and removes change nothing a reader
//!    sees before `commit`, and everything after.
//! 3. [`put_replaces_every_record_of_the_id`]: no stale chunk, term, definition, reference or
//!    section number survives a re-put, also when both puts share one commit.
//! 4. [`remove_deletes_every_record`]: and returns false for unknown ids.
//! 5. [`keyword_matches_stems_headings_and_titles`]: BM25 over text, heading path and title.
//! 6. [`keyword_respects_filters`]: `doc`, `kind` and `nodes` (a subtree's id range).
//! 7. [`exact_numbers_finds_sections_in_document_order`].
//! 8. [`exact_terms_and_definitions_span_documents`].
//! 9. [`exact_phrase_needs_adjacent_words_in_order`].
//! 10. [`chunks_by_id_and_by_document`]: order asked, unknown ids skipped, subtrees.
//! 11. [`defined_terms_lists_every_term`].
//! 12. [`dense_ranks_by_inner_product_within_filters`]: the dense leg equals brute force over
//!     the chunks' vectors, under `doc`, `kind` and `nodes` filters.
//! 13. [`dense_follows_puts_and_removes`]: no vector of a replaced or removed document is
//!     found, staged vectors are invisible until commit, and vectors of another model are
//!     refused.
//! 14. [`keyword_ties_come_back_in_chunk_id_order`]: equal BM25 scores are ordered by chunk
//!     id, whatever order the documents were written in.
//! 15. [`section_keyword_ranks_sections_by_their_profile`]: the section leg finds a node by
//!     its heading path, its lead text and its children's titles, honours `doc` and `nodes`,
//!     and follows puts and removes.
//! 16. [`section_dense_ranks_sections_by_inner_product`]: the dense section leg is brute force
//!     over the section profiles' vectors, under `doc` and `nodes` filters, and follows puts
//!     and removes.
//!
//! Persistence across reopening is backend-specific (what "reopen" means differs) and lives
//! with each backend's tests. The records are made by hand in [`fixture`]: the index does
//! not depend on ingest.

pub mod fixture;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use strata_core::{ChunkId, ChunkKind, DocId, DocumentRecord, NodeId};

use crate::{Filter, LegHit, SectionHit, StoreRead, StoreWrite, StoredDocument};
use fixture::{
    chunk_ids, doc_summary, gadget_rules, section_key, stored_chunk, unit_vector, widget_act,
    widget_act_amended, with_vectors, RecordBuilder, RECITALS,
};

/// Id of the [`widget_act`] sample in every check.
pub const WIDGET: &str = "widget-act-1a2b";
/// Id of the [`gadget_rules`] sample in every check.
pub const GADGET: &str = "gadget-rules-9f3c";

/// A named check.
pub type Check<S> = (&'static str, fn(&mut S));

/// Every check, by name.
pub fn checks<S: StoreWrite>() -> Vec<Check<S>> {
    macro_rules! named {
        ($($check:ident),* $(,)?) => { vec![$((stringify!($check), $check::<S> as fn(&mut S))),*] };
    }
    named![
        put_commit_lists_and_returns_the_document,
        staged_writes_are_invisible_until_commit,
        put_replaces_every_record_of_the_id,
        remove_deletes_every_record,
        remove_cancels_a_staged_put,
        keyword_matches_stems_headings_and_titles,
        keyword_respects_filters,
        exact_numbers_finds_sections_in_document_order,
        exact_terms_and_definitions_span_documents,
        exact_phrase_needs_adjacent_words_in_order,
        chunks_by_id_and_by_document,
        defined_terms_lists_every_term,
        dense_ranks_by_inner_product_within_filters,
        dense_follows_puts_and_removes,
        keyword_ties_come_back_in_chunk_id_order,
        section_keyword_ranks_sections_by_their_profile,
        section_dense_ranks_sections_by_inner_product,
        context_cache_outlives_its_document,
        vector_cache_goes_with_its_document,
    ]
}

/// Runs every check, each on a fresh empty store from `make`, and panics naming the checks
/// that failed (each failure's own message is printed as it happens).
pub fn run_all<S: StoreWrite>(mut make: impl FnMut() -> S) {
    let mut failed = Vec::new();
    for (name, check) in checks::<S>() {
        eprintln!("store conformance: {name}");
        let mut store = make();
        if catch_unwind(AssertUnwindSafe(|| check(&mut store))).is_err() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "store conformance failed: {}", failed.join(", "));
}

fn id(s: &str) -> DocId {
    DocId(s.to_string())
}

fn cid(doc: &str, ordinal: usize) -> ChunkId {
    ChunkId(format!("{doc}:{ordinal}"))
}

fn ids(hits: &[LegHit]) -> Vec<ChunkId> {
    hits.iter().map(|h| h.chunk.clone()).collect()
}

fn id_set(hits: &[LegHit]) -> BTreeSet<ChunkId> {
    hits.iter().map(|h| h.chunk.clone()).collect()
}

fn set<'a>(items: impl IntoIterator<Item = &'a ChunkId>) -> BTreeSet<ChunkId> {
    items.into_iter().cloned().collect()
}

fn only(doc: &str) -> Filter {
    Filter { doc: Some(id(doc)), ..Filter::default() }
}

fn put_both<S: StoreWrite>(store: &mut S) -> (DocumentRecord, DocumentRecord) {
    let (w, g) = (widget_act(WIDGET), gadget_rules(GADGET));
    store.put(&w).unwrap();
    store.put(&g).unwrap();
    store.commit().unwrap();
    (w, g)
}

/// `stored` holds exactly what `record` put: the document field by field (text byte for
/// byte), definitions, references and the chunk count.
fn assert_same_document(stored: &StoredDocument, record: &DocumentRecord) {
    let (got, want) = (&stored.document, &record.document);
    assert_eq!(got.id, want.id);
    assert_eq!(got.source, want.source);
    assert_eq!(got.title, want.title);
    assert_eq!(got.text.as_bytes(), want.text.as_bytes(), "text of {} byte for byte", want.id);
    assert_eq!(got.pages, want.pages);
    assert_eq!(got.blocks, want.blocks);
    assert_eq!(got.tree, want.tree);
    assert_eq!(got.metadata, want.metadata);
    assert_eq!(got.warnings, want.warnings);
    assert_eq!(stored.definitions, record.definitions);
    assert_eq!(stored.references, record.references);
    assert_eq!(stored.chunks, record.chunks.len());
}

/// Nothing of document `doc` (whose sample is `record`) is visible in any read.
fn assert_absent<S: StoreRead>(store: &S, record: &DocumentRecord) {
    let doc = &record.document.id;
    assert!(store.documents().unwrap().iter().all(|d| &d.id != doc), "{doc} is not listed");
    assert!(store.document(doc).unwrap().is_none(), "{doc} has no document");
    assert!(store.document_meta(doc).unwrap().is_none(), "{doc} has no metadata");
    assert_eq!(store.content_hash(doc).unwrap(), None, "{doc} has no content hash");
    assert_eq!(store.chunks(&chunk_ids(record, |_| true)).unwrap(), vec![], "{doc} has no chunk by id");
    assert_eq!(
        store.sections_of(&chunk_ids(record, |_| true)).unwrap(),
        vec![],
        "{doc} has no chunk's section"
    );
    assert_eq!(store.chunks_of(doc, None).unwrap(), vec![], "{doc} has no chunk");
    let this = only(doc.as_str());
    for word in ["widget", "gizmo", "recital", "doohickey", "filing", "gadget"] {
        assert_eq!(store.keyword(word, &this, 100).unwrap(), vec![], "keyword {word:?} in {doc}");
    }
    let keys: Vec<String> = ["102", "4.2", "1", "2"].map(String::from).to_vec();
    assert_eq!(store.exact_numbers(&keys, &this, 100).unwrap(), vec![], "numbers in {doc}");
    let terms: Vec<String> = record.definitions.iter().map(|d| d.normalized.clone()).collect();
    assert_eq!(store.exact_terms(&terms, &this, 100).unwrap(), vec![], "terms in {doc}");
    assert_eq!(store.exact_phrase("prior art", &this, 100).unwrap(), vec![], "phrase in {doc}");
    for term in &terms {
        assert!(
            store.definitions(term).unwrap().iter().all(|d| &d.doc != doc),
            "definition {term:?} of {doc}"
        );
    }
}

/// Check 1: a committed document is listed with the right counts (sorted by source path),
/// and read back whole: text byte for byte, tree, definitions, references, content hash.
pub fn put_commit_lists_and_returns_the_document<S: StoreWrite>(store: &mut S) {
    let (w, g) = put_both(store);
    // gadget-rules.md sorts before widget-act.md.
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&g), doc_summary(&w)]);
    let summary = doc_summary(&w);
    assert_eq!(
        (summary.nodes, summary.chunks, summary.definitions, summary.references, summary.pages),
        (5, RECITALS + 6, 2, 1, 0),
        "the fixture's own counts (Markdown: no pages)"
    );
    for record in [&w, &g] {
        let doc = &record.document.id;
        let stored = store.document(doc).unwrap().unwrap_or_else(|| panic!("{doc} is stored"));
        assert_same_document(&stored, record);
        let meta = store.document_meta(doc).unwrap().unwrap_or_else(|| panic!("{doc} has metadata"));
        assert_eq!(meta.document.text, "", "document_meta leaves the text out");
        let without_text = DocumentRecord {
            document: strata_core::Document { text: String::new(), ..record.document.clone() },
            ..(*record).clone()
        };
        assert_same_document(&meta, &without_text);
        assert_eq!(
            store.content_hash(doc).unwrap().as_deref(),
            Some(record.document.source.content_hash.as_str())
        );
    }
    assert!(store.document(&id("unknown-0000")).unwrap().is_none());
    assert_eq!(store.content_hash(&id("unknown-0000")).unwrap(), None);
}

/// Check 2: staged puts and removes are invisible to every read until `commit`, and fully
/// visible after it.
pub fn staged_writes_are_invisible_until_commit<S: StoreWrite>(store: &mut S) {
    let w = widget_act(WIDGET);
    store.put(&w).unwrap();
    assert_eq!(store.documents().unwrap(), vec![], "a staged put is not listed");
    assert_absent(store, &w);
    assert_eq!(store.defined_terms().unwrap(), Vec::<String>::new(), "a staged put defines no term");

    store.commit().unwrap();
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&w)]);
    assert_eq!(
        store.keyword("gizmo", &Filter::default(), 10).unwrap().len(),
        1,
        "committed chunks are searchable"
    );

    // A staged replacement leaves the committed version in place.
    let amended = widget_act_amended(WIDGET);
    store.put(&amended).unwrap();
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&w)], "a staged re-put is not listed");
    assert_eq!(
        ids(&store.keyword("gizmo", &Filter::default(), 10).unwrap()),
        vec![cid(WIDGET, RECITALS + 4)]
    );
    assert_eq!(store.keyword("doohickey", &Filter::default(), 10).unwrap(), vec![]);
    assert_eq!(store.chunks_of(&id(WIDGET), None).unwrap().len(), w.chunks.len());
    store.commit().unwrap();
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&amended)]);

    // A staged removal leaves the document in place.
    assert!(store.remove(&id(WIDGET)).unwrap(), "removing a committed document");
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&amended)], "a staged removal still lists it");
    assert_same_document(&store.document(&id(WIDGET)).unwrap().unwrap(), &amended);
    assert_eq!(store.keyword("doohickey", &Filter::default(), 10).unwrap().len(), 2);
    store.commit().unwrap();
    assert_eq!(store.documents().unwrap(), vec![]);
    assert_absent(store, &amended);
}

/// Check 3: a re-put replaces every record of the id: chunks (an old-only word finds
/// nothing, old chunk ids are gone), definitions, terms, references, section numbers and the
/// text; also when the old and the new put are staged in one commit.
pub fn put_replaces_every_record_of_the_id<S: StoreWrite>(store: &mut S) {
    let (w, g) = put_both(store);
    let amended = widget_act_amended(WIDGET);
    store.put(&amended).unwrap();
    store.commit().unwrap();
    assert_replaced(store, &w, &amended, &g);

    // Both versions staged in one commit: the later one wins, whole.
    store.put(&w).unwrap();
    store.put(&amended).unwrap();
    store.commit().unwrap();
    assert_replaced(store, &w, &amended, &g);
}

fn assert_replaced<S: StoreRead>(
    store: &S,
    old: &DocumentRecord,
    new: &DocumentRecord,
    other: &DocumentRecord,
) {
    let doc = &new.document.id;
    let all = Filter::default();
    assert_eq!(store.documents().unwrap(), vec![doc_summary(other), doc_summary(new)]);
    assert_same_document(&store.document(doc).unwrap().unwrap(), new);
    assert_eq!(store.content_hash(doc).unwrap().as_deref(), Some(new.document.source.content_hash.as_str()));
    for word in ["gizmo", "recital", "conditions", "requirement"] {
        assert_eq!(store.keyword(word, &all, 100).unwrap(), vec![], "old-only word {word:?}");
    }
    assert_eq!(id_set(&store.keyword("doohickey", &all, 100).unwrap()), set(&chunk_ids(new, |_| true)[..2]));
    assert_eq!(store.exact_phrase("prior art", &all, 100).unwrap(), vec![], "old phrase");
    let old_keys = ["102".to_string(), "4.2".to_string(), "102(a)".to_string()];
    assert_eq!(store.exact_numbers(&old_keys, &all, 100).unwrap(), vec![], "old section numbers");
    assert_eq!(
        ids(&store.exact_numbers(&["1".to_string()], &only(doc.as_str()), 100).unwrap()),
        vec![cid(doc.as_str(), 0)]
    );
    // Old chunk ids past the new count are gone; the ones reused hold the new chunks.
    let old_ids = chunk_ids(old, |_| true);
    let expected: Vec<_> = new.chunks.iter().map(|c| stored_chunk(new, c)).collect();
    assert_eq!(store.chunks(&old_ids).unwrap(), expected, "chunks by old ids");
    assert_eq!(store.chunks_of(doc, None).unwrap(), expected, "chunks of the document");
    // Definitions: the old document's `applicant` is gone, its `invention` too (the other
    // document's stays).
    assert_eq!(store.definitions("applicant").unwrap(), vec![]);
    assert_eq!(store.definitions("invention").unwrap(), other.definitions);
    assert_eq!(store.definitions("contraption").unwrap(), new.definitions);
    assert_eq!(store.exact_terms(&["applicant".to_string()], &all, 100).unwrap(), vec![]);
    assert_eq!(
        ids(&store.exact_terms(&["invention".to_string()], &all, 100).unwrap()),
        chunk_ids(other, |c| !c.defines.is_empty())
    );
    let mut terms = store.defined_terms().unwrap();
    terms.sort();
    assert_eq!(terms, vec!["contraption".to_string(), "invention".to_string()], "no stale defined term");
    assert_eq!(store.document(doc).unwrap().unwrap().references, new.references, "no stale reference");
}

/// Check 4: `remove` deletes every record of a document and no other; it returns false for
/// an unknown id (and for one already removed); a remove followed by a put in the same commit
/// keeps the new document.
pub fn remove_deletes_every_record<S: StoreWrite>(store: &mut S) {
    let (w, g) = put_both(store);
    assert!(!store.remove(&id("unknown-0000")).unwrap(), "unknown id");
    assert!(store.remove(&id(WIDGET)).unwrap());
    store.commit().unwrap();
    assert_absent(store, &w);
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&g)]);
    assert_eq!(
        store.keyword("widget", &Filter::default(), 100).unwrap(),
        vec![],
        "title word of the removed document"
    );
    assert_eq!(
        store.definitions("invention").unwrap(),
        g.definitions,
        "the other document's definition stays"
    );
    assert_eq!(store.definitions("applicant").unwrap(), vec![]);
    assert_eq!(store.defined_terms().unwrap(), vec!["invention".to_string()], "no stale defined term");
    assert!(!store.remove(&id(WIDGET)).unwrap(), "already removed");

    assert!(store.remove(&id(GADGET)).unwrap());
    store.put(&g).unwrap();
    store.commit().unwrap();
    assert_eq!(store.documents().unwrap(), vec![doc_summary(&g)], "remove then put in one commit");
    assert_eq!(store.chunks_of(&id(GADGET), None).unwrap().len(), g.chunks.len());
}

/// A `put` then `remove` of a new id before any commit leaves nothing behind: `remove`
/// sees staged puts, not only committed documents.
pub fn remove_cancels_a_staged_put<S: StoreWrite>(store: &mut S) {
    let (_, g) = put_both(store);
    store.remove(&id(GADGET)).unwrap();
    store.commit().unwrap();
    store.put(&g).unwrap();
    assert!(store.remove(&id(GADGET)).unwrap(), "a staged put is removable");
    store.commit().unwrap();
    assert!(store.document(&id(GADGET)).unwrap().is_none());
    assert_eq!(store.chunks_of(&id(GADGET), None).unwrap(), vec![]);
}

/// Check 5: the keyword leg stems (`requirements` finds `requirement`), searches the heading
/// path (a heading word finds chunks below that heading whose text lacks it) and the document
/// title, ranks by descending score, honours `limit`, and answers an empty query with nothing.
pub fn keyword_matches_stems_headings_and_titles<S: StoreWrite>(store: &mut S) {
    let (w, _) = put_both(store);
    let all = Filter::default();
    let requirement = cid(WIDGET, RECITALS + 3);
    assert_eq!(
        ids(&store.keyword("requirements", &all, 10).unwrap()),
        vec![requirement.clone()],
        "stemmed plural"
    );
    assert_eq!(ids(&store.keyword("REQUIREMENT", &all, 10).unwrap()), vec![requirement], "case");
    // `conditions` is only in the heading of §102: its first chunk holds the heading, the
    // second and the §102(a) chunk have it in their heading path only.
    let below_102 = chunk_ids(&w, |c| c.node == NodeId(1) || c.node == NodeId(2));
    assert_eq!(below_102.len(), 3);
    assert_eq!(id_set(&store.keyword("conditions", &all, 10).unwrap()), set(&below_102), "heading path");
    // `widget` is only in the title.
    assert_eq!(id_set(&store.keyword("widget", &all, 100).unwrap()), set(&chunk_ids(&w, |_| true)), "title");
    let top3 = store.keyword("widget", &all, 3).unwrap();
    assert_eq!(top3.len(), 3, "limit");
    let ranked = store.keyword("filing prior art novelty", &all, 100).unwrap();
    assert!(ranked.len() >= 3);
    assert!(ranked.windows(2).all(|p| p[0].score >= p[1].score), "descending scores: {ranked:?}");
    assert_eq!(store.keyword("", &all, 10).unwrap(), vec![], "empty query");
    assert_eq!(store.keyword("zyzzyva", &all, 10).unwrap(), vec![], "unknown word");
}

/// Check 6: the keyword leg honours `Filter { doc }`, `Filter { kind }`,
/// `Filter { nodes }` (a subtree's first..=last node ids) and `Filter { pages }` (pages that
/// overlap a range), alone and together.
pub fn keyword_respects_filters<S: StoreWrite>(store: &mut S) {
    put_both(store);
    let search = |filter: Filter| id_set(&store.keyword("filing", &filter, 100).unwrap());
    let (novelty, fees, scope) = (cid(WIDGET, RECITALS + 2), cid(WIDGET, RECITALS + 3), cid(GADGET, 0));
    let s = |v: &[&ChunkId]| set(v.iter().copied());
    assert_eq!(search(Filter::default()), s(&[&novelty, &fees, &scope]));
    assert_eq!(search(only(WIDGET)), s(&[&novelty, &fees]), "doc");
    assert_eq!(search(only(GADGET)), s(&[&scope]), "doc");
    let kind = |k| Filter { kind: Some(k), ..Filter::default() };
    assert_eq!(search(kind(ChunkKind::Requirement)), s(&[&fees]), "kind");
    assert_eq!(search(kind(ChunkKind::Content)), s(&[&novelty, &scope]), "kind");
    assert_eq!(search(kind(ChunkKind::Definition)), s(&[]), "kind");
    let nodes = |first, last| Filter {
        doc: Some(id(WIDGET)),
        nodes: Some((NodeId(first), NodeId(last))),
        ..Filter::default()
    };
    assert_eq!(search(nodes(1, 2)), s(&[&novelty]), "subtree of §102");
    assert_eq!(search(nodes(2, 2)), s(&[&novelty]), "subtree of §102(a)");
    assert_eq!(search(nodes(3, 3)), s(&[&fees]), "subtree of 4.2");
    assert_eq!(search(nodes(0, 4)), s(&[&novelty, &fees]), "subtree of the root");
    assert_eq!(search(nodes(4, 4)), s(&[]), "subtree of Definitions");
    let both = Filter { doc: Some(id(GADGET)), kind: Some(ChunkKind::Requirement), ..Filter::default() };
    assert_eq!(search(both), s(&[]), "doc and kind");
    // Every fixture chunk is on page 1.
    let pages = |first, last| Filter { pages: Some((first, last)), ..Filter::default() };
    assert_eq!(search(pages(1, 1)), s(&[&novelty, &fees, &scope]), "pages that hold them");
    assert_eq!(search(pages(1, 9)), s(&[&novelty, &fees, &scope]), "a range that overlaps");
    assert_eq!(search(pages(2, 9)), s(&[]), "pages past the documents");
}

/// Check 7: the section-number leg finds the chunks of a section by its normalized key, in
/// document order (ordinal 9 before 10, as numbers), groups hits by document, honours the
/// filter and `limit`, and finds nothing for an unknown key.
pub fn exact_numbers_finds_sections_in_document_order<S: StoreWrite>(store: &mut S) {
    put_both(store);
    let all = Filter::default();
    let find = |keys: &[&str], filter: &Filter, limit| {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        ids(&store.exact_numbers(&keys, filter, limit).unwrap())
    };
    let w = |i: usize| cid(WIDGET, RECITALS + i);
    assert_eq!(find(&["102"], &all, 10), vec![w(0), w(1)], "§102's own chunks, in order");
    assert_eq!(find(&["102(a)"], &all, 10), vec![w(2)]);
    assert_eq!(find(&["4.2"], &all, 10), vec![w(3)]);
    assert_eq!(find(&["4.2", "102"], &all, 10), vec![w(0), w(1), w(3)], "several keys, in document order");
    assert_eq!(find(&["102"], &all, 1), vec![w(0)], "limit");
    assert_eq!(find(&["102"], &only(GADGET), 10), Vec::<ChunkId>::new(), "doc filter");
    assert_eq!(find(&["999"], &all, 10), Vec::<ChunkId>::new(), "unknown key");
    assert_eq!(find(&[], &all, 10), Vec::<ChunkId>::new(), "no key");
    // Across documents: each document's hits together, in position order.
    let mixed = find(&["1", "2", "102", "4.2"], &all, 100);
    let mut expected = vec![cid(GADGET, 0), cid(GADGET, 1), w(0), w(1), w(3)];
    if mixed.first().is_some_and(|c| c.as_str().starts_with(WIDGET)) {
        expected.rotate_left(2);
    }
    assert_eq!(mixed, expected, "grouped by document, in document order");
}

/// Check 8: the defined-term leg finds the chunk that defines a normalized term, and
/// `definitions` returns the definition; a term defined in two documents is found in both.
pub fn exact_terms_and_definitions_span_documents<S: StoreWrite>(store: &mut S) {
    let (w, g) = put_both(store);
    let all = Filter::default();
    let terms = |t: &str, filter: &Filter| id_set(&store.exact_terms(&[t.to_string()], filter, 100).unwrap());
    let (w_invention, w_applicant, g_invention) =
        (cid(WIDGET, RECITALS + 4), cid(WIDGET, RECITALS + 5), cid(GADGET, 1));
    assert_eq!(terms("invention", &all), set([&w_invention, &g_invention]), "both documents");
    assert_eq!(terms("invention", &only(GADGET)), set([&g_invention]), "doc filter");
    assert_eq!(terms("applicant", &all), set([&w_applicant]));
    assert_eq!(terms("patent", &all), BTreeSet::new(), "an undefined word");
    assert_eq!(store.exact_terms(&[], &all, 10).unwrap(), vec![], "no term");
    let two = store.exact_terms(&["invention".to_string(), "applicant".to_string()], &all, 100).unwrap();
    assert_eq!(id_set(&two), set([&w_invention, &w_applicant, &g_invention]), "several terms");

    let mut invention = store.definitions("invention").unwrap();
    invention.sort_by(|a, b| a.doc.cmp(&b.doc));
    assert_eq!(
        invention,
        vec![g.definitions[0].clone(), w.definitions[0].clone()],
        "both documents' definitions"
    );
    assert_eq!(store.definitions("applicant").unwrap(), vec![w.definitions[1].clone()]);
    assert_eq!(store.definitions("patent").unwrap(), vec![]);
}

/// Check 9: the phrase leg matches only chunks holding the words adjacent and in order,
/// case-insensitively, word for word (no stemming), non-ASCII words included.
pub fn exact_phrase_needs_adjacent_words_in_order<S: StoreWrite>(store: &mut S) {
    let (w, _) = put_both(store);
    let all = Filter::default();
    let phrase = |p: &str, filter: &Filter| ids(&store.exact_phrase(p, filter, 100).unwrap());
    let none = Vec::<ChunkId>::new();
    let (claim, novelty) = (cid(WIDGET, RECITALS), cid(WIDGET, RECITALS + 2));
    assert_eq!(phrase("prior art", &all), vec![claim.clone()], "adjacent, in order");
    assert_eq!(phrase("Prior  ART", &all), vec![claim.clone()], "case and spacing");
    assert_eq!(phrase("art prior", &all), none, "reversed");
    assert_eq!(phrase("art that is prior", &all), vec![novelty], "the other chunk, word for word");
    assert_eq!(phrase("claimed described", &all), none, "not adjacent");
    assert_eq!(phrase("every requirement", &all), vec![cid(WIDGET, RECITALS + 3)]);
    assert_eq!(phrase("every requirements", &all), none, "not stemmed");
    assert_eq!(phrase("gizmo", &all), vec![cid(WIDGET, RECITALS + 4)], "one word");
    assert_eq!(phrase("prior art", &only(GADGET)), none, "doc filter");
    let recitals: BTreeSet<ChunkId> = chunk_ids(&w, |c| c.node == NodeId::ROOT).into_iter().collect();
    assert_eq!(recitals.len(), RECITALS);
    assert_eq!(
        phrase("café édition", &all).into_iter().collect::<BTreeSet<_>>(),
        recitals,
        "non-ASCII words"
    );
    assert_eq!(phrase("", &all), none, "empty phrase");
}

/// Check 10: `chunks` returns the chunks asked for in the order asked, skipping unknown ids;
/// `chunks_of` returns a document's chunks in ordinal order, or those of one subtree; each
/// stored chunk carries its text, title, source path and section-number key.
pub fn chunks_by_id_and_by_document<S: StoreWrite>(store: &mut S) {
    let (w, g) = put_both(store);
    let asked = [cid(WIDGET, RECITALS + 3), ChunkId::from("unknown-0000:0"), cid(WIDGET, 0), cid(GADGET, 1)];
    let got = store.chunks(&asked).unwrap();
    let want = vec![
        stored_chunk(&w, &w.chunks[RECITALS + 3]),
        stored_chunk(&w, &w.chunks[0]),
        stored_chunk(&g, &g.chunks[1]),
    ];
    assert_eq!(got, want, "order asked, unknown skipped");
    assert_eq!(got[0].number.as_deref(), Some("4.2"));
    assert_eq!(got[1].number, None, "the root has no number");
    assert_eq!(got[0].text, "4.2 Fees and filing\n\nEach applicant shall meet every requirement of this part and pay the filing fee.\n\n");
    assert_eq!(store.chunks(&[]).unwrap(), vec![]);
    // Each chunk's section, as its stored chunk says, in the order asked.
    let sections: Vec<_> =
        want.iter().map(|c| (c.chunk.id.clone(), c.chunk.doc.clone(), c.chunk.node)).collect();
    assert_eq!(store.sections_of(&asked).unwrap(), sections, "sections_of agrees with chunks");

    let all_of = |r: &DocumentRecord, keep: &dyn Fn(NodeId) -> bool| {
        r.chunks.iter().filter(|c| keep(c.node)).map(|c| stored_chunk(r, c)).collect::<Vec<_>>()
    };
    assert_eq!(store.chunks_of(&id(WIDGET), None).unwrap(), all_of(&w, &|_| true), "ordinal order");
    assert_eq!(store.chunks_of(&id(GADGET), None).unwrap(), all_of(&g, &|_| true));
    let sub = |first, last| store.chunks_of(&id(WIDGET), Some((NodeId(first), NodeId(last)))).unwrap();
    assert_eq!(sub(1, 2), all_of(&w, &|n| n == NodeId(1) || n == NodeId(2)), "subtree of §102");
    assert_eq!(sub(1, 2)[0].number.as_deref(), Some("102"));
    assert_eq!(sub(3, 3), all_of(&w, &|n| n == NodeId(3)), "subtree of 4.2");
    assert_eq!(sub(0, 4), all_of(&w, &|_| true), "subtree of the root");
    assert_eq!(store.chunks_of(&id("unknown-0000"), None).unwrap(), vec![]);
}

/// Check 11: `defined_terms` lists every normalized term once, across documents.
pub fn defined_terms_lists_every_term<S: StoreWrite>(store: &mut S) {
    assert_eq!(store.defined_terms().unwrap(), Vec::<String>::new(), "an empty store");
    put_both(store);
    let mut terms = store.defined_terms().unwrap();
    terms.sort();
    assert_eq!(terms, vec!["applicant".to_string(), "invention".to_string()]);
}

/// Chunk ids of `records` ranked by inner product of their [`unit_vector`] with `query`
/// (ties by id), kept by `keep`.
fn brute_force(
    records: &[&DocumentRecord],
    query: &[f32],
    keep: impl Fn(&DocumentRecord, &strata_core::Chunk) -> bool,
) -> Vec<ChunkId> {
    let mut scored: Vec<(f32, ChunkId)> = records
        .iter()
        .flat_map(|r| r.chunks.iter().filter(|c| keep(r, c)).map(move |c| (r, c)))
        .map(|(_, c)| (unit_vector(c.id.as_str()).iter().zip(query).map(|(a, b)| a * b).sum(), c.id.clone()))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().map(|s| s.1).collect()
}

/// Check 12: the dense leg is brute-force inner product, also under every filter.
pub fn dense_ranks_by_inner_product_within_filters<S: StoreWrite>(store: &mut S) {
    let (w, g) = (with_vectors(widget_act(WIDGET)), with_vectors(gadget_rules(GADGET)));
    store.put(&w).unwrap();
    store.put(&g).unwrap();
    store.commit().unwrap();
    let all = |_: &DocumentRecord, _: &strata_core::Chunk| true;
    for probe in ["query one", "query two", w.chunks[3].id.as_str(), g.chunks[0].id.as_str()] {
        let q = unit_vector(probe);
        let hits = store.dense(&q, &Filter::default(), 100).unwrap();
        assert_eq!(ids(&hits), brute_force(&[&w, &g], &q, all), "probe {probe}");
        assert!(hits.windows(2).all(|p| p[0].score >= p[1].score), "scores descend");
        let top3 = store.dense(&q, &Filter::default(), 3).unwrap();
        assert_eq!(ids(&top3), brute_force(&[&w, &g], &q, all)[..3], "limit keeps the best");

        let in_gadget = store.dense(&q, &only(GADGET), 100).unwrap();
        assert_eq!(ids(&in_gadget), brute_force(&[&w, &g], &q, |r, _| r.document.id.0 == GADGET));
        let kind = Filter { kind: Some(ChunkKind::Definition), ..Filter::default() };
        assert_eq!(
            ids(&store.dense(&q, &kind, 100).unwrap()),
            brute_force(&[&w, &g], &q, |_, c| c.kind == ChunkKind::Definition)
        );
        let subtree =
            Filter { doc: Some(id(WIDGET)), nodes: Some((NodeId(1), NodeId(2))), ..Filter::default() };
        assert_eq!(
            ids(&store.dense(&q, &subtree, 100).unwrap()),
            brute_force(&[&w], &q, |_, c| (1..=2).contains(&c.node.0))
        );
        let page = |first, last| Filter { pages: Some((first, last)), ..Filter::default() };
        assert_eq!(
            ids(&store.dense(&q, &page(1, 3), 100).unwrap()),
            brute_force(&[&w, &g], &q, all),
            "pages"
        );
        assert!(store.dense(&q, &page(2, 3), 100).unwrap().is_empty(), "no chunk on page 2");
    }
    let own = store.dense(&unit_vector(w.chunks[3].id.as_str()), &Filter::default(), 1).unwrap();
    assert_eq!(own[0].chunk, w.chunks[3].id);
    assert!((own[0].score - 1.0).abs() < 1e-5, "a chunk's own vector scores 1, got {}", own[0].score);
}

/// Check 13: vectors follow puts and removes, stay invisible until commit, and belong to one model.
pub fn dense_follows_puts_and_removes<S: StoreWrite>(store: &mut S) {
    let (w, g) = (with_vectors(widget_act(WIDGET)), with_vectors(gadget_rules(GADGET)));
    store.put(&w).unwrap();
    store.put(&g).unwrap();
    assert!(store.dense(&unit_vector("q"), &Filter::default(), 100).unwrap().is_empty(), "staged: invisible");
    store.commit().unwrap();

    let amended = with_vectors(widget_act_amended(WIDGET));
    store.put(&amended).unwrap();
    store.commit().unwrap();
    let q = unit_vector("after the re-put");
    let hits = store.dense(&q, &Filter::default(), 100).unwrap();
    assert_eq!(ids(&hits), brute_force(&[&amended, &g], &q, |_, _| true), "only the new chunks");

    store.remove(&id(WIDGET)).unwrap();
    store.commit().unwrap();
    let hits = store.dense(&q, &Filter::default(), 100).unwrap();
    assert_eq!(ids(&hits), brute_force(&[&g], &q, |_, _| true), "removed document's vectors are gone");

    // A document put without vectors is simply not in the dense leg.
    store.put(&widget_act(WIDGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.dense(&q, &Filter::default(), 100).unwrap().len(), g.chunks.len());

    let mut other = with_vectors(widget_act(WIDGET));
    other.vectors.as_mut().unwrap().model = "another-model".into();
    let err = store.put(&other).expect_err("vectors of another model are refused").to_string();
    assert!(err.contains("another-model") && err.contains(fixture::VECTOR_MODEL), "{err}");
    let err = store.dense(&[1.0, 0.0], &Filter::default(), 5).expect_err("wrong query dimension").to_string();
    assert!(err.contains("dimension"), "{err}");
}

/// Check 14: chunks with equal BM25 scores come back in chunk id order, and the cut at
/// `limit` keeps the first ids, however the documents were written (regression: `strata
/// eval` gave other numbers on a second run over the same data, because tantivy breaks ties
/// by segment and segments depend on indexing threads).
pub fn keyword_ties_come_back_in_chunk_id_order<S: StoreWrite>(store: &mut S) {
    // Twelve documents with one identical paragraph, written in reverse id order, one
    // commit each.
    let mut all = Vec::new();
    for i in (0..12).rev() {
        let record = RecordBuilder::new(&format!("twin-{i:02}"), "Twin", &format!("corpus/twin-{i:02}.md"))
            .paragraph("An identical paragraph about lighthouse keepers.")
            .build();
        all.extend(chunk_ids(&record, |_| true));
        store.put(&record).unwrap();
        store.commit().unwrap();
    }
    all.sort();
    let hits = store.keyword("lighthouse keepers", &Filter::default(), 5).unwrap();
    assert_eq!(ids(&hits), all[..5], "ties must be ordered by chunk id");
    assert!(hits.windows(2).all(|w| w[0].score == w[1].score), "the twins score alike");
    let every = store.keyword("lighthouse keepers", &Filter::default(), 50).unwrap();
    assert_eq!(ids(&every), all);
}

fn sections(hits: &[SectionHit]) -> BTreeSet<(String, u32)> {
    hits.iter().map(|h| (h.doc.to_string(), h.node.0)).collect()
}

/// Check 15: the section leg ranks tree nodes by their profile. `conditions` is only in the
/// heading of §102, so it finds §102 (its heading), §102(a) (its heading path) and the root
/// (whose children's titles name §102); `recital` is only in the root's lead text. Filters
/// on `doc` and `nodes` apply, scores descend, `limit` holds, and a replaced or removed
/// document's sections are gone.
pub fn section_keyword_ranks_sections_by_their_profile<S: StoreWrite>(store: &mut S) {
    put_both(store);
    let all = Filter::default();
    let w = |nodes: &[u32]| nodes.iter().map(|n| (WIDGET.to_string(), *n)).collect::<BTreeSet<_>>();
    let found = store.section_keyword("conditions", &all, 10).unwrap();
    assert_eq!(sections(&found), w(&[0, 1, 2]), "heading, heading path, children's titles");
    assert_eq!(sections(&store.section_keyword("recitals", &all, 10).unwrap()), w(&[0]), "lead text");
    let ranked = store.section_keyword("filing novelty", &all, 100).unwrap();
    assert!(ranked.len() >= 3, "{ranked:?}");
    assert!(ranked.windows(2).all(|p| p[0].score >= p[1].score), "descending scores: {ranked:?}");
    assert_eq!(store.section_keyword("filing novelty", &all, 2).unwrap().len(), 2, "limit");
    let gadget = store.section_keyword("filing", &only(GADGET), 10).unwrap();
    assert_eq!(sections(&gadget), [(GADGET.to_string(), 1)].into_iter().collect(), "doc");
    let subtree = |first, last| Filter {
        doc: Some(id(WIDGET)),
        nodes: Some((NodeId(first), NodeId(last))),
        ..Filter::default()
    };
    assert_eq!(
        sections(&store.section_keyword("conditions", &subtree(1, 2), 10).unwrap()),
        w(&[1, 2]),
        "subtree"
    );
    assert_eq!(
        sections(&store.section_keyword("conditions", &subtree(2, 2), 10).unwrap()),
        w(&[2]),
        "subtree"
    );
    assert_eq!(store.section_keyword("", &all, 10).unwrap(), vec![], "empty query");
    let page = |first, last| Filter { pages: Some((first, last)), ..Filter::default() };
    assert_eq!(
        sections(&store.section_keyword("conditions", &page(1, 1), 10).unwrap()),
        w(&[0, 1, 2]),
        "pages"
    );
    assert_eq!(store.section_keyword("conditions", &page(2, 2), 10).unwrap(), vec![], "pages");

    store.put(&widget_act_amended(WIDGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.section_keyword("conditions", &all, 10).unwrap(), vec![], "replaced");
    assert_eq!(sections(&store.section_keyword("general provisions", &all, 10).unwrap()), w(&[0, 1]));
    store.remove(&id(WIDGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.section_keyword("general provisions", &all, 10).unwrap(), vec![], "removed");
}

/// Sections of `records` ranked by brute-force inner product with `query`.
fn brute_force_sections(
    records: &[&DocumentRecord],
    query: &[f32],
    keep: impl Fn(&DocumentRecord, NodeId) -> bool,
) -> Vec<(String, u32)> {
    let mut scored: Vec<(f32, String, u32)> = Vec::new();
    for r in records {
        for p in strata_core::section_profiles(&r.document) {
            if keep(r, p.node) {
                let v = unit_vector(&section_key(&r.document.id, p.node));
                scored.push((
                    v.iter().zip(query).map(|(a, b)| a * b).sum(),
                    r.document.id.to_string(),
                    p.node.0,
                ));
            }
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| (&a.1, a.2).cmp(&(&b.1, b.2))));
    scored.into_iter().map(|s| (s.1, s.2)).collect()
}

fn section_list(hits: &[SectionHit]) -> Vec<(String, u32)> {
    hits.iter().map(|h| (h.doc.to_string(), h.node.0)).collect()
}

/// Check 16: the dense section leg is brute-force inner product over the section vectors,
/// under `doc` and subtree filters, and a re-put or removed document's sections are gone.
pub fn section_dense_ranks_sections_by_inner_product<S: StoreWrite>(store: &mut S) {
    let (w, g) = (with_vectors(widget_act(WIDGET)), with_vectors(gadget_rules(GADGET)));
    store.put(&w).unwrap();
    store.put(&g).unwrap();
    store.commit().unwrap();
    for probe in ["section probe", &section_key(&id(WIDGET), NodeId(2))] {
        let q = unit_vector(probe);
        let hits = store.section_dense(&q, &Filter::default(), 100).unwrap();
        assert_eq!(section_list(&hits), brute_force_sections(&[&w, &g], &q, |_, _| true), "probe {probe}");
        assert!(hits.windows(2).all(|p| p[0].score >= p[1].score), "scores descend");
        let in_gadget = store.section_dense(&q, &only(GADGET), 100).unwrap();
        assert_eq!(section_list(&in_gadget), brute_force_sections(&[&g], &q, |_, _| true));
        let subtree =
            Filter { doc: Some(id(WIDGET)), nodes: Some((NodeId(1), NodeId(2))), ..Filter::default() };
        assert_eq!(
            section_list(&store.section_dense(&q, &subtree, 100).unwrap()),
            brute_force_sections(&[&w], &q, |_, n| (1..=2).contains(&n.0))
        );
    }
    let own = store
        .section_dense(&unit_vector(&section_key(&id(WIDGET), NodeId(3))), &Filter::default(), 1)
        .unwrap();
    assert_eq!((own[0].doc.as_str(), own[0].node), (WIDGET, NodeId(3)));

    let amended = with_vectors(widget_act_amended(WIDGET));
    store.put(&amended).unwrap();
    store.commit().unwrap();
    let q = unit_vector("after the re-put");
    assert_eq!(
        section_list(&store.section_dense(&q, &Filter::default(), 100).unwrap()),
        brute_force_sections(&[&amended, &g], &q, |_, _| true),
        "only the new sections"
    );
    store.remove(&id(GADGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(
        section_list(&store.section_dense(&q, &Filter::default(), 100).unwrap()),
        brute_force_sections(&[&amended], &q, |_, _| true),
        "removed"
    );
}

/// Cached contexts are staged until commit, found by key, replaced by a second write of the
/// same key, blind to the records of documents (a chunk id is not a cache key), and kept
/// when their document is removed.
pub fn context_cache_outlives_its_document<S: StoreWrite>(store: &mut S) {
    let (w, _) = put_both(store);
    let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    store.cache_contexts(&[("k1".into(), "first".into()), ("k2".into(), "second".into())]).unwrap();
    assert!(store.cached_contexts(&keys(&["k1"])).unwrap().is_empty(), "staged, not visible");
    store.commit().unwrap();
    let found = store.cached_contexts(&keys(&["k1", "k2", "k3"])).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found["k1"], "first");
    assert_eq!(found["k2"], "second");
    store.cache_contexts(&[("k1".into(), "rewritten — ünïcode".into())]).unwrap();
    store.commit().unwrap();
    assert_eq!(store.cached_contexts(&keys(&["k1"])).unwrap()["k1"], "rewritten — ünïcode");
    let chunk_ids: Vec<String> = w.chunks.iter().map(|c| c.id.to_string()).collect();
    assert!(store.cached_contexts(&chunk_ids).unwrap().is_empty(), "chunks are not contexts");
    store.remove(&id(WIDGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.cached_contexts(&keys(&["k1", "k2"])).unwrap().len(), 2, "survives removal");
    assert!(store.cached_contexts(&[]).unwrap().is_empty());
}

/// `record` with a vector cache entry per chunk: the key `cache-{chunk id}`, the chunk's own
/// vector, and every third one marked truncated.
fn with_cached_vectors(record: DocumentRecord) -> DocumentRecord {
    let mut record = with_vectors(record);
    record.cached_vectors = record
        .chunks
        .iter()
        .enumerate()
        .map(|(i, c)| strata_core::CachedVector {
            key: format!("cache-{}", c.id),
            values: unit_vector(c.id.as_str()),
            truncated: i % 3 == 0,
        })
        .collect();
    record
}

/// The vector cache: entries are staged until commit, served by key whole (values bit for
/// bit, the truncation flag), replaced with their document's next put and removed with it,
/// and blind to other record kinds.
pub fn vector_cache_goes_with_its_document<S: StoreWrite>(store: &mut S) {
    let (w, g) = (with_cached_vectors(widget_act(WIDGET)), with_cached_vectors(gadget_rules(GADGET)));
    let keys = |r: &DocumentRecord| r.cached_vectors.iter().map(|e| e.key.clone()).collect::<Vec<_>>();
    store.put(&w).unwrap();
    store.put(&g).unwrap();
    assert!(store.cached_vectors(&keys(&w)).unwrap().is_empty(), "staged, not visible");
    store.commit().unwrap();
    let mut asked = keys(&w);
    asked.extend(keys(&g));
    asked.push("cache-absent".into());
    asked.extend(w.chunks.iter().map(|c| c.id.to_string()));
    let found = store.cached_vectors(&asked).unwrap();
    assert_eq!(found.len(), w.cached_vectors.len() + g.cached_vectors.len(), "{:?}", found.keys());
    for entry in w.cached_vectors.iter().chain(&g.cached_vectors) {
        assert_eq!(&found[&entry.key], entry, "served as written");
    }

    // A put of the same document replaces its entries: the amended act keeps none of the old.
    let mut amended = with_cached_vectors(widget_act_amended(WIDGET));
    amended.cached_vectors.truncate(1);
    amended.cached_vectors[0].key = "cache-amended".into();
    store.put(&amended).unwrap();
    store.commit().unwrap();
    assert!(store.cached_vectors(&keys(&w)).unwrap().is_empty(), "the old version's entries are gone");
    assert_eq!(store.cached_vectors(&keys(&amended)).unwrap().len(), 1);
    assert_eq!(store.cached_vectors(&keys(&g)).unwrap().len(), g.cached_vectors.len(), "others untouched");

    store.remove(&id(WIDGET)).unwrap();
    store.commit().unwrap();
    assert!(store.cached_vectors(&keys(&amended)).unwrap().is_empty(), "removed with the document");
    assert!(store.cached_vectors(&[]).unwrap().is_empty());
    assert!(store.cached_contexts(&keys(&g)).unwrap().is_empty(), "vectors are not contexts");
}
