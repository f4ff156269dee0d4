//! The local embedder against reference vectors computed once with sentence-transformers
//! (`tests/fixtures/*.json`, see `made_with` inside). Needs the model and ONNX Runtime in the
//! cache (`scripts/fetch-models.sh`); skips with a message when they are absent, unless
//! `STRATA_REQUIRE_MODEL=1` (set by `scripts/test.sh`), which turns the skip into a failure.

use strata_embed::local::{LocalEmbedder, LocalOptions};
use strata_embed::locate;
use strata_model::{Embedder, Pooling};

struct Reference {
    model: String,
    max_seq_length: usize,
    passages: Vec<(String, Vec<f32>)>,
}

fn reference(name: &str) -> Reference {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    Reference {
        model: v["model"].as_str().unwrap().to_string(),
        max_seq_length: v["max_seq_length"].as_u64().unwrap() as usize,
        passages: v["passages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let vector =
                    p["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
                (p["text"].as_str().unwrap().to_string(), vector)
            })
            .collect(),
    }
}

fn embedder(name: &str) -> Option<LocalEmbedder> {
    let found = locate::find_model(name).and_then(|_| locate::find_onnxruntime());
    if let Err(e) = found {
        if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}");
        }
        eprintln!("skipping: {e}");
        return None;
    }
    Some(LocalEmbedder::open(name, LocalOptions::default()).unwrap())
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn minilm_matches_sentence_transformers() {
    let reference = reference("all-MiniLM-L6-v2");
    let Some(embedder) = embedder(&reference.model) else { return };
    let info = embedder.info();
    assert_eq!(info.dim, 384);
    assert_eq!(info.max_seq_len, reference.max_seq_length);
    assert_eq!(info.pooling, Pooling::Mean);
    let texts: Vec<&str> = reference.passages.iter().map(|(t, _)| t.as_str()).collect();
    let got = embedder.embed_passages(&texts).unwrap();
    assert_eq!(got.len(), texts.len());
    for (i, (text, want)) in reference.passages.iter().enumerate() {
        let cos = cosine(got.row(i), want);
        assert!(cos >= 0.999, "cosine {cos} < 0.999 for {:?}", &text[..text.len().min(60)]);
        let norm: f32 = got.row(i).iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "row {i} has norm {norm}");
    }
    // The long passage (20 sentences) is the only one past the 256-token window.
    let long = reference.passages.iter().position(|(t, _)| t.len() > 1000).unwrap();
    assert_eq!(got.truncated(), &[long]);
}

#[test]
fn batching_and_order_do_not_change_vectors() {
    let reference = reference("all-MiniLM-L6-v2");
    let Some(embedder) = embedder(&reference.model) else { return };
    let texts: Vec<&str> = reference.passages.iter().map(|(t, _)| t.as_str()).collect();
    let together = embedder.embed_passages(&texts).unwrap();
    for (i, text) in texts.iter().enumerate() {
        let alone = embedder.embed_query(text).unwrap();
        let cos = cosine(&alone, together.row(i));
        assert!(cos > 0.99999, "text {i}: alone vs in a padded batch cosine {cos}");
    }
    assert!(embedder.embed_passages(&[]).unwrap().is_empty());
}

/// A copy of the test model's folder, the files a load reads.
fn model_copy(name: &str) -> Option<tempfile::TempDir> {
    let found = locate::find_model(name).and_then(|dir| locate::find_onnxruntime().map(|_| dir));
    let dir = match found {
        Ok(dir) => dir,
        Err(e) if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") => {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            return None;
        }
    };
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&dir, copy.path());
    Some(copy)
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The local embedder hashed its model files at the first ingest, not the bytes it loaded
/// (issue 54): weights changed in place after the load stored old-weight vectors under the
/// new weights' id, and a folder moved away made every ingest fail.
#[test]
fn regression_a_model_folder_changed_in_place_is_another_cache_id() {
    let Some(copy) = model_copy("all-MiniLM-L6-v2") else { return };
    let options = LocalOptions { threads: 1, ..LocalOptions::default() };
    let first = LocalEmbedder::open_dir(copy.path(), options).unwrap();
    let loaded = first.cache_id().unwrap().expect("a local model declares its cache id");
    // One byte of the last tensor's data: still a valid file, other weights.
    let weights = copy.path().join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&weights, &bytes).unwrap();
    assert_eq!(first.cache_id().unwrap().as_deref(), Some(loaded.as_str()), "the id is of the bytes loaded");
    let second = LocalEmbedder::open_dir(copy.path(), options).unwrap();
    assert_ne!(second.cache_id().unwrap().as_deref(), Some(loaded.as_str()), "new weights, new id");
    // The folder gone after the load: the embedder still names what it loaded.
    let path = copy.path().to_path_buf();
    drop(copy);
    assert!(!path.exists());
    assert_eq!(first.cache_id().unwrap().as_deref(), Some(loaded.as_str()));
    assert_eq!(first.embed_passages(&["still works"]).unwrap().len(), 1);
}
