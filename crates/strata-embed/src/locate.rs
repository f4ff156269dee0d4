//! Finding models and the ONNX Runtime library on disk. Nothing is downloaded at run time:
//! `scripts/fetch-models.sh` puts both into the cache folder once.
//!
//! A model is looked up, in order, as:
//! 1. a path to a model folder;
//! 2. `NAME` inside each folder of `STRATA_MODELS` (`:`-separated);
//! 3. `NAME` inside `CACHE/models`, where `CACHE` is `STRATA_CACHE`, else
//!    `$XDG_CACHE_HOME/strata`, else `~/.cache/strata`;
//! 4. a Hugging Face hub cache that already exists on disk (`HF_HUB_CACHE`, `HF_HOME/hub`,
//!    `~/.cache/huggingface/hub`), as `models--ORG--NAME/snapshots/REV`.

use std::path::{Path, PathBuf};

use strata_core::{Error, Result};

/// The command that fetches models and the runtime, named in every "not found" error.
pub const FETCH_COMMAND: &str = "scripts/fetch-models.sh";

/// strata's cache folder: `STRATA_CACHE`, else `$XDG_CACHE_HOME/strata`, else
/// `~/.cache/strata`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = non_empty_env("STRATA_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = non_empty_env("XDG_CACHE_HOME") {
        return Path::new(&dir).join("strata");
    }
    home().join(".cache").join("strata")
}

/// The folder of model `spec` (a path or a name), or an error that lists where strata looked
/// and names the fetch command.
pub fn find_model(spec: &str) -> Result<PathBuf> {
    let as_path = Path::new(spec);
    if as_path.join("config.json").is_file() {
        return Ok(as_path.to_path_buf());
    }
    let mut looked = Vec::new();
    let name = spec.rsplit('/').next().unwrap_or(spec);
    let mut roots: Vec<PathBuf> =
        non_empty_env("STRATA_MODELS").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    roots.push(cache_dir().join("models"));
    for root in &roots {
        for candidate in [root.join(spec), root.join(name)] {
            if candidate.join("config.json").is_file() {
                return Ok(candidate);
            }
            looked.push(candidate.display().to_string());
        }
    }
    for hub in hub_caches() {
        if let Some(dir) = hub_snapshot(&hub, spec) {
            return Ok(dir);
        }
        looked.push(format!("{}/models--*--{name}", hub.display()));
    }
    looked.dedup();
    Err(Error::user(format!(
        "embedding model {spec:?} not found (looked in: {}). Fetch it with `{FETCH_COMMAND} {name}`, \
         pass --model PATH to a sentence-transformers folder, or turn the dense leg off with \
         `[dense] enabled = false` (STRATA_DENSE_ENABLED=false)",
        looked.join(", ")
    )))
}

/// The ONNX Runtime shared library: `ORT_DYLIB_PATH` when set, else the newest
/// `libonnxruntime.so*` in `CACHE/onnxruntime`.
pub fn find_onnxruntime() -> Result<PathBuf> {
    if let Some(path) = non_empty_env("ORT_DYLIB_PATH") {
        let path = PathBuf::from(path);
        if path.is_file() {
            return Ok(path);
        }
        return Err(Error::user(format!(
            "ORT_DYLIB_PATH={} is not a file; point it at libonnxruntime.so or unset it to use the \
             cache ({FETCH_COMMAND} fetches the library)",
            path.display()
        )));
    }
    let dir = cache_dir().join("onnxruntime");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("libonnxruntime.so") || n == "libonnxruntime.dylib" || n == "onnxruntime.dll"
            })
        })
        .collect();
    found.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
    found.into_iter().next().ok_or_else(|| {
        Error::user(format!(
            "ONNX Runtime library not found in {} and ORT_DYLIB_PATH is unset; fetch it with \
             `{FETCH_COMMAND}` (it unpacks the onnxruntime wheel from PyPI)",
            dir.display()
        ))
    })
}

fn hub_caches() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = non_empty_env("HF_HUB_CACHE") {
        out.push(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty_env("HF_HOME") {
        out.push(Path::new(&dir).join("hub"));
    }
    out.push(home().join(".cache").join("huggingface").join("hub"));
    out
}

/// `models--ORG--NAME/snapshots/REV` for `spec` (`ORG/NAME` or `NAME`): the revision named by
/// `refs/main`, else the only (or last by name) snapshot that has a `config.json`.
fn hub_snapshot(hub: &Path, spec: &str) -> Option<PathBuf> {
    let wanted = format!("--{}", spec.replace('/', "--"));
    let repo = std::fs::read_dir(hub).ok()?.flatten().map(|e| e.path()).find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("models--") && n.ends_with(&wanted))
    })?;
    let snapshots = repo.join("snapshots");
    if let Ok(rev) = std::fs::read_to_string(repo.join("refs").join("main")) {
        let dir = snapshots.join(rev.trim());
        if dir.join("config.json").is_file() {
            return Some(dir);
        }
    }
    let mut revs: Vec<PathBuf> = std::fs::read_dir(&snapshots)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("config.json").is_file())
        .collect();
    revs.sort();
    revs.pop()
}

fn home() -> PathBuf {
    non_empty_env("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."))
}

fn non_empty_env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_snapshot_follows_refs_main() {
        let hub = tempfile::tempdir().unwrap();
        let repo = hub.path().join("models--BAAI--bge-small-en-v1.5");
        for rev in ["aaa", "bbb"] {
            std::fs::create_dir_all(repo.join("snapshots").join(rev)).unwrap();
            std::fs::write(repo.join("snapshots").join(rev).join("config.json"), "{}").unwrap();
        }
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        std::fs::write(repo.join("refs").join("main"), "aaa\n").unwrap();
        let found = hub_snapshot(hub.path(), "bge-small-en-v1.5").unwrap();
        assert!(found.ends_with("snapshots/aaa"), "{}", found.display());
        assert!(hub_snapshot(hub.path(), "BAAI/bge-small-en-v1.5").is_some());
        assert!(hub_snapshot(hub.path(), "e5-small-v2").is_none());
    }
}
