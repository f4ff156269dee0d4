//! The index's vector cache end to end, with the real model: `ingest --force` embeds
//! nothing, an edited document re-embeds only the chunks whose embedded text changed, and
//! the index it leaves answers as a fresh ingest of the edited document does.
//!
//! Needs all-MiniLM-L6-v2 and ONNX Runtime in the cache (`scripts/fetch-models.sh`) and the
//! shared corpus; skips with a message without them, unless `STRATA_REQUIRE_MODEL=1`.

mod common;

use std::path::Path;

use common::{corpus, model_ready, strata_env};
use serde_json::Value;
use tempfile::TempDir;

const DENSE: (&str, &str) = ("STRATA_DENSE_ENABLED", "true");

fn run_json(index: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = strata_env(index, &all, &[DENSE]);
    assert!(out.status.success(), "strata {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn counts(summary: &Value) -> (u64, u64, u64) {
    let n = |k: &str| summary[k].as_u64().unwrap_or_else(|| panic!("{k} in {summary}"));
    (n("chunks"), n("embedded"), n("reused"))
}

/// Each hit as (chunk id, dense score, fused score), for comparing two indexes' answers.
fn answers(index: &Path, query: &str, mode: &str) -> Vec<(String, f64, f64)> {
    let response = run_json(index, &["search", query, "--mode", mode, "-k", "8"]);
    response["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let dense = h["legs"]["dense"]["score"].as_f64().unwrap_or(f64::NAN);
            (h["chunk_id"].as_str().unwrap().to_string(), dense, h["score"].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn an_edited_document_re_embeds_only_its_changed_chunks_and_answers_as_a_fresh_ingest() {
    let Some(corpus) = corpus() else { return };
    if !model_ready() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let original =
        std::fs::read_to_string(corpus.join("markdown/rust-book-ch19-03-pattern-syntax.md")).unwrap();
    let file = dir.path().join("patterns.md");
    std::fs::write(&file, &original).unwrap();
    let file = file.to_str().unwrap();
    let (edited, fresh) = (dir.path().join("edited"), dir.path().join("fresh"));

    let first = run_json(&edited, &["ingest", file]);
    let (chunks, embedded, reused) = counts(&first);
    assert!(chunks > 20, "{first}");
    assert_eq!(embedded + reused, chunks, "{first}");
    assert!(reused <= 2, "only repeated texts are reused in a new index: {first}");

    let again = run_json(&edited, &["ingest", "--force", file]);
    assert_eq!(counts(&again), (chunks, 0, chunks), "a forced re-ingest embeds nothing: {again}");

    // One sentence of a paragraph far into the document changes.
    let at = original[original.len() * 3 / 4..].find("\n\n").unwrap() + original.len() * 3 / 4 + 2;
    let mut changed = original.clone();
    changed.insert_str(at, "This sentence was added by an edit. ");
    std::fs::write(file, &changed).unwrap();
    let edit = run_json(&edited, &["ingest", file]);
    let (chunks, embedded, reused) = counts(&edit);
    assert!((1..=3).contains(&embedded), "the edited chunks only: {edit}");
    assert_eq!(embedded + reused, chunks);

    run_json(&fresh, &["ingest", file]);
    for query in ["binding a value to a name with @", "ignoring parts of a value", "match guards"] {
        for mode in ["dense", "hybrid", "hierarchical"] {
            let (a, b) = (answers(&edited, query, mode), answers(&fresh, query, mode));
            assert_eq!(a.len(), b.len(), "{query} in {mode}");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.0, y.0, "{query} in {mode}: {a:?} against {b:?}");
                let close = |p: f64, q: f64| (p.is_nan() && q.is_nan()) || (p - q).abs() < 1e-5;
                assert!(close(x.1, y.1) && close(x.2, y.2), "{query} in {mode}: {x:?} against {y:?}");
            }
        }
    }
}

/// `[dense] vector_cache = false` (issue 54): nothing is looked up in the index and nothing
/// kept, so a forced re-ingest embeds every chunk again.
#[test]
fn the_vector_cache_turned_off_embeds_everything_and_keeps_nothing() {
    if !model_ready() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample-agreement.md");
    let index = dir.path().join("index");
    let ingest = |cache: &str| {
        let args = ["--json", "ingest", "--force", sample];
        let out = strata_env(&index, &args, &[DENSE, ("STRATA_DENSE_VECTOR_CACHE", cache)]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        counts(&serde_json::from_slice(&out.stdout).unwrap())
    };
    let (chunks, embedded, _) = ingest("false");
    assert_eq!(embedded, chunks, "no repeated text in the sample");
    assert_eq!(ingest("false"), (chunks, chunks, 0), "off: nothing is looked up");
    assert_eq!(ingest("true"), (chunks, chunks, 0), "off kept nothing for the next ingest");
    assert_eq!(ingest("true"), (chunks, 0, chunks), "on: every vector is reused");
}

/// A text embedded with another precision, or by another model's folder of the same name,
/// is a miss, not the first vectors: the cache id holds the precision and hashes the
/// model's files.
#[test]
fn another_precision_or_model_misses_the_cache() {
    if !model_ready() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample-agreement.md");
    let index = dir.path().join("index");
    let ingest = |extra: &[&str], precision: &str| {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        args.extend(["ingest", "--force", sample]);
        let out = strata_env(&index, &args, &[DENSE, ("STRATA_DENSE_PRECISION", precision)]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        counts(&serde_json::from_slice(&out.stdout).unwrap())
    };
    let (chunks, _, reused) = ingest(&[], "fp32");
    assert_eq!(reused, 0);
    assert_eq!(ingest(&[], "fp32"), (chunks, 0, chunks), "the same precision reuses every vector");
    let int8 = ingest(&[], "int8");
    match strata_embed::local::has_vnni() {
        true => assert_eq!(int8, (chunks, chunks, 0), "int8 vectors are not fp32's"),
        // Without VNNI, `int8` runs fp32: the same arithmetic, the same vectors.
        false => assert_eq!(int8, (chunks, 0, chunks)),
    }

    // Other weights (one mantissa bit of the last tensor) in a folder of the same name: the
    // same tokenizer, so the index takes it, and the same model id, so only the cache id
    // tells the vectors apart.
    let model = strata_embed::locate::find_model("all-MiniLM-L6-v2").unwrap();
    let copy = dir.path().join("models").join("all-MiniLM-L6-v2");
    for file in walk(&model) {
        let to = copy.join(file.strip_prefix(&model).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    let weights = copy.join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 4;
    bytes[last] ^= 1;
    std::fs::write(&weights, bytes).unwrap();
    let copy = copy.to_str().unwrap();
    assert_eq!(ingest(&["--model", copy], "int8"), (chunks, chunks, 0), "another model's files");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
