//! The index manifest: what an index was built with, checked on every open.

use std::path::Path;

use serde::{Deserialize, Serialize};
use strata_core::{Error, Result};

/// On-disk format version of the embedded store. Bump it on any incompatible change and keep
/// a fixture of the old format in `tests/compat` if it must still open.
///
/// - 1: records of documents, texts, chunks and definitions.
/// - 2: also one `section` record per tree node, with BM25 fields of its own (the section
///   leg). Format 1 indexes still open and are written as format 1; their section leg finds
///   nothing until they are re-created.
pub const FORMAT_VERSION: u32 = 2;

/// The oldest format this strata opens.
pub const MIN_FORMAT_VERSION: u32 = 1;

/// File name of the manifest inside the index folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// What an index was built with. Opening it with other settings is a clear error instead of
/// silently mixing incompatible chunks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Tokenizer id (`cl100k_base`, `hf:…@hash`).
    pub tokenizer: String,
    /// `chunk.max_tokens`.
    pub max_tokens: usize,
    /// `chunk.overlap`.
    pub overlap: usize,
    /// strata version that created the index.
    pub created_by: String,
    /// The embedding model of the index's vectors, once it has any. Vectors of another model
    /// are refused, and a query must be embedded with this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseManifest>,
}

/// The embedding model an index's vectors were made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenseManifest {
    /// Model id, as the embedder reports it.
    pub model: String,
    /// Vector dimension.
    pub dim: usize,
}

impl Manifest {
    /// A manifest for new settings.
    pub fn new(tokenizer: &str, max_tokens: usize, overlap: usize) -> Manifest {
        Manifest {
            format_version: FORMAT_VERSION,
            tokenizer: tokenizer.to_string(),
            max_tokens,
            overlap,
            created_by: concat!("strata ", env!("CARGO_PKG_VERSION")).to_string(),
            dense: None,
        }
    }

    /// Reads the manifest of an index folder.
    pub fn read(dir: &Path) -> Result<Option<Manifest>> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        let manifest: Manifest = serde_json::from_str(&text).map_err(|e| Error::Index {
            path: dir.to_path_buf(),
            reason: format!(
                "{MANIFEST_FILE} is damaged ({e}); restore it from a backup or re-create the index"
            ),
        })?;
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&manifest.format_version) {
            return Err(Error::Index {
                path: dir.to_path_buf(),
                reason: format!(
                    "format version {} is not supported by this strata (formats {MIN_FORMAT_VERSION} to {FORMAT_VERSION}); re-create the index with this version",
                    manifest.format_version
                ),
            });
        }
        Ok(Some(manifest))
    }

    /// Writes the manifest atomically (temp file, fsync, rename).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::Internal(e.to_string()))?;
        let io = |e| Error::io(format!("writing {}", tmp.display()), e);
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            f.write_all(text.as_bytes()).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, dir.join(MANIFEST_FILE)).map_err(io)?;
        Ok(())
    }

    /// Checks that vectors of `model` (dimension `dim`) may be added to or searched in this
    /// index.
    pub fn check_dense(&self, model: &str, dim: usize, dir: &Path) -> Result<()> {
        match &self.dense {
            Some(d) if d.model != model || d.dim != dim => Err(Error::Index {
                path: dir.to_path_buf(),
                reason: format!(
                    "its vectors were made with {} ({} dimensions), not {model} ({dim}); use \
                     --model {} (or [dense] model), or ingest into a new --index folder",
                    d.model, d.dim, d.model
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Checks a dense query vector against the index at `dir`: false when the index has no
    /// vectors yet, an error naming the model for a vector of another dimension.
    pub fn check_query(&self, query: &[f32], dir: &Path) -> Result<bool> {
        let Some(dense) = &self.dense else { return Ok(false) };
        if query.len() != dense.dim {
            return Err(Error::Index {
                path: dir.to_path_buf(),
                reason: format!(
                    "its vectors have {} dimensions ({}), the query vector {}; embed queries with {}",
                    dense.dim,
                    dense.model,
                    query.len(),
                    dense.model
                ),
            });
        }
        Ok(true)
    }

    /// Checks that an index built with `self` can be written with `wanted`.
    pub fn check_compatible(&self, wanted: &Manifest, dir: &Path) -> Result<()> {
        let mut diffs = Vec::new();
        if self.tokenizer != wanted.tokenizer {
            diffs.push(format!("tokenizer {} (config: {})", self.tokenizer, wanted.tokenizer));
        }
        if self.max_tokens != wanted.max_tokens {
            diffs.push(format!("chunk.max_tokens = {} (config: {})", self.max_tokens, wanted.max_tokens));
        }
        if self.overlap != wanted.overlap {
            diffs.push(format!("chunk.overlap = {} (config: {})", self.overlap, wanted.overlap));
        }
        if diffs.is_empty() {
            return Ok(());
        }
        Err(Error::Index {
            path: dir.to_path_buf(),
            reason: format!(
                "was built with {}; use the same settings, or ingest into a new --index folder (or delete this one to rebuild)",
                diffs.join(", ")
            ),
        })
    }
}
