//! What a user says of a document: metadata given to an ingest (`[ingest] metadata`,
//! `strata ingest --meta key=value`) and a sidecar file beside the document
//! (`NAME.meta.json` for `NAME.pdf`, or `NAME.pdf.meta.json`), a JSON object.
//!
//! They go over what the file says of itself (front matter, the PDF info dictionary) and
//! the identity read from its first pages, the sidecar last: the more specific wins.
//!
//! A sidecar's integers that do not fit 64 bits (an account number, a 30-digit id) are kept
//! exactly, as strings: read as JSON numbers they would become floats, `1.2345678901234568e29`.

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
    let map: BTreeMap<String, Value> = serde_json::from_slice(&long_integers_quoted(&bytes))
        .map_err(|e| bad(format!("the sidecar is not a JSON object ({e})")))?;
    if let Some(key) = map.keys().find(|k| !valid_meta_key(k)) {
        return Err(bad(format!("key {key:?} must be 1 to 64 letters, digits, '_', '-' or '.'")));
    }
    Ok(map)
}

/// `json` with every integer that fits neither `i64` nor `u64` written as a string of its
/// digits; untouched (borrowed) when it has none. Numbers inside strings are left alone.
fn long_integers_quoted(json: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let (mut at, mut copied, mut in_string) = (0, 0, false);
    while at < json.len() {
        let b = json[at];
        if in_string {
            match b {
                b'\\' => at += 1,
                b'"' => in_string = false,
                _ => {}
            }
            at += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            at += 1;
            continue;
        }
        if b != b'-' && !b.is_ascii_digit() {
            at += 1;
            continue;
        }
        let end = at
            + json[at..]
                .iter()
                .take_while(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                .count();
        let token = std::str::from_utf8(&json[at..end]).unwrap_or("");
        let integer = token.trim_start_matches('-').bytes().all(|c| c.is_ascii_digit());
        if integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
            let out = out.get_or_insert_with(|| Vec::with_capacity(json.len() + 16));
            out.extend_from_slice(&json[copied..at]);
            out.push(b'"');
            out.extend_from_slice(token.as_bytes());
            out.push(b'"');
            copied = end;
        }
        at = end.max(at + 1);
    }
    match out {
        Some(mut out) => {
            out.extend_from_slice(&json[copied..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(json),
    }
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

    /// Issue 55: a 30-digit integer in a sidecar silently became `1.2345678901234568e29`. It
    /// is kept exactly, as a string; integers that fit 64 bits stay numbers, and digits inside
    /// strings are not touched.
    #[test]
    fn regression_a_30_digit_sidecar_integer_is_kept_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("a.md");
        let json = br#"{"account": 123456789012345678901234567890, "neg": -99999999999999999999,
            "year": 2024, "max": 18446744073709551615, "ratio": 1.5e300, "note": "id 123456789012345678901234567890 \" 1",
            "list": [1, 123456789012345678901234567890]}"#;
        std::fs::write(dir.path().join("a.md.meta.json"), json).unwrap();
        let mut metadata = BTreeMap::new();
        apply(&mut metadata, &BTreeMap::new(), &doc).unwrap();
        assert_eq!(metadata["account"], "123456789012345678901234567890");
        assert_eq!(metadata["neg"], "-99999999999999999999");
        assert_eq!(metadata["year"], 2024);
        assert_eq!(metadata["max"], u64::MAX);
        assert_eq!(metadata["ratio"], 1.5e300);
        assert_eq!(metadata["note"], "id 123456789012345678901234567890 \" 1");
        assert_eq!(metadata["list"], serde_json::json!([1, "123456789012345678901234567890"]));
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
