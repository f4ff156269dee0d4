//! The commit's shared metadata cache ([`strata_search::metas::Metas`]): a document is
//! decoded once for every search that cites it, within the cache's bound.

mod common;

use std::sync::Arc;

use strata_core::DocId;
use strata_index::{EmbeddedStore, StoreRead};
use strata_search::metas::Metas;

/// Two documents of 1 + `n` sections each, ingested as `strata ingest` would.
fn two_documents(n: usize) -> (common::Ingested, tempfile::TempDir) {
    let files = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for name in ["alpha", "beta"] {
        let body: String = (0..n).map(|i| format!("## {name} part {i}\n\nText of part {i}.\n\n")).collect();
        let path = files.path().join(format!("{name}.md"));
        std::fs::write(&path, format!("# {name}\n\n{body}")).unwrap();
        paths.push(path);
    }
    (common::ingest_lexical(&paths), files)
}

fn id_of(store: &EmbeddedStore, stem: &str) -> DocId {
    store.documents().unwrap().into_iter().find(|d| d.path.ends_with(&format!("{stem}.md"))).unwrap().id
}

#[test]
fn a_document_is_decoded_once_and_shared_by_later_searches() {
    let (ingested, _files) = two_documents(10);
    let store = EmbeddedStore::open(&ingested.index).unwrap();
    let metas = Metas::default();
    let alpha = id_of(&store, "alpha");
    let first = metas.get(&store, &alpha).unwrap().expect("alpha is stored");
    let again = metas.get(&store, &alpha).unwrap().unwrap();
    assert!(Arc::ptr_eq(&first, &again), "the second search reads the held copy");
    assert_eq!(first.document.tree.len(), 12, "root, title and ten parts");
    assert!(metas.get(&store, &DocId("no-such-doc".into())).unwrap().is_none());
}

#[test]
fn past_the_budget_the_document_read_longest_ago_goes() {
    let (ingested, _files) = two_documents(10);
    let store = EmbeddedStore::open(&ingested.index).unwrap();
    let (alpha, beta) = (id_of(&store, "alpha"), id_of(&store, "beta"));
    // The two documents weigh the same (their nodes, pages and references): room for one.
    let weighed = Metas::default();
    weighed.get(&store, &alpha).unwrap();
    let weight = weighed.items();
    assert!(weight > 12, "{weight}");
    let metas = Metas::new(weight + weight / 2);
    let first = metas.get(&store, &alpha).unwrap().unwrap();
    metas.get(&store, &beta).unwrap().unwrap();
    assert_eq!(metas.items(), weight, "alpha made room for beta");
    let reread = metas.get(&store, &alpha).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&first, &reread), "alpha was decoded again");
    assert_eq!(first.document.tree, reread.document.tree);
}

#[test]
fn a_document_larger_than_the_budget_is_read_but_never_held() {
    let (ingested, _files) = two_documents(50);
    let store = EmbeddedStore::open(&ingested.index).unwrap();
    let metas = Metas::new(20);
    let alpha = metas.get(&store, &id_of(&store, "alpha")).unwrap().expect("still answered");
    assert_eq!(alpha.document.tree.len(), 52);
    assert_eq!(metas.items(), 0);
}
