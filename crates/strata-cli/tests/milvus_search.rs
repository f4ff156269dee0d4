//! The CLI on an index whose vectors are in Milvus answers as it does on the embedded store:
//! the same hits, in the same order, from the same legs, for every search mode, and the same
//! navigation. Dense scores are Milvus's own inner products, equal to strata's within float
//! rounding.
//!
//! Needs a Milvus server in `STRATA_TEST_MILVUS_URL` (`scripts/test.sh` starts one) and the
//! test model; skips with a message without them, fails under `STRATA_REQUIRE_MILVUS=1`.

mod common;

use common::{model_ready, strata_env};
use serde_json::Value;

fn run(index: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let mut env = env.to_vec();
    env.push(("STRATA_DENSE_ENABLED", "true"));
    let out = strata_env(index, &all, &env);
    assert!(out.status.success(), "strata {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// One hit as both stores must give it: chunk id, fused score (six decimals), each leg's
/// rank.
type RankedHit = (String, String, Vec<(String, u64)>);

/// What must be equal between the stores: each hit's chunk, score and legs' ranks.
fn ranking(response: &Value) -> Vec<RankedHit> {
    response["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let legs = h["legs"].as_object().unwrap();
            let ranks = legs.iter().map(|(leg, r)| (leg.clone(), r["rank"].as_u64().unwrap())).collect();
            (
                h["chunk_id"].as_str().unwrap().to_string(),
                format!("{:.6}", h["score"].as_f64().unwrap()),
                ranks,
            )
        })
        .collect()
}

fn dense_scores(response: &Value) -> Vec<f64> {
    response["hits"].as_array().unwrap().iter().filter_map(|h| h["legs"]["dense"]["score"].as_f64()).collect()
}

#[test]
fn a_milvus_backed_index_answers_like_the_embedded_store() {
    let url = match std::env::var("STRATA_TEST_MILVUS_URL") {
        Ok(u) if !u.is_empty() => u,
        _ if std::env::var("STRATA_REQUIRE_MILVUS").as_deref() == Ok("1") => {
            panic!("STRATA_TEST_MILVUS_URL is not set but STRATA_REQUIRE_MILVUS=1")
        }
        _ => {
            eprintln!(
                "skipping: set STRATA_TEST_MILVUS_URL to a Milvus server (scripts/milvus.sh start NAME PORT)"
            );
            return;
        }
    };
    if !model_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (embedded, milvus) = (dir.path().join("embedded"), dir.path().join("milvus"));
    let collection = format!("strata_cli_{}", std::process::id());
    let on_milvus = [
        ("STRATA_STORE", "milvus"),
        ("STRATA_STORE_URL", url.as_str()),
        ("STRATA_STORE_COLLECTION", collection.as_str()),
    ];
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample-agreement.md");
    let a = run(&embedded, &[], &["ingest", sample]);
    let b = run(&milvus, &on_milvus, &["ingest", sample]);
    assert_eq!(a["chunks"], b["chunks"]);
    assert_eq!(b["embedded"], b["chunks"], "every chunk embedded into Milvus");

    for query in ["how long are backups kept", "termination for convenience", "Section 4.2"] {
        for mode in ["dense", "hybrid", "hierarchical", "keyword"] {
            let args = ["search", query, "--mode", mode, "-k", "8"];
            let (x, y) = (run(&embedded, &[], &args), run(&milvus, &on_milvus, &args));
            assert!(!ranking(&x).is_empty(), "{mode} {query:?} finds something");
            assert_eq!(ranking(&x), ranking(&y), "{mode} {query:?}");
            for (s, t) in dense_scores(&x).iter().zip(dense_scores(&y)) {
                assert!((s - t).abs() < 1e-5, "{mode} {query:?}: dense score {s} vs {t}");
            }
        }
    }
    let docs = run(&milvus, &on_milvus, &["docs"]);
    assert_eq!(docs, run(&embedded, &[], &["docs"]));

    // Removing the document removes its vectors: the dense leg finds nothing.
    let id = docs.as_array().unwrap()[0]["id"].as_str().unwrap().to_string();
    run(&milvus, &on_milvus, &["remove", &id]);
    let after = run(&milvus, &on_milvus, &["search", "backups", "--mode", "dense"]);
    assert!(ranking(&after).is_empty(), "{after}");
    let store = strata_milvus::MilvusStore::open(&milvus, &strata_milvus::MilvusOptions::new(&url)).unwrap();
    store.drop_collections().unwrap();
}
