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

/// Sends one MCP `initialize` on a new session: the HTTP status, the session id when one
/// was opened, and the answer's text.
async fn initialize(http: &reqwest::Client, url: &str) -> (StatusCode, Option<String>, String) {
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "flood", "version": "0" }
        }
    });
    let r = http
        .post(url)
        .bearer_auth(KEY)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    let session = r.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_string());
    (r.status(), session, r.text().await.unwrap_or_default())
}

/// An MCP client of rmcp's, on a session of its own.
async fn mcp_client(base: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::ServiceExt;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")).auth_header(KEY);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("initialize over HTTP")
}

/// Issue 51, finding 4: 16 clients × 600 `initialize` requests opened 9,600 sessions and
/// took RSS from 377 MB to 1.4 GB, which stayed after the sessions idled out. Sessions are
/// capped now: the flood is refused with a JSON-RPC error past the cap, memory stays where
/// it was, and a session opened before it still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_10000_mcp_initialize_requests_are_capped_and_leave_memory_as_it_was() {
    let setup = Setup::start("");
    std::fs::write(setup.root.join("contract.md"), CONTRACT).unwrap();
    let job = setup.until(&setup.ingest(&["contract.md"]).await, &["done", "failed"]).await;
    assert_eq!(job["summary"]["ingested"], 1, "{job}");
    let base = setup.served.base();
    let client = mcp_client(&base).await;
    let before = setup.served.rss_mb();

    let url = format!("{base}/mcp");
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let (http, url) = (setup.http.clone(), url.clone());
        flood.spawn(async move {
            let mut answers = Vec::new();
            for _ in 0..625 {
                let (status, session, text) = initialize(&http, &url).await;
                answers.push((status, session.is_some(), text));
            }
            answers
        });
    }
    let answers: Vec<_> = flood.join_all().await.into_iter().flatten().collect();
    let opened = answers.iter().filter(|(_, session, _)| *session).count();
    let (status, _, refusal) = answers.iter().find(|(_, session, _)| !session).expect("a refusal");
    assert_eq!(answers.len(), 10_000);
    assert_eq!(opened, 31, "32 sessions per key by default, one of them the client's");
    assert_eq!(*status, StatusCode::TOO_MANY_REQUESTS, "{refusal}");
    let refusal: Value = serde_json::from_str(refusal).unwrap();
    assert_eq!((refusal["jsonrpc"].as_str(), refusal["id"].as_i64()), (Some("2.0"), Some(7)), "{refusal}");
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("max_mcp_sessions_per_key = 32"), "{message}");

    tokio::time::sleep(Duration::from_secs(3)).await;
    let after = setup.served.rss_mb();
    assert!(after <= before + 100, "RSS {before} MB before 10,000 initialize requests, {after} MB after");
    eprintln!("RSS {before} MB before 10,000 initialize requests, {after} MB after");
    let args = json!({ "query": "statement of work", "k": 3 });
    let Value::Object(args) = args else { unreachable!() };
    let found = client
        .call_tool(rmcp::model::CallToolRequestParams::new("search").with_arguments(args))
        .await
        .expect("the session opened before the flood still answers");
    assert_ne!(found.is_error, Some(true), "{found:?}");
    client.cancel().await.unwrap();
    let (status, _, log) = setup.served.stop();
    assert!(status.success(), "{log}");
}

/// Idle sessions are closed after `[serve] mcp_idle_secs`, which gives their places back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mcp_sessions_close_and_give_their_places_back() {
    let setup = Setup::start("max_mcp_sessions_per_key = 3\nmcp_idle_secs = 2");
    let (http, url) = (&setup.http, setup.url("/mcp"));
    for _ in 0..3 {
        let (status, session, text) = initialize(http, &url).await;
        assert!(status.is_success() && session.is_some(), "{status}: {text}");
    }
    let (status, session, text) = initialize(http, &url).await;
    assert_eq!((status, session), (StatusCode::TOO_MANY_REQUESTS, None), "{text}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (status, session, text) = initialize(http, &url).await;
    assert!(
        status.is_success() && session.is_some(),
        "idle sessions gave their places back: {status} {text}"
    );
    let (status, _, log) = setup.served.stop();
    assert!(status.success(), "{log}");
}

