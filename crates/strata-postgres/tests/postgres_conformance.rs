//! The PostgreSQL store against the shared `Store` conformance suite, on a real server, plus
//! what only it has: persistence across connections, one writer, schema and layout guards.

mod support;

use strata_index::conformance::{self, fixture};
use strata_index::{Manifest, StoreRead, StoreWrite};
use strata_postgres::{KeywordRanking, PgOptions, PgStore};

const VAR: &str = "STRATA_TEST_POSTGRES_URL";

fn manifest() -> Manifest {
    Manifest::new("cl100k_base", 512, 64)
}

#[test]
fn postgres_store_passes_the_conformance_suite() {
    let Some(server) = support::server("postgres_store_passes_the_conformance_suite", VAR) else { return };
    let mut dbs = Vec::new();
    conformance::run_all(|| {
        let db = support::fresh(&server, "strata_conf");
        let store = PgStore::open_or_create(PgOptions::new(&db.url), manifest()).unwrap();
        dbs.push(db);
        store
    });
}

#[test]
fn committed_data_persists_and_one_writer_at_a_time() {
    let Some(server) = support::server("committed_data_persists_and_one_writer_at_a_time", VAR) else {
        return;
    };
    let db = support::fresh(&server, "strata_persist");
    let g = fixture::gadget_rules(conformance::GADGET);
    {
        let mut store = PgStore::open_or_create(PgOptions::new(&db.url), manifest()).unwrap();
        store.put(&g).unwrap();
        store.commit().unwrap();
        let second = PgStore::open_or_create(PgOptions::new(&db.url), manifest());
        let e = second.err().expect("a second writer is refused").to_string();
        assert!(e.contains("another process is writing"), "{e}");
        // Staged but never committed: lost with the writer.
        store.put(&fixture::widget_act(conformance::WIDGET)).unwrap();
    }
    let store = PgStore::open(PgOptions::new(&db.url)).unwrap();
    let docs = store.documents().unwrap();
    assert_eq!(docs.len(), 1, "only the committed document: {docs:?}");
    assert_eq!(store.document(&g.document.id).unwrap().unwrap().document.text, g.document.text);
    let e = PgStore::open_or_create(PgOptions::new(&db.url), Manifest::new("cl100k_base", 256, 64))
        .err()
        .expect("other chunk settings are refused")
        .to_string();
    assert!(e.contains("chunk.max_tokens = 512 (config: 256)"), "{e}");
}

#[test]
fn an_empty_database_is_not_an_index() {
    let Some(server) = support::server("an_empty_database_is_not_an_index", VAR) else { return };
    let db = support::fresh(&server, "strata_empty");
    let e = PgStore::open(PgOptions::new(&db.url)).err().expect("no index").to_string();
    assert!(e.contains("holds no strata index") && e.contains("strata ingest"), "{e}");
}

#[test]
fn ts_rank_ranking_finds_what_bm25_finds() {
    let Some(server) = support::server("ts_rank_ranking_finds_what_bm25_finds", VAR) else { return };
    let db = support::fresh(&server, "strata_tsrank");
    let mut store = PgStore::open_or_create(PgOptions::new(&db.url), manifest()).unwrap();
    store.put(&fixture::widget_act(conformance::WIDGET)).unwrap();
    store.put(&fixture::gadget_rules(conformance::GADGET)).unwrap();
    store.commit().unwrap();
    drop(store);
    let bm25 = PgStore::open(PgOptions::new(&db.url)).unwrap();
    let ts = PgStore::open(PgOptions { keyword: KeywordRanking::TsRank, ..PgOptions::new(&db.url) }).unwrap();
    let filter = strata_index::Filter::default();
    for query in ["widget", "gadget filing", "recitals"] {
        let a: std::collections::BTreeSet<_> =
            bm25.keyword(query, &filter, 100).unwrap().into_iter().map(|h| h.chunk).collect();
        let b: std::collections::BTreeSet<_> =
            ts.keyword(query, &filter, 100).unwrap().into_iter().map(|h| h.chunk).collect();
        assert!(!a.is_empty(), "{query}: bm25 finds something");
        assert_eq!(a, b, "{query}: the same chunks match, ranked differently");
    }
}

