//! Scale-out on real servers: records hash-partitioned over two shards through
//! `postgres_fdw`, and a streaming replica answering reads.
//!
//! `STRATA_TEST_POSTGRES_URL` is the coordinator (and primary), `STRATA_TEST_POSTGRES_SHARDS`
//! two more servers (comma-separated), `STRATA_TEST_POSTGRES_REPLICA_URL` a hot standby of the
//! primary (`scripts/test.sh` starts all four).

mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};
use strata_core::DocId;
use strata_index::conformance::{self, fixture};
use strata_index::{Filter, Manifest, StoreRead, StoreWrite};
use strata_postgres::{PgOptions, PgStore};

const PRIMARY: &str = "STRATA_TEST_POSTGRES_URL";
const SHARDS: &str = "STRATA_TEST_POSTGRES_SHARDS";
const REPLICA: &str = "STRATA_TEST_POSTGRES_REPLICA_URL";

fn manifest() -> Manifest {
    Manifest::new("cl100k_base", 512, 64)
}

/// Fresh databases on the coordinator and on each shard, and options naming them.
fn sharded(coordinator: &str, shards: &[String]) -> (PgOptions, Vec<support::TestDb>) {
    let main = support::fresh(coordinator, "strata_coord");
    let parts: Vec<support::TestDb> = shards.iter().map(|s| support::fresh(s, "strata_shard")).collect();
    let options =
        PgOptions { shards: parts.iter().map(|p| p.url.clone()).collect(), ..PgOptions::new(&main.url) };
    let mut dbs = vec![main];
    dbs.extend(parts);
    (options, dbs)
}

fn servers(test: &str) -> Option<(String, Vec<String>)> {
    let primary = support::server(test, PRIMARY)?;
    let shards: Vec<String> = support::server(test, SHARDS)?.split(',').map(str::to_string).collect();
    assert_eq!(shards.len(), 2, "{SHARDS} names two servers");
    Some((primary, shards))
}

#[test]
fn sharded_store_passes_the_conformance_suite() {
    let Some((primary, shards)) = servers("sharded_store_passes_the_conformance_suite") else { return };
    let mut dbs = Vec::new();
    conformance::run_all(|| {
        let (options, mut made) = sharded(&primary, &shards);
        let store = PgStore::open_or_create(options, manifest()).unwrap();
        dbs.append(&mut made);
        store
    });
}

/// `n` copies of the widget act under different ids, with vectors.
fn widgets(n: usize) -> Vec<strata_core::DocumentRecord> {
    (0..n).map(|i| fixture::with_vectors(fixture::widget_act(&format!("widget-{i:02}")))).collect()
}

