//! The code versions in the local embedder's cache id are raised when its output changes.
//!
//! A vector's cache id names the code that computed it (`GRAPH_VERSION` in `local/graph.rs`,
//! `QUANTIZE_VERSION` in `local/quantize.rs`), so that vectors of older code miss. The
//! constants are raised by hand; this test holds them to it. `tests/fixtures/code-versions.json`
//! records, per precision and versions, the first values of the test model's vector of a fixed
//! text. When the output moves while the versions stay, or the versions move with nothing
//! recorded for them, it fails and prints what to record.
//!
//! Needs the model and ONNX Runtime (`scripts/fetch-models.sh`; a failure under
//! `STRATA_REQUIRE_MODEL=1`, else a skip). The int8 graph is checked where the CPU has VNNI.

use serde_json::{json, Value};
use strata_embed::local::graph::GRAPH_VERSION;
use strata_embed::local::quantize::QUANTIZE_VERSION;
use strata_embed::local::{has_vnni, LocalEmbedder, LocalOptions, Precision};
use strata_embed::locate;
use strata_model::Embedder;

const MODEL: &str = "all-MiniLM-L6-v2";
/// Values of the vector recorded and compared.
const HEAD: usize = 16;
/// What a value may move by between machines (ONNX Runtime's kernels differ in their last
/// bits across CPUs); a change of code moves values by far more.
const TOLERANCE: f32 = 1e-5;

fn fixture() -> (String, Value) {
    let path = format!("{}/tests/fixtures/code-versions.json", env!("CARGO_MANIFEST_DIR"));
    (path.clone(), serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap())
}

fn available() -> bool {
    let found = locate::find_model(MODEL).and_then(|_| locate::find_onnxruntime());
    match found {
        Ok(_) => true,
        Err(e) if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") => {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            false
        }
    }
}

/// The versions of the code that computes a vector in `precision`.
fn versions(precision: Precision) -> Value {
    match precision {
        Precision::Fp32 => json!({"graph": GRAPH_VERSION}),
        Precision::Int8 => json!({"graph": GRAPH_VERSION, "quantize": QUANTIZE_VERSION}),
    }
}

#[test]
fn the_code_version_is_raised_when_the_output_changes() {
    if !available() {
        return;
    }
    let (path, fixture) = fixture();
    let text = fixture["text"].as_str().unwrap();
    let mut precisions = vec![Precision::Fp32];
    if has_vnni() {
        precisions.push(Precision::Int8);
    } else {
        eprintln!("no VNNI on this CPU: the int8 output is not checked");
    }
    for precision in precisions {
        let options = LocalOptions { threads: 1, lanes: 1, precision, ..LocalOptions::default() };
        let embedder = LocalEmbedder::open(MODEL, options).unwrap();
        let got: Vec<f32> = embedder.embed_passages(&[text]).unwrap().row(0)[..HEAD].to_vec();
        let name = format!("{precision:?}").to_lowercase();
        let record = json!({"precision": name, "versions": versions(precision), "head": got});
        let recorded = fixture["recorded"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["precision"] == name.as_str() && r["versions"] == versions(precision));
        let Some(recorded) = recorded else {
            panic!(
                "{path} has no {name} output for the code versions {}; add\n{record}",
                versions(precision)
            );
        };
        let want: Vec<f32> =
            recorded["head"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let moved = got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0f32, f32::max);
        assert!(
            moved <= TOLERANCE,
            "the {name} output on a fixed text moved by {moved}, but the code versions {} did not: raise \
             GRAPH_VERSION (local/graph.rs) or QUANTIZE_VERSION (local/quantize.rs), whichever code changed, \
             so that vectors of the old code miss the cache, and add to {path}\n{record}",
            versions(precision)
        );
    }
}