/// The memory of closed MCP sessions goes back to the system: 2,000 sessions opened, then
/// left idle, give back most of what they took (glibc kept it all before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mcp_sessions_give_their_memory_back() {
    let setup = Setup::start("max_mcp_sessions = 3000\nmax_mcp_sessions_per_key = 3000\nmcp_idle_secs = 3");
    // Where a server that has answered MCP starts from: what the first requests load stays.
    for _ in 0..100 {
        initialize(&setup.http, &setup.url("/mcp")).await;
    }
    let before = setup.served.rss_mb();
    let mut clients = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (http, url) = (setup.http.clone(), setup.url("/mcp"));
        clients.spawn(async move {
            let mut opened = 0;
            for _ in 0..250 {
                opened += usize::from(initialize(&http, &url).await.1.is_some());
            }
            opened
        });
    }
    let opened: usize = clients.join_all().await.into_iter().sum();
    assert_eq!(opened, 2000);
    let peak = setup.served.rss_mb();
    // Idle after 3 s, closed at the next reap (every 0.75 s), trimmed at the one after.
    let kept = |rss: u64| rss.saturating_sub(before) * 3 > peak.saturating_sub(before);
    let started = Instant::now();
    let mut after = setup.served.rss_mb();
    while kept(after) && started.elapsed() < Duration::from_secs(40) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        after = setup.served.rss_mb();
    }
    eprintln!("RSS {before} MB before, {peak} MB with 2,000 MCP sessions, {after} MB once they idled out");
    assert!(
        !kept(after),
        "at least two thirds of what the sessions took goes back: RSS {before} MB before, {peak} MB with \
         2,000 sessions, {after} MB after they idled out"
    );
    let (status, _, log) = setup.served.stop();
    assert!(status.success(), "{log}");
}

impl Setup {
    /// Uploads `text` as `name`; the job's id.
    async fn upload(&self, name: &str, text: &str) -> String {
        let r = self.http.post(self.url(&format!("/v1/documents?filename={name}"))).bearer_auth(KEY);
        let r = r.header("content-type", "text/markdown").body(text.to_string()).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        let accepted: Value = r.json().await.unwrap();
        accepted["job"]["id"].as_str().unwrap().to_string()
    }
}

/// Issue 51, finding 5: after kill -9, uploaded files stayed in `INDEX/uploads` and were
/// never indexed, and job ids restarted at `job-1`, so a client polling its old job saw
/// another upload's answer. The job table is kept beside the index now: each upload is
/// taken up again or failed with a reason, no file is left orphaned, and ids are not reused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_uploads_survive_kill_9_and_job_ids_are_never_reused() {
    let setup = Setup::start("");
    let mut ids = Vec::new();
    for (name, text) in [
        ("long.md", manual("Long Manual", 6000)),
        ("first.md", CONTRACT.to_string()),
        ("second.md", CONTRACT.replace("Master", "Second")),
    ] {
        ids.push(setup.upload(name, &text).await);
    }
    let (_, jobs) = setup.get("/v1/jobs").await;
    let unfinished = jobs.as_array().unwrap().iter().filter(|j| j["state"] != "done").count();
    assert!(unfinished > 0, "every upload was done before the kill; make the first longer: {jobs}");
    let Setup { dir, root, served, http } = setup;
    served.kill();
    // A file that a crash left staged with no job, and half an upload.
    let uploads = dir.path().join("index/uploads");
    std::fs::write(uploads.join("orphan.md"), CONTRACT).unwrap();
    std::fs::write(uploads.join(".tmpHalf01"), "# Half").unwrap();

    let served = Setup::serve(dir.path(), &root, &dir.path().join("strata.toml"));
    let setup = Setup { dir, root, served, http };
    let mut resumed = 0;
    for id in &ids {
        let job = setup.until(&format!("/v1/jobs/{id}"), &["done", "failed"]).await;
        match job["state"].as_str() {
            Some("done") => assert_eq!(
                job["summary"]["ingested"].as_u64().unwrap_or(0)
                    + job["summary"]["unchanged"].as_u64().unwrap_or(0),
                1,
                "{job}"
            ),
            _ => {
                assert!(job["error"].as_str().is_some_and(|e| !e.is_empty()), "a failed job says why: {job}")
            }
        }
        resumed += usize::from(job["note"].as_str().is_some_and(|n| n.contains("taken up again")));
    }
    assert!(resumed > 0, "the uploads cut short were taken up again");
    let (_, docs) = setup.get("/v1/documents").await;
    let sources: Vec<&str> = docs.as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    let mut left: Vec<String> = std::fs::read_dir(&uploads)
        .unwrap()
        .map(|e| std::fs::canonicalize(e.unwrap().path()).unwrap().display().to_string())
        .collect();
    left.sort();
    assert!(
        left.iter().all(|f| sources.contains(&f.as_str())),
        "orphans in uploads: {left:?}, documents: {sources:?}"
    );
    assert_eq!(left.len(), 3, "the three uploads are indexed: {left:?}");
    let new = setup.upload("third.md", &CONTRACT.replace("Master", "Third")).await;
    assert!(!ids.contains(&new), "{new} was given before: {ids:?}");
    let (status, _, log) = setup.served.stop();
    assert!(status.success(), "{log}");
}
