//! The Milvus store against the shared `Store` conformance suite, on a real Milvus (Lite)
//! server, plus what only it has: generations that make a commit atomic across the side
//! index and the engine, recovery of a commit cut short, and the guards between an index's
//! folder and its collections.
//!
//! `STRATA_TEST_MILVUS_URL` names the server (`scripts/milvus.sh start NAME PORT` prints
//! one; `scripts/test.sh` starts one). Without it the tests skip with a message, unless
//! `STRATA_REQUIRE_MILVUS=1` (CI sets it), in which case they fail.

use std::sync::atomic::{AtomicUsize, Ordering};

use strata_core::ChunkId;
use strata_index::conformance::{self, fixture};
use strata_index::{EmbeddedStore, Filter, Manifest, StoreRead, StoreWrite};
use strata_milvus::{MilvusOptions, MilvusStore};

const VAR: &str = "STRATA_TEST_MILVUS_URL";

fn server(test: &str) -> Option<String> {
    match std::env::var(VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("STRATA_REQUIRE_MILVUS").as_deref() == Ok("1") => {
            panic!(
                "{test}: {VAR} is not set but STRATA_REQUIRE_MILVUS=1; start a server with scripts/milvus.sh"
            )
        }
        _ => {
            eprintln!("skipping {test}: set {VAR} to a Milvus server (scripts/milvus.sh start NAME PORT)");
            None
        }
    }
}

fn manifest() -> Manifest {
    Manifest::new("cl100k_base", 512, 64)
}

