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

use safetensors::tensor::{Dtype, TensorView};
use serde_json::Value;
use strata_embed::local::LocalOptions;
use strata_embed::locate;
use strata_embed::rerank::cross_encoder::CrossEncoder;
use strata_embed::rerank::{order, Reranker};

fn fixture() -> Value {
    let path = format!("{}/tests/fixtures/cross-encoder.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The fixture's generator: the values of tensor `name` with `n` elements.
fn generate(name: &str, n: usize, scale: f64) -> Vec<f32> {
    let seed = fnv1a64(name.as_bytes());
    let offset = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.0 };
    (0..n as u64)
        .map(|i| {
            let u = (splitmix64(seed.wrapping_add(i)) >> 40) as f64 / 16_777_216.0;
            ((2.0 * u - 1.0) * scale + offset) as f32
        })
        .collect()
}

/// Writes the random model folder; returns false when the tokenizer is not at hand.
fn write_model(dir: &Path, fx: &Value) -> Result<(), String> {
    let minilm = locate::find_model("all-MiniLM-L6-v2").map_err(|e| e.to_string())?;
    locate::find_onnxruntime().map_err(|e| e.to_string())?;
    std::fs::copy(minilm.join("tokenizer.json"), dir.join("tokenizer.json")).unwrap();
    std::fs::write(dir.join("config.json"), fx["config"].to_string()).unwrap();
    let scale = fx["generator"]["scale"].as_f64().unwrap();
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for t in fx["tensors"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let shape: Vec<usize> = t["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        let values = generate(name, shape.iter().product(), scale);
        // The generator port agrees with numpy's.
        let first3: Vec<f32> = t["first3"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        assert_eq!(&values[..first3.len()], &first3[..], "{name}");
        let sum: f64 = values.iter().map(|&v| v as f64).sum();
        let want = t["sum"].as_f64().unwrap();
        assert!((sum - want).abs() <= 1e-6 * want.abs().max(1.0), "{name}: sum {sum} vs {want}");
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        tensors.push((name.to_string(), shape, bytes));
    }
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, shape, bytes)| (name.clone(), TensorView::new(Dtype::F32, shape.clone(), bytes).unwrap()))
        .collect();
    safetensors::tensor::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();
    Ok(())
}

fn model(dir: &Path, fx: &Value) -> Option<CrossEncoder> {
    if let Err(e) = write_model(dir, fx) {
        if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}");
        }
        eprintln!("skipping: {e}");
        return None;
    }
    Some(CrossEncoder::open(dir, LocalOptions { threads: 2, batch_size: 4 }).unwrap())
}

#[test]
fn logits_match_transformers_on_a_random_ms_marco_layout_model() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let Some(model) = model(dir.path(), &fx) else { return };
    let pairs = fx["pairs"].as_array().unwrap();
    let ids = |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect::<Vec<_>>();
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
