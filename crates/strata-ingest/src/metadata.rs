//! What a user says of a document: metadata given to an ingest (`[ingest] metadata`,
//! `strata ingest --meta key=value`) and a sidecar file beside the document
//! (`NAME.meta.json` for `NAME.pdf`, or `NAME.pdf.meta.json`), a JSON object.
//!
//! They go over what the file says of itself (front matter, the PDF info dictionary) and
//! the identity read from its first pages, the sidecar last: the more specific wins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use strata_core::config::valid_meta_key;
use strata_core::{Error, Result};

/// The largest sidecar read.
const MAX_SIDECAR_BYTES: u64 = 1024 * 1024;

/// The sidecar of `path`, when one exists: `STEM.meta.json`, else `NAME.meta.json`.
pub fn sidecar_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = path.file_stem()?.to_str()?;
    [format!("{stem}.meta.json"), format!("{name}.meta.json")]
        .into_iter()
        .map(|n| path.with_file_name(n))
        .find(|p| p.is_file())
}

/// The entries of the sidecar at `path`: a JSON object whose keys are metadata keys.
pub fn read_sidecar(path: &Path) -> Result<BTreeMap<String, Value>> {
    let bad = |why: String| {
        Error::read(
            path,
            format!("{why}; a sidecar is a JSON object such as {{\"company\": \"Acme\", \"year\": 2024}}"),
        )
    };
    let size = std::fs::metadata(path).map_err(|e| bad(format!("cannot stat the sidecar: {e}")))?.len();
    if size > MAX_SIDECAR_BYTES {
        return Err(bad(format!("the sidecar has {size} bytes, more than {MAX_SIDECAR_BYTES}")));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read the sidecar: {e}")))?;
    let map: BTreeMap<String, Value> =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("the sidecar is not a JSON object ({e})")))?;
    if let Some(key) = map.keys().find(|k| !valid_meta_key(k)) {
        return Err(bad(format!("key {key:?} must be 1 to 64 letters, digits, '_', '-' or '.'")));
    }
    Ok(map)
}

/// Puts `given` (an ingest's metadata) and then the sidecar of `path`, when it has one,
/// over `metadata`. Returns the `title` they give, which names the document.
pub fn apply(
    metadata: &mut BTreeMap<String, Value>,
    given: &BTreeMap<String, String>,
    path: &Path,
) -> Result<Option<String>> {
    let mut user = BTreeMap::new();
    for (key, value) in given {
        user.insert(key.clone(), Value::String(value.clone()));
    }
    if let Some(sidecar) = sidecar_of(path) {
        user.extend(read_sidecar(&sidecar)?);
    }
    let title =
        user.get("title").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()).map(String::from);
    metadata.extend(user);
    Ok(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_goes_over_the_ingest_metadata_over_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("report.pdf");
        std::fs::write(&doc, b"%PDF").unwrap();
        std::fs::write(dir.path().join("report.meta.json"), br#"{"company": "Acme", "year": 2024}"#).unwrap();
        let mut metadata = BTreeMap::from([("company".to_string(), Value::from("from the file"))]);
        let given = BTreeMap::from([
            ("team".to_string(), "legal".to_string()),
            ("year".to_string(), "1999".to_string()),
        ]);
        assert_eq!(apply(&mut metadata, &given, &doc).unwrap(), None);
        assert_eq!(metadata["company"], "Acme");
        assert_eq!(metadata["year"], 2024);
        assert_eq!(metadata["team"], "legal");
    }

    #[test]
    fn a_bad_sidecar_is_an_error_that_names_it_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("a.md");
        let sidecar = dir.path().join("a.md.meta.json");
        for (body, says) in [(&b"[1, 2]"[..], "not a JSON object"), (br#"{"bad key": 1}"#, "bad key")] {
            std::fs::write(&sidecar, body).unwrap();
            let err = apply(&mut BTreeMap::new(), &BTreeMap::new(), &doc).unwrap_err().to_string();
            assert!(
                err.contains("a.md.meta.json") && err.contains(says) && err.contains("JSON object such as"),
                "{err}"
            );
        }
        std::fs::remove_file(&sidecar).unwrap();
        assert!(apply(&mut BTreeMap::new(), &BTreeMap::new(), &doc).is_ok(), "no sidecar, nothing to add");
    }
}
