//! The random-weight cross-encoder of `tests/fixtures/cross-encoder.json`: its generator
//! (the same formula `scripts/cross-encoder-fixture.py` drew the weights with) and a writer
//! for its model folder. Shared by `tests/cross_encoder.rs` and `benches/rerank.rs`: the
//! model has the ms-marco-MiniLM-L-6-v2 layout, so it costs what the real one costs.
#![allow(dead_code)]

use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};
use serde_json::Value;
use strata_embed::locate;

/// The fixture: config, tensor names and shapes, pairs and transformers' logits.
pub fn fixture() -> Value {
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

/// Writes the random model folder `dir` (`config.json`, `model.safetensors`, and
/// all-MiniLM-L6-v2's `tokenizer.json`); an error when that tokenizer or ONNX Runtime is not
/// at hand.
pub fn write_model(dir: &Path, fx: &Value) -> Result<(), String> {
    let minilm = locate::find_model("all-MiniLM-L6-v2").map_err(|e| e.to_string())?;
    locate::find_onnxruntime().map_err(|e| e.to_string())?;
    std::fs::copy(minilm.join("tokenizer.json"), dir.join("tokenizer.json")).unwrap();
    std::fs::write(dir.join("config.json"), fx["config"].to_string()).unwrap();
    let scale = fx["generator"]["scale"].as_f64().unwrap();
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for t in fx["tensors"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let shape: Vec<usize> =
            t["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        let values = generate(name, shape.iter().product(), scale);
        // The generator port agrees with numpy's.
        let first3: Vec<f32> =
            t["first3"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        assert_eq!(&values[..first3.len()], &first3[..], "{name}");
        let sum: f64 = values.iter().map(|&v| v as f64).sum();
        let want = t["sum"].as_f64().unwrap();
        assert!((sum - want).abs() <= 1e-6 * want.abs().max(1.0), "{name}: sum {sum} vs {want}");
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        tensors.push((name.to_string(), shape, bytes));
    }
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, shape, bytes)| {
            (name.clone(), TensorView::new(Dtype::F32, shape.clone(), bytes).unwrap())
        })
        .collect();
    safetensors::tensor::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();
    Ok(())
}