/// An index folder and collections of its own, dropped with this value.
struct Fresh {
    dir: tempfile::TempDir,
    options: MilvusOptions,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Fresh {
    fn new(url: &str, prefix: &str) -> Fresh {
        let name = format!("{prefix}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let options = MilvusOptions { collection: Some(name), ..MilvusOptions::new(url) };
        Fresh { dir: tempfile::tempdir().unwrap(), options }
    }

    fn writer(&self) -> MilvusStore {
        MilvusStore::open_or_create(self.dir.path(), &self.options, manifest()).unwrap()
    }

    fn reader(&self) -> MilvusStore {
        MilvusStore::open(self.dir.path(), &self.options).unwrap()
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        if let Ok(store) = MilvusStore::open(self.dir.path(), &self.options) {
            let _ = store.drop_collections();
        }
    }
}

#[test]
fn milvus_store_passes_the_conformance_suite() {
    let Some(url) = server("milvus_store_passes_the_conformance_suite") else { return };
    let mut fresh = Vec::new();
    conformance::run_all(|| {
        let f = Fresh::new(&url, "strata_conf");
        let store = f.writer();
        fresh.push(f);
        store
    });
}

fn dense_ids(store: &dyn StoreRead, filter: &Filter) -> Vec<(ChunkId, f32)> {
    let query = fixture::unit_vector("query");
    store.dense(&query, filter, 50).unwrap().into_iter().map(|h| (h.chunk, h.score)).collect()
}

#[test]
fn a_commit_cut_short_is_invisible_and_undone_on_the_next_open() {
    let Some(url) = server("a_commit_cut_short_is_invisible_and_undone_on_the_next_open") else { return };
    let f = Fresh::new(&url, "strata_cut");
    let widget = fixture::with_vectors(fixture::widget_act(conformance::WIDGET));
    let gadget = fixture::with_vectors(fixture::gadget_rules(conformance::GADGET));
    let mut store = f.writer();
    store.put(&widget).unwrap();
    store.commit().unwrap();
    let before = dense_ids(&store, &Filter::default());
    assert!(!before.is_empty());
    let generation = store.generation();

    // A re-put of one document and a new one reach Milvus (retired and new rows), but the
    // process dies before the generation is published.
    let amended = fixture::with_vectors(fixture::widget_act_amended(conformance::WIDGET));
    store.put(&amended).unwrap();
    store.put(&gadget).unwrap();
    store.write_without_publishing().unwrap();
    let reader = f.reader();
    assert_eq!(reader.generation(), generation);
    assert_eq!(dense_ids(&reader, &Filter::default()), before, "readers see the last commit only");
    drop(store);

    // The next writer undoes it: the same results, and a commit that works.
    let mut store = f.writer();
    assert_eq!(dense_ids(&store, &Filter::default()), before);
    store.put(&gadget).unwrap();
    store.commit().unwrap();
    let reader = f.reader();
    let gadget_hits =
        dense_ids(&reader, &Filter { doc: Some(gadget.document.id.clone()), ..Filter::default() });
    assert_eq!(gadget_hits.len(), gadget.chunks.len(), "each gadget chunk once: {gadget_hits:?}");
    let widget_hits =
        dense_ids(&reader, &Filter { doc: Some(widget.document.id.clone()), ..Filter::default() });
    let widget_before: Vec<_> =
        before.iter().filter(|h| h.0.as_str().starts_with(conformance::WIDGET)).cloned().collect();
    assert_eq!(widget_hits, widget_before, "the widget act as first committed, its rows live again");
}

#[test]
fn committed_vectors_persist_and_the_folder_names_its_collections() {
    let Some(url) = server("committed_vectors_persist_and_the_folder_names_its_collections") else { return };
    let f = Fresh::new(&url, "strata_persist");
    let widget = fixture::with_vectors(fixture::widget_act(conformance::WIDGET));
    {
        let mut store = f.writer();
        store.put(&widget).unwrap();
        store.commit().unwrap();
        // Staged but never committed: lost with the writer.
        store.put(&fixture::with_vectors(fixture::gadget_rules(conformance::GADGET))).unwrap();
    }
    let store = f.reader();
    assert_eq!(store.documents().unwrap().len(), 1);
    assert_eq!(dense_ids(&store, &Filter::default()).len(), widget.chunks.len());

    // Other collections than the folder's are refused, and so is the embedded store.
    let other = MilvusOptions { collection: Some("someone_else".into()), ..f.options.clone() };
    let e = MilvusStore::open(f.dir.path(), &other).err().expect("another collection").to_string();
    assert!(e.contains(&format!("collection = \"{}\"", store.collection())), "{e}");
    let embedded = EmbeddedStore::open(f.dir.path()).unwrap();
    assert_eq!(embedded.documents().unwrap().len(), 1, "the records are in the folder");
    let e = embedded.dense(&fixture::unit_vector("q"), &Filter::default(), 5).unwrap_err().to_string();
    assert!(e.contains("kind = \"milvus\""), "{e}");
    // Writing it as an embedded index would leave the engine's vectors of what it replaces.
    let e = EmbeddedStore::open_or_create(f.dir.path(), manifest()).err().expect("refused").to_string();
    assert!(e.contains("kind = \"milvus\""), "{e}");
}

#[test]
fn a_new_folder_never_takes_over_another_index_s_collections() {
    let Some(url) = server("a_new_folder_never_takes_over_another_index_s_collections") else { return };
    let f = Fresh::new(&url, "strata_taken");
    let mut store = f.writer();
    store.put(&fixture::with_vectors(fixture::widget_act(conformance::WIDGET))).unwrap();
    store.commit().unwrap();
    drop(store);
    let before = dense_ids(&f.reader(), &Filter::default());

    let other = tempfile::tempdir().unwrap();
    let e =
        MilvusStore::open_or_create(other.path(), &f.options, manifest()).err().expect("refused").to_string();
    assert!(e.contains("exists already") && e.contains("STRATA_STORE_COLLECTION"), "{e}");
    assert_eq!(dense_ids(&f.reader(), &Filter::default()), before, "the first index keeps its vectors");
}

#[test]
fn a_reader_some_commits_behind_still_finds_the_vectors_of_its_generation() {
    let Some(url) = server("a_reader_some_commits_behind_still_finds_the_vectors_of_its_generation") else {
        return;
    };
    let f = Fresh::new(&url, "strata_behind");
    let mut store = f.writer();
    let widget = fixture::with_vectors(fixture::widget_act(conformance::WIDGET));
    store.put(&widget).unwrap();
    store.commit().unwrap();
    let reader = f.reader();
    let first = dense_ids(&reader, &Filter::default());
    // Two commits replace the document while the reader stays on its generation (a server
    // between two refreshes).
    store.put(&fixture::with_vectors(fixture::widget_act_amended(conformance::WIDGET))).unwrap();
    store.commit().unwrap();
    store.put(&fixture::with_vectors(fixture::gadget_rules(conformance::GADGET))).unwrap();
    store.commit().unwrap();
    assert_eq!(dense_ids(&reader, &Filter::default()), first, "the old reader's vectors are all there");
    assert_ne!(dense_ids(&f.reader(), &Filter::default()), first, "a new reader sees the new ones");
}

#[test]
fn a_document_whose_vectors_exceed_one_grpc_message_is_replaced_and_removed() {
    let Some(url) = server("a_document_whose_vectors_exceed_one_grpc_message_is_replaced_and_removed") else {
        return;
    };
    // 1,200 chunks of 1,024 dimensions: 4.9 MB of vectors, over gRPC's 4 MiB message limit.
    let (chunks, dim) = (1200, 1024);
    let big = |version: &str| {
        let mut b = fixture::RecordBuilder::new("big-manual-77aa", "Big Manual", "corpus/big.md");
        for i in 0..chunks {
            b = b.paragraph(&format!("Paragraph {i} of version {version}."));
        }
        let mut record = b.build();
        let values = record
            .chunks
            .iter()
            .flat_map(|c| {
                let v = fixture::unit_vector(&format!("{version}{}", c.id));
                (0..dim / v.len()).flat_map(move |_| v.clone())
            })
            .collect();
        record.vectors = Some(strata_core::ChunkVectors { model: "big-1024".into(), dim, values });
        record
    };
    let f = Fresh::new(&url, "strata_big");
    let mut store = f.writer();
    let first = big("one");
    assert_eq!(first.chunks.len(), chunks);
    store.put(&first).unwrap();
    store.commit().unwrap();
    store.put(&big("two")).unwrap();
    store.commit().unwrap();
    let query = vec![1.0 / (dim as f32).sqrt(); dim];
    let hits = store.dense(&query, &Filter::default(), 5000).unwrap();
    assert_eq!(hits.len(), chunks, "each chunk once, the first version retired");
    store.remove(&first.document.id).unwrap();
    store.commit().unwrap();
    assert!(store.dense(&query, &Filter::default(), 5000).unwrap().is_empty());
}

#[test]
fn an_embedded_index_is_not_opened_as_a_milvus_one() {
    let Some(url) = server("an_embedded_index_is_not_opened_as_a_milvus_one") else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut embedded = EmbeddedStore::open_or_create(dir.path(), manifest()).unwrap();
    embedded.put(&fixture::widget_act(conformance::WIDGET)).unwrap();
    embedded.commit().unwrap();
    drop(embedded);
    let options = MilvusOptions::new(&url);
    let e = MilvusStore::open_or_create(dir.path(), &options, manifest()).err().unwrap().to_string();
    assert!(e.contains("keeps its vectors in this folder"), "{e}");
    let e = MilvusStore::open(dir.path(), &options).err().unwrap().to_string();
    assert!(e.contains("kind = \"embedded\""), "{e}");
}

#[test]
fn a_server_that_is_not_there_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens.
    let options = MilvusOptions::new("http://127.0.0.1:9");
    let e = MilvusStore::open_or_create(dir.path(), &options, manifest()).err().unwrap().to_string();
    assert!(e.contains("Milvus at http://127.0.0.1:9") && e.contains("run the same command again"), "{e}");
}
