//! Data set formats. Each adapter turns a folder or file into a [`Dataset`]; `load` picks
//! the adapter from what the path holds:
//!
//! | path holds | adapter |
//! |---|---|
//! | `codebase_chunks.json` + `evaluation_set.jsonl` | [`anthropic`] (pre-split code files) |
//! | `questions_df.csv` + `corpora/` | [`chroma`] (gold character spans) |
//! | `corpus.jsonl` + `queries.jsonl` + `qrels/` | [`beir`] |
//! | a `.jsonl` file | [`jsonl`], strata's own format (documents from a folder) |

pub mod anthropic;
pub mod beir;
pub mod chroma;
pub mod jsonl;

use std::path::{Path, PathBuf};

use strata_core::{Error, Result};

use crate::dataset::Dataset;

/// Options some adapters take.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Folder of the documents a JSONL file's gold names (default: the file's folder).
    pub docs: Option<PathBuf>,
    /// BEIR qrels split (`test` by default).
    pub split: Option<String>,
}

/// Loads the data set at `path`, choosing the adapter by what is there, or by `format`
/// (`anthropic`, `chroma`, `beir`, `jsonl`).
pub fn load(path: &Path, format: Option<&str>, options: &LoadOptions) -> Result<Dataset> {
    let format = match format {
        Some(f) => f.to_string(),
        None => detect(path)?.to_string(),
    };
    let dataset = match format.as_str() {
        "anthropic" => anthropic::load(path)?,
        "chroma" => chroma::load(path)?,
        "beir" => beir::load(path, options.split.as_deref().unwrap_or("test"))?,
        "jsonl" => jsonl::load(path, options.docs.as_deref())?,
        other => {
            return Err(Error::user(format!(
                "unknown data set format {other:?}; use anthropic, chroma, beir or jsonl"
            )))
        }
    };
    dataset.validate().map_err(|e| Error::user(format!("{}: {e}", path.display())))?;
    Ok(dataset)
}

fn detect(path: &Path) -> Result<&'static str> {
    let has = |name: &str| path.join(name).exists();
    if path.is_file() {
        return match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => Ok("jsonl"),
            _ => Err(Error::user(format!(
                "{}: a data set file must be .jsonl (see README, \"Evaluation\"); folders may hold the \
                 anthropic, chroma or BEIR layouts",
                path.display()
            ))),
        };
    }
    if has("codebase_chunks.json") && has("evaluation_set.jsonl") {
        Ok("anthropic")
    } else if has("questions_df.csv") && has("corpora") {
        Ok("chroma")
    } else if has("corpus.jsonl") && has("queries.jsonl") {
        Ok("beir")
    } else if path.exists() {
        Err(Error::user(format!(
            "{}: not a known data set layout (expected codebase_chunks.json + evaluation_set.jsonl, \
             questions_df.csv + corpora/, corpus.jsonl + queries.jsonl + qrels/, or a .jsonl file)",
            path.display()
        )))
    } else {
        Err(Error::user(format!("{}: no such file or folder", path.display())))
    }
}

/// Reads a file whole, with an error that names it.
pub(crate) fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))
}

/// Parses one JSON line, with an error that names the file and line.
pub(crate) fn parse_line<T: serde::de::DeserializeOwned>(path: &Path, n: usize, line: &str) -> Result<T> {
    serde_json::from_str(line).map_err(|e| Error::user(format!("{}:{}: {e}", path.display(), n + 1)))
}

/// Byte span of code points `start..end` of `text` (indexed by `chars`), or an error naming
/// `what`.
pub(crate) fn char_span(
    text: &str,
    chars: &crate::align::CharIndex,
    start: usize,
    end: usize,
    what: &str,
) -> Result<strata_core::Span> {
    let n = chars.char_of(text, text.len());
    if start > end || end > n {
        return Err(Error::user(format!(
            "{what}: character span {start}..{end} is outside the text ({n} characters)"
        )));
    }
    Ok(strata_core::Span::new(chars.byte_of(text, start), chars.byte_of(text, end)))
}
