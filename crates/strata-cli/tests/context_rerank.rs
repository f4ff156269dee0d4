//! `strata ingest --contextualize` and `strata search --rerank` end to end, against a
//! scripted local server speaking the Anthropic Messages and Cohere rerank wire formats
//! (the server of `strata-providers/tests/support`).
//!
//! Properties:
//! 1. `--dry-run` predicts one call per chunk and makes none; the real run makes them,
//!    reports the provider's counts, and a second ingest (`--force`) and a second dry run
//!    find every context in the index's cache and call nothing.
//! 2. A model's context is indexed (a word only it holds finds the chunk), returned as the
//!    hit's `context`, and never part of the hit's text.
//! 3. The API key never appears in any output.
//! 4. `--rerank cohere` orders the hits by the API's scores and marks them; a reranker that
//!    fails leaves the fused order and says so in `warnings`.

mod common;

#[path = "../../strata-providers/tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::{Reply, Server};

const KEY_VAR: &str = "STRATA_CLI_TEST_ANTHROPIC_KEY";
const KEY: &str = "sk-ant-cli-test-SECRET-1234";

const POLICY: &str = "# Device Policy\n\n## 1. Definitions\n\n\"Gizmo\" means a small device that hums.\n\n\
## 2. Colours\n\nA gizmo shall be painted blue. Red gizmos are refused at the gate.\n\n\
## 3. Storage\n\nGizmos are kept in the north shed, away from water and from sprockets.\n";

fn run(config: &Path, index: &Path, args: &[&str]) -> (Value, String) {
    let mut all = vec!["--config", config.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let out = common::strata_env(index, &all, &[(KEY_VAR, KEY)]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "strata {args:?} failed: {stderr}\n{stdout}");
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY), "the key leaked");
    (serde_json::from_str(&stdout).expect("JSON output"), stderr)
}

/// An Anthropic answer whose context names the chunk's section by a word only it has, or,
/// asked for the document's summary, one that names its maker by a word only it has.
fn anthropic(seen: &support::Seen) -> Reply {
    let chunk = seen.chunk().unwrap_or_default();
    let tag = if chunk.contains("shed") { "zanzibar warehouse" } else { "ordinary paragraph" };
    let text = match seen.prompt().contains("summary of the whole document") {
        true => "The device policy of the Quillfeather Gizmo Works, 2024.".to_string(),
        false => format!("This chunk is about the {tag} rules."),
    };
    Reply::Json(
        200,
        vec![],
        json!({
            "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 40, "output_tokens": 9, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 120}
        }),
    )
}

