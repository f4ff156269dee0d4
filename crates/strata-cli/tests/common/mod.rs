//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod served;

/// The shared corpus, or `None` (and a printed reason) when it is absent.
pub fn corpus() -> Option<PathBuf> {
    strata_core::testdata::shared("corpus/MANIFEST.tsv").and_then(|m| m.parent().map(Path::to_path_buf))
}

/// Runs `strata --index INDEX ARGS…` and returns its output.
pub fn strata(index: &Path, args: &[&str]) -> Output {
    strata_env(index, args, &[])
}

/// Runs strata with extra environment variables. The dense leg is off unless `env` turns it
/// on (`STRATA_DENSE_ENABLED=true`): embedding the corpus would take minutes, and only
/// `tests/dense.rs` is about it.
pub fn strata_env(index: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.arg("--index").arg(index).args(args);
    cmd.env_remove("STRATA_INDEX").env_remove("STRATA_CONFIG").env("STRATA_DENSE_ENABLED", "false");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("running strata")
}

/// Runs strata with `--json` and parses stdout, asserting success.
pub fn json(index: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = strata(index, &all);
    assert!(
        out.status.success(),
        "strata {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Whether the test model and ONNX Runtime are in the cache: false (with the reason printed)
/// when they are not, a panic instead under `STRATA_REQUIRE_MODEL=1` (set by
/// `scripts/test.sh`), so CI cannot skip the model-backed tests.
pub fn model_ready() -> bool {
    let found = strata_embed::locate::find_model("all-MiniLM-L6-v2")
        .and_then(|_| strata_embed::locate::find_onnxruntime());
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

/// A temporary index that a test binary ingests once and shares between its tests.
pub struct Ingested {
    pub _dir: tempfile::TempDir,
    /// The index folder.
    pub index: PathBuf,
}

/// Ingests `parts` of the shared corpus (files or folders, relative to it) into a new
/// temporary index with the dense leg off, asserting that no file failed; `None` (and a
/// printed reason) when the corpus is absent.
pub fn ingest_corpus(parts: &[&str]) -> Option<Ingested> {
    let corpus = corpus()?;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let paths: Vec<String> = parts.iter().map(|p| corpus.join(p).display().to_string()).collect();
    let mut args = vec!["ingest"];
    args.extend(paths.iter().map(String::as_str));
    let summary = json(&index, &args);
    assert_eq!(summary["failed"], 0, "{summary:#}");
    eprintln!(
        "ingested {} files, {} chunks in {:.2}s",
        summary["ingested"],
        summary["chunks"],
        summary["seconds"].as_f64().unwrap()
    );
    Some(Ingested { _dir: dir, index })
}
