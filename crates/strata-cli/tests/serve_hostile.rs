//! `strata serve` against hostile clients (issue 51), as a process of its own, so that its
//! threads and memory are read from `/proc` and it is stopped by real signals. The dense
//! leg is off: none of this is about ranking.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::served::{serve, Served};
use reqwest::StatusCode;
use serde_json::{json, Value};

const KEY: &str = "hostile-test-key-0c1d2e3f4a5b";

const CONTRACT: &str = "# Master Services Agreement\n\n## 1. Definitions\n\n\"Services\" means the \
work described in Section 2.\n\n## 2. Services\n\nThe Supplier shall provide the Services described \
in each statement of work, and keep the records for seven years.\n";

/// A long manual, so that its ingest takes a while.
fn manual(title: &str, sections: usize) -> String {
    let mut text = format!("# {title}\n\n");
    for i in 1..=sections {
        text.push_str(&format!(
            "## {i}. Procedure {i}\n\nStep {i}: align the ring to notch {i}, then record the reading \
             in the maintenance log. Operators repeat the check every shift.\n\n"
        ));
    }
    text
}

/// A server on a fresh index, path ingest under `root`, `[serve]` as `serve_toml` says.
struct Setup {
    dir: tempfile::TempDir,
    root: PathBuf,
    served: Served,
    http: reqwest::Client,
}

impl Setup {
    fn start(serve_toml: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let config = dir.path().join("strata.toml");
        std::fs::write(&config, format!("[serve]\n{serve_toml}\n")).unwrap();
        let served = Setup::serve(dir.path(), &root, &config);
        Setup { dir, root, served, http: reqwest::Client::new() }
    }

    fn serve(dir: &Path, root: &Path, config: &Path) -> Served {
        let env = [("STRATA_DENSE_ENABLED", "false"), ("STRATA_CONFIG", config.to_str().unwrap())];
        serve(&dir.join("index"), &["--root", root.to_str().unwrap()], KEY, &env)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.served.base())
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self.http.get(self.url(path)).bearer_auth(KEY).send().await.unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    /// Starts a path job; its `Location`.
    async fn ingest(&self, names: &[&str]) -> String {
        let r = self.http.post(self.url("/v1/documents")).bearer_auth(KEY).json(&json!({ "paths": names }));
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        r.headers()["location"].to_str().unwrap().to_string()
    }

    /// Polls a job until it is in one of `states`.
    async fn until(&self, location: &str, states: &[&str]) -> Value {
        let started = Instant::now();
        loop {
            let (_, job) = self.get(location).await;
            if states.contains(&job["state"].as_str().unwrap()) {
                return job;
            }
            assert!(started.elapsed() < Duration::from_secs(300), "job stuck: {job}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A keyword search, its status and how long it took.
    async fn search(&self, query: &str) -> (StatusCode, Duration) {
        let started = Instant::now();
        let r = self.http.post(self.url("/v1/search")).bearer_auth(KEY);
        let r = r.json(&json!({ "query": query, "mode": "keyword" })).timeout(Duration::from_secs(30));
        let status = r.send().await.map(|r| r.status()).unwrap_or(StatusCode::REQUEST_TIMEOUT);
        (status, started.elapsed())
    }
}

/// Issue 51, finding 3: every source request on a FIFO left a thread blocked in `open()`;
/// after 600 the server held 132 threads and searches timed out. Each is refused at once now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_600_source_requests_on_a_fifo_leave_no_thread_behind() {
    let setup = Setup::start("");
    std::fs::write(setup.root.join("contract.md"), CONTRACT).unwrap();
    let job = setup.until(&setup.ingest(&["contract.md"]).await, &["done", "failed"]).await;
    assert_eq!(job["summary"]["ingested"], 1, "{job}");
    let (status, normal) = setup.search("statement of work").await;
    assert_eq!(status, StatusCode::OK);
    std::fs::remove_file(setup.root.join("contract.md")).unwrap();
    let made = std::process::Command::new("mkfifo").arg(setup.root.join("contract.md")).status().unwrap();
    assert!(made.success());

    let before = setup.served.threads();
    let url = setup.url("/v1/documents/contract/source");
    let mut clients = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let (http, url) = (setup.http.clone(), url.clone());
        clients.spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..600 / 16 + 1 {
                let r = http.get(&url).bearer_auth(KEY).timeout(Duration::from_secs(5)).send().await;
                statuses.push(r.map(|r| r.status().as_u16()).unwrap_or(0));
            }
            statuses
        });
    }
    let statuses: Vec<u16> = clients.join_all().await.into_iter().flatten().collect();
    assert!(statuses.len() >= 600);
    assert!(statuses.iter().all(|&s| s == 409), "every request refused with 409: {statuses:?}");
    // The blocking pool lets idle threads go after 10 s; none may stay blocked.
    let started = Instant::now();
    let mut after = setup.served.threads();
    while after > before + 5 && started.elapsed() < Duration::from_secs(15) {
        tokio::time::sleep(Duration::from_millis(250)).await;
        after = setup.served.threads();
    }
    assert!(after <= before + 5, "threads: {before} before, {after} after 600 source requests on a FIFO");
    let (status, took) = setup.search("statement of work").await;
    assert_eq!(status, StatusCode::OK);
    assert!(took < normal * 10 + Duration::from_secs(1), "a search took {took:?} (before: {normal:?})");
    let (status, _, log) = setup.served.stop();
    assert!(status.success(), "{log}");
}

/// Issue 51, finding 2: after SIGTERM the server waited for every request in flight, so a
/// slow client (here one sending its body a byte at a time) or a long ingest kept it up for
/// as long as they lasted. It now exits within `[serve] shutdown_grace_secs`, and the index
/// it leaves opens again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_sigterm_stops_the_server_within_its_grace_whatever_is_in_flight() {
    use tokio::io::AsyncWriteExt;
    let setup = Setup::start("shutdown_grace_secs = 2\nrequest_timeout_secs = 120");
    let names: Vec<String> = (0..24).map(|i| format!("manual{i}.md")).collect();
    for name in &names {
        std::fs::write(setup.root.join(name), manual(name, 1500)).unwrap();
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let long = setup.ingest(&names).await;
    setup.until(&long, &["running"]).await;
    // A search whose body comes a byte every 200 ms, for longer than the test.
    let mut slow = tokio::net::TcpStream::connect(&setup.served.addr).await.unwrap();
    let head = format!(
        "POST /v1/search HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {KEY}\r\n\
         content-type: application/json\r\ncontent-length: 1000\r\n\r\n{{"
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let trickle = tokio::spawn(async move {
        while slow.write_all(b" ").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (dir, root) = (setup.dir, setup.root);
    let (status, took, log) = setup.served.stop();
    trickle.abort();
    assert!(status.success(), "{log}");
    assert!(took < Duration::from_secs(6), "SIGTERM took {took:?} with a grace of 2 s: {log}");

    // The index left behind opens, and holds what the cut job committed.
    let config = dir.path().join("strata.toml");
    let served = Setup::serve(dir.path(), &root, &config);
    let r = reqwest::Client::new().get(format!("{}/v1/documents", served.base())).bearer_auth(KEY);
    let r = r.send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let docs: Vec<Value> = r.json().await.unwrap();
    assert!(docs.len() < 24, "the job was cut short, not waited for: {} documents", docs.len());
    let (status, _, log) = served.stop();
    assert!(status.success(), "{log}");
}