fn explain(url: &str, sql: &str) -> String {
    let mut c = Client::connect(url, NoTls).unwrap();
    c.query(&format!("EXPLAIN (VERBOSE, COSTS OFF) {sql}"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows(url: &str, sql: &str) -> i64 {
    Client::connect(url, NoTls).unwrap().query_one(sql, &[]).unwrap().get(0)
}

#[test]
fn documents_live_on_one_shard_and_filtered_queries_route_there() {
    let Some((primary, shards)) = servers("documents_live_on_one_shard_and_filtered_queries_route_there")
    else {
        return;
    };
    let (options, dbs) = sharded(&primary, &shards);
    let mut store = PgStore::open_or_create(options.clone(), manifest()).unwrap();
    let docs = widgets(12);
    for d in &docs {
        store.put(d).unwrap();
    }
    store.commit().unwrap();

    // Both shards hold documents, and each document's chunks sit on exactly one.
    let per_shard: Vec<i64> =
        dbs[1..].iter().map(|s| rows(&s.url, "SELECT count(DISTINCT doc) FROM strata_chunks")).collect();
    assert_eq!(per_shard.iter().sum::<i64>(), 12, "{per_shard:?}");
    assert!(per_shard.iter().all(|&n| n > 0), "hash partitioning spreads documents: {per_shard:?}");

    // A query filtered by document is pruned to one shard's partition.
    let plan = explain(&dbs[0].url, "SELECT id FROM strata_chunks WHERE doc = 'widget-03'");
    assert_eq!(plan.matches("Foreign Scan").count(), 1, "{plan}");
    let plan = explain(&dbs[0].url, "SELECT id FROM strata_chunks");
    assert_eq!(plan.matches("Foreign Scan").count(), 2, "{plan}");

    // A vector query sorted by `<#>` goes to every shard sorted there, and is merged.
    let dim = fixture::unit_vector("q").len();
    let query = format!(
        "SELECT id FROM strata_chunks ORDER BY embedding::vector({dim}) <#> '{:?}'::vector LIMIT 5",
        fixture::unit_vector("q")
    );
    let plan = explain(&dbs[0].url, &query);
    assert!(plan.contains("Merge Append"), "{plan}");
    assert_eq!(plan.matches("ORDER BY").count(), 2, "each shard sorts by distance itself:\n{plan}");

    // Every leg answers on the shards as on one server.
    let single = support::fresh(&primary, "strata_single");
    let mut one = PgStore::open_or_create(PgOptions::new(&single.url), manifest()).unwrap();
    for d in &docs {
        one.put(d).unwrap();
    }
    one.commit().unwrap();
    let filter = Filter { doc: Some(DocId("widget-05".into())), ..Filter::default() };
    for f in [Filter::default(), filter] {
        let keyword = store.keyword("widget gizmo", &f, 20).unwrap();
        assert!(!keyword.is_empty());
        assert_eq!(keyword, one.keyword("widget gizmo", &f, 20).unwrap());
        let sections = store.section_keyword("filing novelty", &f, 10).unwrap();
        assert!(!sections.is_empty());
        assert_eq!(sections, one.section_keyword("filing novelty", &f, 10).unwrap());
        let phrase = store.exact_phrase("prior art", &f, 20).unwrap();
        assert!(!phrase.is_empty());
        assert_eq!(phrase, one.exact_phrase("prior art", &f, 20).unwrap());
    }
    assert_eq!(store.documents().unwrap(), one.documents().unwrap());
}

/// With the HNSW path forced, a sharded vector query still returns `k` candidates when `k`
/// is well past `hnsw.ef_search` (40): each shard keeps scanning (`iterative_scan`).
#[test]
fn sharded_dense_returns_k_candidates_past_ef_search() {
    let Some((primary, shards)) = servers("sharded_dense_returns_k_candidates_past_ef_search") else {
        return;
    };
    let (options, dbs) = sharded(&primary, &shards);
    // Small shards would rather sort a sequential scan: make them use the index, so that
    // HNSW and its iterative scan are what is tested.
    for shard in &dbs[1..] {
        let name = shard.url.rsplit('/').next().unwrap();
        Client::connect(&shard.url, NoTls)
            .unwrap()
            .batch_execute(&format!("ALTER DATABASE {name} SET enable_seqscan = off"))
            .unwrap();
    }
    let docs = widgets(12);
    let total: usize = docs.iter().map(|d| d.chunks.len()).sum();
    let mut store =
        PgStore::open_or_create(PgOptions { ann_threshold: 0, ..options.clone() }, manifest()).unwrap();
    for d in &docs {
        store.put(d).unwrap();
    }
    store.commit().unwrap();
    let exact = PgStore::open(PgOptions { ann_threshold: usize::MAX, ..options }).unwrap();
    let q = fixture::unit_vector("a query");
    let k = 120.min(total);
    let ann = store.dense(&q, &Filter::default(), k).unwrap();
    let brute = exact.dense(&q, &Filter::default(), k).unwrap();
    assert_eq!(ann.len(), k, "every shard gave enough candidates ({total} vectors)");
    let a: BTreeSet<_> = ann.iter().map(|h| h.chunk.clone()).collect();
    let b: BTreeSet<_> = brute.iter().map(|h| h.chunk.clone()).collect();
    let recall = a.intersection(&b).count() as f64 / k as f64;
    assert!(recall >= 0.95, "recall {recall} of HNSW against brute force");
    assert!(ann.windows(2).all(|w| w[0].score >= w[1].score), "merged in score order");
    let dim = q.len();
    let plan = explain(
        &dbs[1].url,
        &format!("SELECT id FROM strata_chunks ORDER BY embedding::vector({dim}) <#> '{q:?}'::vector({dim})"),
    );
    assert!(
        plan.contains("Index Scan using strata_chunks_embedding"),
        "a shard searches its HNSW index:\n{plan}"
    );
}

#[test]
fn a_streaming_replica_answers_reads() {
    let Some(primary) = support::server("a_streaming_replica_answers_reads", PRIMARY) else { return };
    let Some(replica) = support::server("a_streaming_replica_answers_reads", REPLICA) else { return };
    let db = support::fresh(&primary, "strata_replicated");
    let name = db.url.rsplit('/').next().unwrap().to_string();
    let read_url = support::with_db(&replica, &name);
    let mut store = PgStore::open_or_create(PgOptions::new(&db.url), manifest()).unwrap();
    for d in widgets(3) {
        store.put(&d).unwrap();
    }
    store.commit().unwrap();

    // Wait until the standby has replayed the primary's last write.
    let lsn: String = Client::connect(&db.url, NoTls)
        .unwrap()
        .query_one("SELECT pg_current_wal_lsn()::text", &[])
        .unwrap()
        .get(0);
    let started = Instant::now();
    let standby = support::with_db(&replica, "postgres");
    loop {
        let caught_up: bool = Client::connect(&standby, NoTls)
            .unwrap()
            .query_one("SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn", &[&lsn])
            .unwrap()
            .get(0);
        if caught_up {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the replica replays within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }

    let reader =
        PgStore::open(PgOptions { read_url: Some(read_url.clone()), ..PgOptions::new(&db.url) }).unwrap();
    let in_recovery: bool = Client::connect(&read_url, NoTls)
        .unwrap()
        .query_one("SELECT pg_is_in_recovery()", &[])
        .unwrap()
        .get(0);
    assert!(in_recovery, "reads go to a standby");
    assert_eq!(reader.documents().unwrap(), store.documents().unwrap());
    let f = Filter::default();
    assert_eq!(reader.keyword("widget", &f, 10).unwrap(), store.keyword("widget", &f, 10).unwrap());
    let q = fixture::unit_vector("q");
    assert_eq!(reader.dense(&q, &f, 5).unwrap(), store.dense(&q, &f, 5).unwrap());
    // The standby refuses writes: they belong on the primary.
    let refused = Client::connect(&read_url, NoTls).unwrap().batch_execute("DELETE FROM strata_documents");
    let e = refused.unwrap_err();
    let message = e.as_db_error().map(|db| db.message().to_string()).unwrap_or_else(|| e.to_string());
    assert!(message.contains("read-only"), "{message}");
}
