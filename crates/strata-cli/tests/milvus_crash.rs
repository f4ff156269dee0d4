//! The Milvus server dies in the middle of `strata ingest` (dense leg on, so every commit
//! writes vectors there): the ingest fails with a clear error, no partial document is visible
//! once the server is back, and running the same ingest again completes it.
//!
//! Needs a Milvus server this test may kill and restart: `STRATA_TEST_MILVUS_CRASH_URL` and
//! its name for `scripts/milvus.sh` in `STRATA_TEST_MILVUS_CRASH_SERVER` (`scripts/test.sh`
//! starts one), and the test model. Skips with a message without them, fails under
//! `STRATA_REQUIRE_MILVUS=1`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use strata_core::{ChunkId, DocId};
use strata_index::{EmbeddedStore, Filter, StoreRead};
use strata_milvus::{MilvusOptions, MilvusStore};

fn milvus_script(args: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/milvus.sh");
    let out = Command::new("bash").arg(script).args(args).output().expect("running scripts/milvus.sh");
    assert!(out.status.success(), "milvus.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn committed_documents(index: &Path) -> usize {
    EmbeddedStore::open(index).and_then(|s| s.documents()).map_or(0, |d| d.len())
}

/// The chunks of `store` whose vectors the dense leg finds, by document.
fn vectors_of(store: &MilvusStore, doc: Option<&DocId>) -> Vec<ChunkId> {
    let dim = store.manifest().dense.as_ref().expect("a dense index").dim;
    let query = vec![1.0 / (dim as f32).sqrt(); dim];
    let filter = Filter { doc: doc.cloned(), ..Filter::default() };
    store.dense(&query, &filter, 16_384).unwrap().into_iter().map(|h| h.chunk).collect()
}

#[test]
fn milvus_killed_mid_ingest_loses_nothing_and_a_rerun_completes() {
    let (url, server) = match (
        std::env::var("STRATA_TEST_MILVUS_CRASH_URL"),
        std::env::var("STRATA_TEST_MILVUS_CRASH_SERVER"),
    ) {
        (Ok(u), Ok(s)) => (u, s),
        _ if std::env::var("STRATA_REQUIRE_MILVUS").as_deref() == Ok("1") => {
            panic!("STRATA_TEST_MILVUS_CRASH_URL and _SERVER are not set but STRATA_REQUIRE_MILVUS=1")
        }
        _ => {
            eprintln!("skipping: set STRATA_TEST_MILVUS_CRASH_URL and STRATA_TEST_MILVUS_CRASH_SERVER (scripts/test.sh does)");
            return;
        }
    };
    if !common::model_ready() {
        return;
    }
    let Some(corpus) = common::corpus() else { return };
    // Three large documents: the first commits, the server dies while later ones are written.
    let files: Vec<String> =
        ["txt/rfc3261-sip.txt", "txt/rfc7231-http11-semantics.txt", "txt/rfc9000-quic-unpaginated.txt"]
            .iter()
            .map(|f| corpus.join(f).display().to_string())
            .collect();
    let collection = format!("strata_crash_{}", std::process::id());
    let index = tempfile::tempdir().unwrap();
    let ingest = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
        cmd.arg("--index")
            .arg(index.path())
            .arg("ingest")
            .args(&files)
            .env_remove("STRATA_CONFIG")
            .env("STRATA_DENSE_ENABLED", "true")
            .env("STRATA_INGEST_COMMIT_EVERY", "1")
            .env("STRATA_STORE", "milvus")
            .env("STRATA_STORE_URL", &url)
            .env("STRATA_STORE_COLLECTION", &collection)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };

    let child = ingest().spawn().unwrap();
    let started = Instant::now();
    while committed_documents(index.path()) < 1 {
        assert!(started.elapsed() < Duration::from_secs(300), "the first document commits within 5 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    milvus_script(&["kill", &server]);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the ingest fails when its server dies");
    assert!(
        stderr.contains("lost the connection to Milvus") && stderr.contains("run the same command again"),
        "a clear error: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    milvus_script(&["restart", &server]);
    let options = MilvusOptions::new(&url);
    let store = MilvusStore::open(index.path(), &options).unwrap();
    let docs = store.documents().unwrap();
    assert!(!docs.is_empty() && docs.len() < 3, "the first document only: {docs:?}");
    // Whatever is listed is whole: every chunk its summary counts, its text, and one vector
    // per chunk; no vector of anything else is visible.
    let mut listed = BTreeSet::new();
    for d in &docs {
        let chunks: BTreeSet<ChunkId> =
            store.chunks_of(&d.id, None).unwrap().into_iter().map(|c| c.chunk.id).collect();
        assert_eq!(chunks.len(), d.chunks, "{} is whole", d.id);
        assert!(!store.document(&d.id).unwrap().unwrap().document.text.is_empty());
        let vectors: BTreeSet<ChunkId> = vectors_of(&store, Some(&d.id)).into_iter().collect();
        assert_eq!(vectors, chunks, "{}: one vector per chunk", d.id);
        listed.extend(chunks);
    }
    let visible: BTreeSet<ChunkId> = vectors_of(&store, None).into_iter().collect();
    assert_eq!(visible, listed, "no vector of an uncommitted document is visible");
    drop(store);

    let out = ingest().output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the re-run completes: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{} ingested, {} unchanged", 3 - docs.len(), docs.len())), "{stdout}");
    let store = MilvusStore::open(index.path(), &options).unwrap();
    let docs = store.documents().unwrap();
    assert_eq!(docs.len(), 3);
    for d in &docs {
        assert_eq!(vectors_of(&store, Some(&d.id)).len(), d.chunks, "{}: one vector per chunk", d.id);
    }
    assert_eq!(vectors_of(&store, None).len(), docs.iter().map(|d| d.chunks).sum::<usize>());
    store.drop_collections().unwrap();
}
