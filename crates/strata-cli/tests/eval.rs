//! `strata eval` through the binary: the shared Anthropic set with the real model (given
//! chunks, a slice of the queries), and clear errors for bad data sets. Model-backed parts
//! skip with a message without the model, unless `STRATA_REQUIRE_MODEL=1`.

mod common;

use common::{model_ready, strata_env};
use serde_json::Value;
use tempfile::TempDir;

#[test]
fn eval_on_the_anthropic_set_reports_every_leg_next_to_the_published_rows() {
    let Some(set) = strata_core::testdata::shared("eval/anthropic-codebase") else { return };
    if !model_ready() {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("report");
    let out_s = out.to_str().unwrap();
    let args = [
        "--json",
        "eval",
        set.to_str().unwrap(),
        "--chunking",
        "given",
        "--strategies",
        "keyword,dense,hybrid,hierarchical",
        "--limit",
        "24",
        "--out",
        out_s,
    ];
    let run = strata_env(&tmp.path().join("unused"), &args, &[("STRATA_DENSE_ENABLED", "true")]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["queries"], 24);
    assert_eq!(report["model"], "all-MiniLM-L6-v2");
    let rows = report["rows"].as_array().unwrap();
    let recall = |strategy: &str| {
        rows.iter().find(|r| r["strategy"] == strategy).unwrap()["metrics"]["recall@20"].as_f64()
    };
    // Each leg finds most gold chunks within 20 of 737; hybrid at least as many as keyword.
    for strategy in ["keyword", "dense", "hybrid"] {
        let r = recall(strategy).unwrap_or_else(|| panic!("{strategy} has no recall@20"));
        assert!(r > 0.5, "{strategy}: recall@20 {r}");
    }
    assert!(recall("hybrid").unwrap() >= recall("keyword").unwrap());
    // Hierarchical: hybrid's chunks, lifted by the sections a query names (code files have
    // no headings, so no file is capped).
    let hierarchical = rows.iter().find(|r| r["strategy"] == "hierarchical").unwrap();
    assert!(hierarchical["refused"].is_null());
    assert!(hierarchical["metrics"]["recall@5"].as_f64().unwrap() > 0.5, "{hierarchical}");
    assert_eq!(report["ingests"]["given"]["chunks"], 737);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("published: voyage-2 embeddings | 0.809 | 0.872 | 0.901"), "{md}");
    for file in ["report.html", "recall.png", "recall.svg", "latency.png", "latency.svg"] {
        assert!(out.join(file).exists(), "{file}");
    }
}

/// `strata eval --vector-cache` had no end-to-end test (issue 54): a second run over the
/// same folder embeds nothing and reports exactly the first run's metrics.
#[test]
fn a_second_eval_over_one_vector_cache_embeds_nothing_and_repeats_the_metrics() {
    let Some(set) = strata_core::testdata::shared("eval/anthropic-codebase") else { return };
    if !model_ready() {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let cache = tmp.path().join("vectors");
    let run = |name: &str| {
        let out = tmp.path().join(name);
        let args = [
            "eval",
            set.to_str().unwrap(),
            "--chunking",
            "given",
            "--strategies",
            "dense,hybrid",
            "--limit",
            "12",
            "--vector-cache",
            cache.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        let run = strata_env(&tmp.path().join("unused"), &args, &[("STRATA_DENSE_ENABLED", "true")]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
        let ingest = &report["ingests"]["given"];
        let metrics: Vec<Value> =
            report["rows"].as_array().unwrap().iter().map(|r| r["metrics"].clone()).collect();
        (ingest["embedded"].as_u64().unwrap(), ingest["reused"].as_u64().unwrap(), metrics)
    };
    let (embedded, reused, first) = run("first");
    assert_eq!(embedded + reused, 737);
    assert!(embedded > 700, "a new cache holds nothing: {embedded} embedded");
    let (embedded, reused, second) = run("second");
    assert_eq!((embedded, reused), (0, 737), "every vector from the cache");
    assert_eq!(first, second, "the same vectors, the same metrics");
}

#[test]
fn eval_of_something_that_is_not_a_data_set_says_what_it_expected() {
    let tmp = TempDir::new().unwrap();
    let run = strata_env(tmp.path(), &["eval", tmp.path().to_str().unwrap()], &[]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("not a known data set layout") && err.contains("questions_df.csv"), "{err}");
    let run = strata_env(tmp.path(), &["eval", "/nonexistent/set.jsonl"], &[]);
    assert!(String::from_utf8_lossy(&run.stderr).contains("no such file"));
}

#[test]
fn eval_of_a_bare_file_name_reads_documents_beside_it() {
    let tmp = TempDir::new().unwrap();
    std::fs::write(tmp.path().join("a.md"), "# A\n\nThe lighthouse keeper logs every ship.\n").unwrap();
    std::fs::write(
        tmp.path().join("q.jsonl"),
        r#"{"query": "lighthouse keeper", "gold": [{"doc": "a.md"}]}"#,
    )
    .unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(tmp.path())
        .args(["--json", "eval", "q.jsonl", "--strategies", "keyword", "-q"])
        .env("STRATA_DENSE_ENABLED", "false")
        .env_remove("STRATA_INDEX")
        .env_remove("STRATA_CONFIG")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("eval-out/q/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["rows"][0]["metrics"]["recall@1"], 1.0);
    // A second run does not ingest the first one's reports.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(tmp.path())
        .args(["--json", "eval", "q.jsonl", "--strategies", "keyword", "-q"])
        .env("STRATA_DENSE_ENABLED", "false")
        .output()
        .unwrap();
    assert!(again.status.success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("eval-out/q/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["documents"], 1);
}
