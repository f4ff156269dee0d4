//! The PostgreSQL server dies in the middle of `strata ingest`: the ingest fails with a clear
//! error, no partial document is visible once the server is back, and running the same
//! ingest again completes it.
//!
//! Needs a cluster this test may kill and restart: `STRATA_TEST_POSTGRES_CRASH_URL` and its
//! name for `scripts/postgres.sh` in `STRATA_TEST_POSTGRES_CRASH_CLUSTER` (`scripts/test.sh`
//! starts one). Skips with a message without them, fails under `STRATA_REQUIRE_POSTGRES=1`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};
use strata_index::StoreRead;
use strata_postgres::{PgOptions, PgStore};

fn pg_script(args: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres.sh");
    let out = Command::new("bash").arg(script).args(args).output().expect("running scripts/postgres.sh");
    assert!(out.status.success(), "postgres.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn committed_documents(url: &str) -> i64 {
    let Ok(mut c) = Client::connect(url, NoTls) else { return 0 };
    c.query_one("SELECT CASE WHEN to_regclass('strata_documents') IS NULL THEN 0 ELSE (SELECT count(*) FROM strata_documents) END", &[])
        .map(|r| r.get(0))
        .unwrap_or(0)
}

#[test]
fn server_killed_mid_ingest_loses_nothing_and_a_rerun_completes() {
    let (url, cluster) = match (
        std::env::var("STRATA_TEST_POSTGRES_CRASH_URL"),
        std::env::var("STRATA_TEST_POSTGRES_CRASH_CLUSTER"),
    ) {
        (Ok(u), Ok(c)) => (u, c),
        _ if std::env::var("STRATA_REQUIRE_POSTGRES").as_deref() == Ok("1") => {
            panic!("STRATA_TEST_POSTGRES_CRASH_URL and _CLUSTER are not set but STRATA_REQUIRE_POSTGRES=1")
        }
        _ => {
            eprintln!("skipping: set STRATA_TEST_POSTGRES_CRASH_URL and STRATA_TEST_POSTGRES_CRASH_CLUSTER (scripts/test.sh does)");
            return;
        }
    };
    let Some(corpus) = common::corpus() else { return };
    // Three large documents: the first commits, the server dies while later ones are written.
    let files: Vec<String> =
        ["txt/rfc3261-sip.txt", "txt/rfc7231-http11-semantics.txt", "txt/rfc9000-quic-unpaginated.txt"]
            .iter()
            .map(|f| corpus.join(f).display().to_string())
            .collect();
    let db_url = {
        let admin = format!("{}/postgres", url.rsplit_once('/').unwrap().0);
        let mut c = Client::connect(&admin, NoTls).unwrap();
        c.batch_execute("DROP DATABASE IF EXISTS strata_crash WITH (FORCE)").unwrap();
        c.batch_execute("CREATE DATABASE strata_crash").unwrap();
        format!("{}/strata_crash", url.rsplit_once('/').unwrap().0)
    };
    let index = tempfile::tempdir().unwrap();
    let ingest = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
        cmd.arg("--index")
            .arg(index.path())
            .arg("ingest")
            .args(&files)
            .env_remove("STRATA_CONFIG")
            .env("STRATA_DENSE_ENABLED", "false")
            .env("STRATA_STORE", "postgres")
            .env("STRATA_STORE_URL", &db_url)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };

    let child = ingest().spawn().unwrap();
    let started = Instant::now();
    while committed_documents(&db_url) < 1 {
        assert!(started.elapsed() < Duration::from_secs(120), "the first document commits within 2 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    pg_script(&["kill", &cluster]);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the ingest fails when its server dies");
    assert!(
        stderr.contains("lost the connection to the server") && stderr.contains("run the same command again"),
        "a clear error: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    pg_script(&["restart", &cluster]);
    // Whatever is listed is whole: every chunk its summary counts, and its text.
    let store = PgStore::open(PgOptions::new(&db_url)).unwrap();
    let docs = store.documents().unwrap();
    assert!(!docs.is_empty() && docs.len() < 3, "the first document only: {docs:?}");
    for d in &docs {
        assert_eq!(store.chunks_of(&d.id, None).unwrap().len(), d.chunks, "{} is whole", d.id);
        assert!(!store.document(&d.id).unwrap().unwrap().document.text.is_empty());
    }
    let orphans: i64 = Client::connect(&db_url, NoTls)
        .unwrap()
        .query_one("SELECT count(*) FROM strata_chunks c WHERE NOT EXISTS (SELECT 1 FROM strata_documents d WHERE d.doc = c.doc)", &[])
        .unwrap()
        .get(0);
    assert_eq!(orphans, 0, "no chunk of an uncommitted document");

    let out = ingest().output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the re-run completes: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{} ingested, {} unchanged", 3 - docs.len(), docs.len())), "{stdout}");
    let store = PgStore::open(PgOptions::new(&db_url)).unwrap();
    assert_eq!(store.documents().unwrap().len(), 3);
    let hits = store.keyword("INVITE transaction", &strata_index::Filter::default(), 3).unwrap();
    assert!(!hits.is_empty());
}