/// Past `ann_threshold` the dense leg searches the HNSW index (with iterative scans, so a
/// filter still gets `k`), and finds what the exact scan finds.
#[test]
fn hnsw_dense_leg_matches_brute_force() {
    let Some(server) = support::server("hnsw_dense_leg_matches_brute_force", VAR) else { return };
    let db = support::fresh(&server, "strata_hnsw");
    let mut store =
        PgStore::open_or_create(PgOptions { ann_threshold: 0, ..PgOptions::new(&db.url) }, manifest())
            .unwrap();
    for i in 0..20 {
        store.put(&fixture::with_vectors(fixture::widget_act(&format!("widget-{i:02}")))).unwrap();
    }
    store.commit().unwrap();
    drop(store);
    let name = db.url.rsplit('/').next().unwrap().to_string();
    postgres::Client::connect(&db.url, postgres::NoTls)
        .unwrap()
        .batch_execute(&format!("ALTER DATABASE {name} SET enable_seqscan = off"))
        .unwrap();
    let ann = PgStore::open(PgOptions { ann_threshold: 0, ..PgOptions::new(&db.url) }).unwrap();
    let exact = PgStore::open(PgOptions { ann_threshold: usize::MAX, ..PgOptions::new(&db.url) }).unwrap();
    let kind = strata_index::Filter { kind: Some(strata_core::ChunkKind::Content), ..Default::default() };
    for (i, filter) in [strata_index::Filter::default(), kind].iter().enumerate() {
        let q = fixture::unit_vector(&format!("query {i}"));
        let want = exact.dense(&q, filter, 100).unwrap();
        let got = ann.dense(&q, filter, 100).unwrap();
        assert!(!want.is_empty());
        assert_eq!(got.len(), want.len(), "as many results under filter {i}");
        let a: std::collections::BTreeSet<_> = got.iter().map(|h| &h.chunk).collect();
        let b: std::collections::BTreeSet<_> = want.iter().map(|h| &h.chunk).collect();
        let recall = a.intersection(&b).count() as f64 / want.len() as f64;
        assert!(recall >= 0.95, "recall {recall} under filter {i}");
    }
    let q = fixture::unit_vector("q");
    let dim = q.len();
    let plan: Vec<String> = postgres::Client::connect(&db.url, postgres::NoTls)
        .unwrap()
        .query(
            &format!("EXPLAIN SELECT id FROM strata_chunks ORDER BY embedding::vector({dim}) <#> '{q:?}'::vector({dim}) LIMIT 5"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(plan.join("\n").contains("strata_chunks_embedding"), "{plan:?}");
}

/// Two chunks of one document with the same text share a context cache key, so one batch can
/// name a key twice: the last context is kept, and the transaction goes on.
#[test]
fn duplicate_cache_keys_in_one_batch_keep_the_last() {
    let Some(server) = support::server("duplicate_cache_keys_in_one_batch_keep_the_last", VAR) else {
        return;
    };
    let db = support::fresh(&server, "strata_cachedup");
    let mut store = PgStore::open_or_create(PgOptions::new(&db.url), manifest()).unwrap();
    let entries = [("k".to_string(), "first".to_string()), ("k".to_string(), "second".to_string())];
    store.cache_contexts(&entries).unwrap();
    store.put(&fixture::gadget_rules(conformance::GADGET)).unwrap();
    store.commit().unwrap();
    let cached = store.cached_contexts(&["k".to_string()]).unwrap();
    assert_eq!(cached.get("k").map(String::as_str), Some("second"));
    assert_eq!(store.documents().unwrap().len(), 1, "the document of the same transaction is in");
}
