//! The embedded store against the shared `Store` conformance suite, plus what only the
//! embedded store has: a folder that persists, a manifest that guards it, a writer lock.

use std::path::Path;

use strata_core::{DocId, Error};
use strata_index::conformance::{self, fixture};
use strata_index::{EmbeddedStore, Filter, Manifest, StoreRead, StoreWrite, MANIFEST_FILE};
use tempfile::TempDir;

fn manifest() -> Manifest {
    Manifest::new("cl100k_base", 512, 64)
}

fn create(dir: &Path) -> EmbeddedStore {
    EmbeddedStore::open_or_create(dir, manifest()).unwrap()
}

fn message(result: Result<EmbeddedStore, Error>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn embedded_store_passes_the_conformance_suite() {
    let mut dirs = Vec::new();
    conformance::run_all(|| {
        let dir = TempDir::new().unwrap();
        let store = create(dir.path());
        dirs.push(dir);
        store
    });
}

/// After commit and drop, a read-only `open` sees the same data; a read-only store refuses
/// writes; uncommitted writes of a dropped writer are lost, the last commit stays.
#[test]
fn committed_data_persists_across_reopen() {
    let dir = TempDir::new().unwrap();
    let (w, g) = (fixture::widget_act(conformance::WIDGET), fixture::gadget_rules(conformance::GADGET));
    let (documents, chunks, keyword, terms) = {
        let mut store = create(dir.path());
        store.put(&w).unwrap();
        store.put(&g).unwrap();
        store.commit().unwrap();
        // Staged, never committed: lost with the writer.
        store.remove(&w.document.id).unwrap();
        let ids = fixture::chunk_ids(&w, |_| true);
        (
            store.documents().unwrap(),
            store.chunks(&ids).unwrap(),
            store.keyword("filing", &Filter::default(), 10).unwrap(),
            store.defined_terms().unwrap(),
        )
    };

    let mut store = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(store.manifest(), &manifest());
    assert_eq!(store.documents().unwrap(), documents);
    assert_eq!(documents.len(), 2);
    let doc = store.document(&w.document.id).unwrap().unwrap();
    assert_eq!(doc.document.text, w.document.text);
    assert_eq!(doc.document.tree, w.document.tree);
    assert_eq!(doc.definitions, w.definitions);
    assert_eq!(doc.references, w.references);
    assert_eq!(store.chunks(&fixture::chunk_ids(&w, |_| true)).unwrap(), chunks);
    assert_eq!(store.keyword("filing", &Filter::default(), 10).unwrap(), keyword);
    assert_eq!(store.defined_terms().unwrap(), terms);

    let refused = store.put(&w).unwrap_err().to_string();
    assert!(refused.contains("read-only"), "{refused}");
    assert!(store.commit().unwrap_err().to_string().contains("read-only"));
}

/// Readers take no lock: a read-only store opens while a writer holds the folder, and sees
/// the writer's commits once reopened.
#[test]
fn readers_open_while_a_writer_holds_the_index() {
    let dir = TempDir::new().unwrap();
    let mut writer = create(dir.path());
    let g = fixture::gadget_rules(conformance::GADGET);
    writer.put(&g).unwrap();
    writer.commit().unwrap();
    let reader = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(reader.documents().unwrap().len(), 1);
}

#[test]
fn open_on_an_empty_folder_says_to_ingest_first() {
    let dir = TempDir::new().unwrap();
    let msg = message(EmbeddedStore::open(dir.path()));
    assert!(msg.contains("strata ingest"), "{msg}");
    assert!(msg.contains(&dir.path().display().to_string()), "names the folder: {msg}");
}

#[test]
fn open_or_create_with_other_max_tokens_names_the_setting() {
    let dir = TempDir::new().unwrap();
    drop(create(dir.path()));
    let msg = message(EmbeddedStore::open_or_create(dir.path(), Manifest::new("cl100k_base", 256, 64)));
    assert!(msg.contains("chunk.max_tokens"), "{msg}");
    assert!(msg.contains("512") && msg.contains("256"), "names both values: {msg}");
    // The same settings still open.
    drop(create(dir.path()));
}

#[test]
fn unknown_format_version_is_refused_naming_it() {
    let dir = TempDir::new().unwrap();
    drop(create(dir.path()));
    Manifest { format_version: 999, ..manifest() }.write(dir.path()).unwrap();
    for msg in [
        message(EmbeddedStore::open(dir.path())),
        message(EmbeddedStore::open_or_create(dir.path(), manifest())),
    ] {
        assert!(msg.contains("999"), "{msg}");
    }
}

#[test]
fn damaged_manifest_is_a_clear_error() {
    let dir = TempDir::new().unwrap();
    drop(create(dir.path()));
    std::fs::write(dir.path().join(MANIFEST_FILE), "{ not json").unwrap();
    let msg = message(EmbeddedStore::open(dir.path()));
    assert!(msg.contains(MANIFEST_FILE) && msg.contains("damaged"), "{msg}");
}

#[test]
fn second_writer_is_told_another_process_is_writing() {
    let dir = TempDir::new().unwrap();
    let _first = create(dir.path());
    let msg = message(EmbeddedStore::open_or_create(dir.path(), manifest()));
    assert!(msg.contains("another process is writing"), "{msg}");
}

#[test]
fn writer_lock_is_released_on_drop() {
    let dir = TempDir::new().unwrap();
    let mut first = create(dir.path());
    first.put(&fixture::gadget_rules(conformance::GADGET)).unwrap();
    first.commit().unwrap();
    drop(first);
    let second = create(dir.path());
    assert!(second.content_hash(&DocId(conformance::GADGET.to_string())).unwrap().is_some());
}

/// Regression: tantivy's term dictionary keeps the terms of deleted records until a segment
/// merge, so `defined_terms` listed the terms of removed and replaced documents. (A segment
/// whose records are all deleted is dropped at commit, so the other document must share it.)
#[test]
fn regression_defined_terms_of_a_removed_document_are_not_listed() {
    let dir = TempDir::new().unwrap();
    let mut store = create(dir.path());
    let w = fixture::widget_act(conformance::WIDGET);
    store.put(&w).unwrap();
    store.put(&fixture::gadget_rules(conformance::GADGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.defined_terms().unwrap(), ["applicant", "invention"]);
    store.put(&fixture::widget_act_amended(conformance::WIDGET)).unwrap();
    store.commit().unwrap();
    assert_eq!(store.defined_terms().unwrap(), ["contraption", "invention"], "after a re-put");
    store.remove(&w.document.id).unwrap();
    store.commit().unwrap();
    assert_eq!(store.defined_terms().unwrap(), ["invention"], "after a remove");
}

/// BM25 counts only chunk records as documents, but the `terms` field is also on definition
/// records: a term's document frequency could exceed the chunk count, and tantivy's IDF
/// asserts it never does. One chunk that defines one term was enough to panic.
#[test]
fn regression_exact_terms_on_a_one_chunk_index_do_not_panic() {
    let dir = TempDir::new().unwrap();
    let mut store = create(dir.path());
    let record = fixture::RecordBuilder::new("force-0001", "Terms", "force.md")
        .definition("Force Majeure", "“Force Majeure” means an event beyond a party's control.")
        .build();
    assert_eq!(record.chunks.len(), 1);
    store.put(&record).unwrap();
    store.commit().unwrap();
    let hits = store.exact_terms(&["force majeure".to_string()], &Filter::default(), 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(store.keyword("force majeure", &Filter::default(), 10).unwrap().len(), 1);
}
