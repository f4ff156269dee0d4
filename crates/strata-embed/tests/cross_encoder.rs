//! The local cross-encoder against transformers' own `BertForSequenceClassification`.
//!
//! No cross-encoder weights can be had here (no package in the reachable registries ships
//! any), so the reference is a model of the ms-marco-MiniLM-L-6-v2 layout (6 layers, 384
//! wide, 12 heads, one label) with random weights drawn by a formula both sides compute:
//! `scripts/cross-encoder-fixture.py` drew them, ran transformers (eager attention, float32)
//! and wrote `tests/fixtures/cross-encoder.json`: the pairs, their token and segment ids, and
//! their logits. This test draws the same weights, writes them as `model.safetensors` with the
//! fixture's `config.json` and all-MiniLM-L6-v2's `tokenizer.json` (the same uncased
//! vocabulary as ms-marco-MiniLM), and checks ids and logits. Needs the model folder and
//! ONNX Runtime from `scripts/fetch-models.sh`; skips without them unless
//! `STRATA_REQUIRE_MODEL=1`.

use std::path::Path;

use serde_json::Value;
use strata_embed::local::LocalOptions;
use strata_embed::rerank::cross_encoder::CrossEncoder;
use strata_model::rerank::{order, Reranker};

#[path = "support/random_cross_encoder.rs"]
mod random_cross_encoder;

use random_cross_encoder::{fixture, write_model};

fn model(dir: &Path, fx: &Value) -> Option<CrossEncoder> {
    if let Err(e) = write_model(dir, fx) {
        if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}");
        }
        eprintln!("skipping: {e}");
        return None;
    }
    Some(
        CrossEncoder::open(dir, LocalOptions { threads: 2, batch_size: 4, ..LocalOptions::default() })
            .unwrap(),
    )
}

#[test]
fn logits_match_transformers_on_a_random_ms_marco_layout_model() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let Some(model) = model(dir.path(), &fx) else { return };
    let pairs = fx["pairs"].as_array().unwrap();
    let ids =
        |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect::<Vec<_>>();
    for (i, p) in pairs.iter().enumerate() {
        let e = model.encode(p["query"].as_str().unwrap(), p["passage"].as_str().unwrap()).unwrap();
        assert_eq!(e.get_ids(), ids(&p["input_ids"]), "pair {i}: token ids");
        assert_eq!(e.get_type_ids(), ids(&p["token_type_ids"]), "pair {i}: segment ids");
    }
    let queries: Vec<&str> = pairs.iter().map(|p| p["query"].as_str().unwrap()).collect();
    let passages: Vec<&str> = pairs.iter().map(|p| p["passage"].as_str().unwrap()).collect();
    let mut worst = 0.0f64;
    // Each pair also padded in a batch with three other passages of other lengths.
    let n = pairs.len();
    let batched: Vec<(usize, f32)> = (0..n)
        .map(|i| {
            let texts: Vec<&str> = (0..4).map(|j| passages[(i + j * 3) % n]).collect();
            (i, model.score(queries[i], &texts).unwrap()[0])
        })
        .collect();
    for (i, p) in pairs.iter().enumerate() {
        let alone = model.score(queries[i], &[passages[i]]).unwrap()[0] as f64;
        let want = p["logit"].as_f64().unwrap();
        let diff = (alone - want).abs();
        worst = worst.max(diff);
        assert!(diff < 5e-6, "pair {i}: logit {alone} vs transformers {want} (diff {diff:e})");
    }
    for (i, s) in batched {
        let want = pairs[i]["logit"].as_f64().unwrap();
        assert!((s as f64 - want).abs() < 5e-6, "pair {i} in a batch: {s} vs {want}");
    }
    eprintln!("largest |logit - transformers| over {} pairs: {worst:e}", pairs.len());
}

#[test]
fn scores_follow_input_order_and_rank_by_logit() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let Some(model) = model(dir.path(), &fx) else { return };
    let passages = ["short one", "a somewhat longer passage about HTTP caching", "mid length text"];
    let scores = model.score("what is caching", &passages).unwrap();
    let reversed: Vec<&str> = passages.iter().rev().copied().collect();
    let mut back = model.score("what is caching", &reversed).unwrap();
    back.reverse();
    for (a, b) in scores.iter().zip(&back) {
        assert!((a - b).abs() < 1e-5, "{scores:?} vs {back:?}");
    }
    assert_eq!(order(&scores).len(), 3);
    assert!(model.score("q", &[]).unwrap().is_empty());
    assert!(model.id().starts_with("cross-encoder:"), "{}", model.id());
}

#[test]
fn a_folder_without_a_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = CrossEncoder::open(dir.path(), LocalOptions::default()).unwrap_err().to_string();
    assert!(err.contains("config.json") && err.contains("cross-encoder"), "{err}");
}