#[test]
fn contexts_are_estimated_written_cached_and_indexed() {
    let server = Server::start(|_, seen| anthropic(seen));
    let dir = tempfile::tempdir().unwrap();
    let (index, config, file) =
        (dir.path().join("index"), dir.path().join("strata.toml"), dir.path().join("policy.md"));
    std::fs::write(&file, POLICY).unwrap();
    std::fs::write(
        &config,
        format!(
            "[context]\nkind = \"anthropic\"\n[context.llm]\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\nbackoff_ms = 10\ntimeout_secs = 5\n",
            server.url
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();

    let (estimate, _) = run(&config, &index, &["ingest", "--dry-run", f]);
    let chunks = estimate["chunks"].as_u64().unwrap();
    assert!(chunks >= 3, "{estimate:#}");
    // One call per chunk, and one for the document's summary.
    let calls = chunks + 1;
    assert_eq!(estimate["usage"]["calls"], calls, "{estimate:#}");
    assert_eq!(estimate["cached"], 0);
    assert!(estimate["cost_usd"].as_f64().unwrap() > 0.0, "claude-haiku-4-5 has a known price");
    assert_eq!(server.count(), 0, "a dry run calls nothing");
    assert!(!index.exists(), "a dry run writes nothing");

    let (summary, _) = run(&config, &index, &["ingest", f]);
    assert_eq!(summary["context"], "anthropic:claude-haiku-4-5@1");
    assert_eq!(summary["contexts"]["written"], chunks, "{summary:#}");
    assert_eq!(summary["contexts"]["usage"]["calls"], calls);
    assert_eq!(summary["contexts"]["usage"]["cache_read"], 120 * calls);
    assert_eq!(server.count() as u64, calls);
    // The summary is part of the document's profile, which the document leg ranks.
    let (docs, _) = run(&config, &index, &["docs"]);
    let lead = docs[0]["profile"]["lead"].as_str().unwrap_or_default();
    assert!(lead.contains("Quillfeather Gizmo Works"), "{docs:#}");
    assert!(server.seen().iter().all(|s| s.header("x-api-key") == Some(KEY)));

    let (found, _) = run(&config, &index, &["search", "zanzibar", "--mode", "keyword"]);
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "only the context of the storage chunk says zanzibar: {found:#}");
    assert!(hits[0]["context"].as_str().unwrap().contains("zanzibar warehouse"));
    assert!(hits[0]["text"].as_str().unwrap().contains("north shed"));
    assert!(!hits[0]["text"].as_str().unwrap().contains("zanzibar"), "a context is never content");

    let (again, _) = run(&config, &index, &["ingest", "--force", f]);
    assert_eq!(again["contexts"]["cached"], chunks, "{again:#}");
    assert_eq!(again["contexts"]["usage"]["calls"], 0);
    let (estimate, _) = run(&config, &index, &["ingest", "--dry-run", f]);
    assert_eq!((estimate["cached"].as_u64(), estimate["usage"]["calls"].as_u64()), (Some(chunks), Some(0)));
    assert_eq!(server.count() as u64, calls, "re-ingest costs nothing, the summary included");
    let (docs, _) = run(&config, &index, &["docs"]);
    assert!(docs.to_string().contains("Quillfeather Gizmo Works"), "the cached summary is kept: {docs:#}");
}

#[test]
fn a_failing_model_falls_back_to_structural_contexts_with_a_warning() {
    let server = Server::start(|_, _| {
        Reply::Json(500, vec![], json!({"type": "error", "error": {"type": "api_error", "message": "boom"}}))
    });
    let dir = tempfile::tempdir().unwrap();
    let (index, config, file) =
        (dir.path().join("index"), dir.path().join("strata.toml"), dir.path().join("policy.md"));
    std::fs::write(&file, POLICY).unwrap();
    std::fs::write(
        &config,
        format!("[context]\nkind = \"anthropic\"\n[context.llm]\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\nbackoff_ms = 1\nmax_retries = 1\n", server.url),
    )
    .unwrap();
    let (summary, _) = run(&config, &index, &["ingest", file.to_str().unwrap()]);
    let chunks = summary["chunks"].as_u64().unwrap();
    assert_eq!(summary["ingested"], 1, "the document is ingested all the same: {summary:#}");
    assert_eq!(summary["contexts"]["fallbacks"], chunks);
    assert_eq!(server.count() as u64, 2 * (chunks + 1), "one retry per chunk and for the summary");
    let messages = summary["outcomes"][0]["messages"].as_array().unwrap();
    assert!(messages.iter().any(|m| m.as_str().unwrap().contains("structural context")), "{summary:#}");
    let (found, _) = run(&config, &index, &["search", "north shed", "--mode", "keyword"]);
    assert!(
        found["hits"][0]["context"].as_str().unwrap().starts_with("Device Policy › 3. Storage"),
        "{found:#}"
    );
}

#[test]
fn rerank_api_orders_the_hits_and_a_failure_keeps_the_fused_order() {
    // Scores that reverse whatever order the candidates come in.
    let server = Server::start(|_, seen| {
        let n = seen.body["documents"].as_array().unwrap().len();
        let results: Vec<Value> =
            (0..n).map(|i| json!({"index": i, "relevance_score": i as f64 / n as f64})).collect();
        Reply::Json(200, vec![], json!({"id": "r", "results": results}))
    });
    let dir = tempfile::tempdir().unwrap();
    let (index, config, file) =
        (dir.path().join("index"), dir.path().join("strata.toml"), dir.path().join("policy.md"));
    std::fs::write(&file, POLICY).unwrap();
    std::fs::write(
        &config,
        format!("[rerank]\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\nmax_retries = 0\n", server.url),
    )
    .unwrap();
    run(&config, &index, &["ingest", file.to_str().unwrap()]);
    let ids = |v: &Value| {
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["chunk_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let (plain, _) = run(&config, &index, &["search", "gizmo", "--mode", "keyword"]);
    let (reranked, _) = run(&config, &index, &["search", "gizmo", "--mode", "keyword", "--rerank", "cohere"]);
    let mut reversed = ids(&plain);
    reversed.reverse();
    assert!(reversed.len() >= 3, "{plain:#}");
    assert_eq!(ids(&reranked), reversed);
    assert_eq!(reranked["hits"][0]["legs"]["rerank"]["rank"], 1);
    let request = &server.seen()[0];
    assert_eq!(request.body["query"], "gizmo");
    assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert!(reranked.get("warnings").is_none());

    let down = Server::start(|_, _| Reply::Json(503, vec![], json!({"message": "down"})));
    std::fs::write(
        &config,
        format!("[rerank]\nkind = \"cohere\"\nbase_url = \"{}\"\nmax_retries = 0\n", down.url),
    )
    .unwrap();
    let (fallback, _) = run(&config, &index, &["search", "gizmo", "--mode", "keyword"]);
    assert_eq!(ids(&fallback), ids(&plain), "the fused order stands");
    let warning = fallback["warnings"][0].as_str().unwrap();
    assert!(warning.contains("cohere:rerank-v3.5") && warning.contains("503"), "{warning}");
    let (off, _) = run(&config, &index, &["search", "gizmo", "--mode", "keyword", "--no-rerank"]);
    assert!(off.get("warnings").is_none() && down.count() == 1, "--no-rerank calls nothing");
}

/// Many small documents: their calls overlap across documents, never more than
/// `[context.llm] concurrency` at once, and every chunk gets its model context.
#[test]
fn calls_overlap_across_documents_within_the_concurrency_bound() {
    let server = Server::start(|_, seen| {
        std::thread::sleep(std::time::Duration::from_millis(60));
        anthropic(seen)
    });
    let dir = tempfile::tempdir().unwrap();
    let (index, config) = (dir.path().join("index"), dir.path().join("strata.toml"));
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for i in 0..8 {
        std::fs::write(
            docs.join(format!("note-{i}.md")),
            format!("# Note {i}\n\nA single short paragraph number {i}.\n"),
        )
        .unwrap();
    }
    std::fs::write(
        &config,
        format!(
            "[context]\nkind = \"anthropic\"\n[context.llm]\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\nconcurrency = 3\n",
            server.url
        ),
    )
    .unwrap();
    let (summary, _) = run(&config, &index, &["ingest", docs.to_str().unwrap()]);
    assert_eq!(summary["ingested"], 8, "{summary:#}");
    assert_eq!(summary["contexts"]["written"], summary["chunks"]);
    let peak = server.max_in_flight();
    assert!((2..=3).contains(&peak), "peak of {peak} calls in flight with concurrency 3");
}
