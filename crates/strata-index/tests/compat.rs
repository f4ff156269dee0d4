//! Every on-disk format that must still open has a fixture here (tantivy's `compat_tests.rs`
//! habit). `compat/v1` is format 1, made with
//! `strata --index crates/strata-index/tests/compat/v1 ingest examples/sample-agreement.md`.
//! When `FORMAT_VERSION` changes, keep this test passing (migrate on open) or state in the
//! release notes that format 1 must be re-created, and change the assertion on purpose.

use std::path::Path;

use strata_index::{EmbeddedStore, Filter, StoreRead, StoreWrite, FORMAT_VERSION};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn format_1_fixture_still_opens_and_answers() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/v1");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    let store = EmbeddedStore::open(dir.path()).expect("format 1 opens");
    assert_eq!(store.manifest().format_version, 1);
    assert_eq!(FORMAT_VERSION, 2, "format changed: decide how format 1 indexes open (see module doc)");
    let docs = store.documents().unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].title, "Sample Hosting Services Agreement");
    let hits = store.keyword("backups kept", &Filter::default(), 3).unwrap();
    let chunks = store.chunks(&[hits[0].chunk.clone()]).unwrap();
    assert!(chunks[0].text.contains("Backups are taken every six hours"), "{}", chunks[0].text);
    assert_eq!(store.definitions("incident").unwrap().len(), 1);
    assert!(!store.exact_numbers(&["4.2".into()], &Filter::default(), 10).unwrap().is_empty());
    // Format 1 has no section records: the section leg finds nothing, and says so by its
    // emptiness rather than by an error, so hierarchical search still runs on chunk evidence.
    assert_eq!(store.section_keyword("backups", &Filter::default(), 10).unwrap(), vec![]);
    // Nor page fields: a page filter is refused, saying how to get one.
    let err = store.keyword("backups", &Filter { pages: Some((1, 1)), ..Filter::default() }, 3).unwrap_err();
    assert!(err.to_string().contains("cannot filter by page"), "{err}");
}

#[test]
fn format_1_fixture_takes_writes_as_format_1() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/v1");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    let manifest = EmbeddedStore::open(dir.path()).unwrap().manifest().clone();
    let mut store = EmbeddedStore::open_or_create(dir.path(), manifest).unwrap();
    let record = strata_index::conformance::fixture::gadget_rules("gadget-rules-9f3c");
    store.put(&record).unwrap();
    store.commit().unwrap();
    let store = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(store.manifest().format_version, 1, "an old index stays in its format");
    // The new document has a summary record, the old one is summarized from its record.
    let titles: Vec<String> = store.documents().unwrap().into_iter().map(|d| d.title).collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles.contains(&"Sample Hosting Services Agreement".to_string()), "{titles:?}");
    assert_eq!(store.keyword("gadget", &Filter::default(), 5).unwrap().len(), 2);
    assert_eq!(store.section_keyword("gadget", &Filter::default(), 5).unwrap(), vec![]);
}
