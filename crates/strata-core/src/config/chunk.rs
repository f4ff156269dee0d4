//! `[chunk]`, `[tokenizer]` and `[ingest]`: how ingest cuts documents, counts tokens and
//! bounds its work.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::names::named;
use crate::{Error, Result};

named! {
    /// When scanned PDF pages are read with OCR (`[ingest] ocr`).
    #[derive(Default)]
    pub enum OcrMode in "[ingest] ocr" {
        /// Pages without a text layer are OCR'd when Tesseract is installed; without it they
        /// are read as today, with a message saying how to install it (the default).
        #[default]
        Auto = "auto",
        /// Never OCR.
        Off = "off",
        /// OCR every page, a text layer or not; an error when Tesseract is missing.
        Force = "force",
    }
}

/// `[chunk]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkConfig {
    /// Most tokens in a chunk's own text. Default 512.
    pub max_tokens: usize,
    /// Tokens of the previous chunk repeated before a chunk, for indexing. Default 64.
    pub overlap: usize,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig { max_tokens: 512, overlap: 64 }
    }
}

/// `[tokenizer]`
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    /// A folder with the embedding model's `tokenizer.json`, or the file itself. When unset,
    /// tokens are counted with tiktoken `cl100k_base`.
    pub model: Option<PathBuf>,
}

/// `[ingest]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IngestConfig {
    /// Files larger than this are refused with a per-file error, before they are read, so
    /// memory stays bounded. Default 64 MiB.
    pub max_file_bytes: u64,
    /// Headings kept per document. Past it, the deepest headings are read as text of the
    /// section above them, with a warning, so that a file of a million heading lines costs
    /// memory by its text and not by its tree. Default 100,000, far more than any real
    /// document has.
    pub max_sections: usize,
    /// Content-stream operators read per PDF page. A page past it is cut there, its text
    /// before kept, with a warning naming the page; it bounds the time and memory a hostile
    /// page (millions of `q Q`) costs. Default 5,000,000, far more than any real page draws
    /// (a dense map page: about a million).
    pub max_page_operators: usize,
    /// Documents written between two commits. A crash loses at most the documents since the
    /// last commit; re-running ingest completes the job. Default 64.
    pub commit_every: usize,
    /// Metadata given to every document of an ingest (`strata ingest --meta key=value`), over
    /// what the file says of itself and under its sidecar (`NAME.meta.json`). Shown by
    /// `strata docs`; names and dates feed the document leg.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metadata: std::collections::BTreeMap<String, String>,
    /// OCR of scanned PDF pages: `auto` (pages without a text layer, when Tesseract is
    /// installed), `off` or `force` (every page). Default `auto`.
    pub ocr: OcrMode,
    /// Tesseract languages, `+`-joined as Tesseract takes them (`eng+deu`). Default `eng`.
    pub ocr_languages: String,
    /// Resolution pages are rendered at for OCR, in dots per inch. Default 300.
    pub ocr_dpi: u32,
    /// Pixels one page's image may hold for OCR. A larger page (a poster, or a hostile
    /// MediaBox of 100 × 150 inches) is rendered at the resolution that fits, down to 72 dpi,
    /// and refused below that, before anything is rendered. Default 40,000,000 (40 MB of
    /// gray; a Letter page at 300 dpi is 8.4 million, A0 fits at 160 dpi).
    pub ocr_max_page_pixels: u64,
    /// Seconds `pdftoppm` may take to render one page for OCR; past it the process is killed
    /// and the page left empty, with a warning. Default 8 (a page takes a few hundredths).
    pub ocr_render_seconds: u64,
    /// Seconds Tesseract may take to read one page; past it, its process is killed, page
    /// layout analysis included, and the page left empty, with a warning. Default 60 (a dense page
    /// takes a few seconds).
    pub ocr_recognize_seconds: u64,
    /// The annotators of the annotate stage ([`ANNOTATORS`]): `auto` runs the surest of
    /// those whose detector finds its convention in a document; a name runs that annotator
    /// on every document; `[]` runs none. Default `["auto"]`.
    pub annotators: Vec<String>,
}

/// The annotators strata has (`strata_ingest::annotate`): `sec`, SEC filings and earnings
/// releases; `contract`, agreements.
pub const ANNOTATORS: &[&str] = &["sec", "contract"];

impl Default for IngestConfig {
    fn default() -> Self {
        IngestConfig {
            max_file_bytes: 64 * 1024 * 1024,
            max_sections: 100_000,
            max_page_operators: 5_000_000,
            commit_every: 64,
            metadata: Default::default(),
            ocr: OcrMode::Auto,
            ocr_languages: "eng".to_string(),
            ocr_dpi: 300,
            ocr_max_page_pixels: 40_000_000,
            ocr_render_seconds: 8,
            ocr_recognize_seconds: 60,
            annotators: vec!["auto".to_string()],
        }
    }
}

impl ChunkConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        if !(16..=8192).contains(&self.max_tokens) {
            return Err(Error::user(format!(
                "chunk.max_tokens must be between 16 and 8192, got {} ({origin})",
                self.max_tokens
            )));
        }
        if self.overlap * 2 > self.max_tokens {
            return Err(Error::user(format!(
                "chunk.overlap must be at most half of chunk.max_tokens ({}), got {} ({origin})",
                self.max_tokens, self.overlap
            )));
        }
        Ok(())
    }
}

/// Whether `key` can name a metadata entry: 1 to 64 ASCII letters, digits, `_`, `-`, `.`.
pub fn valid_meta_key(key: &str) -> bool {
    (1..=64).contains(&key.len()) && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

impl IngestConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        if self.max_file_bytes == 0 {
            return Err(Error::user(format!("ingest.max_file_bytes must be positive, got 0 ({origin})")));
        }
        if self.max_sections == 0 {
            return Err(Error::user(format!("ingest.max_sections must be at least 1, got 0 ({origin})")));
        }
        if self.max_page_operators == 0 {
            return Err(Error::user(format!(
                "ingest.max_page_operators must be at least 1, got 0 ({origin})"
            )));
        }
        if self.ocr_max_page_pixels < 1_000_000 {
            return Err(Error::user(format!(
                "ingest.ocr_max_page_pixels must be at least 1000000 (a small page at 72 dpi), got {} ({origin})",
                self.ocr_max_page_pixels
            )));
        }
        if self.ocr_render_seconds == 0 {
            return Err(Error::user(format!(
                "ingest.ocr_render_seconds must be at least 1, got 0 ({origin})"
            )));
        }
        if self.ocr_recognize_seconds == 0 {
            return Err(Error::user(format!(
                "ingest.ocr_recognize_seconds must be at least 1, got 0 ({origin})"
            )));
        }
        if self.commit_every == 0 {
            return Err(Error::user(format!("ingest.commit_every must be at least 1, got 0 ({origin})")));
        }
        let language = |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !self.ocr_languages.split('+').all(language) {
            return Err(Error::user(format!(
                "ingest.ocr_languages must be Tesseract language codes joined by '+' (e.g. \"eng+deu\"), got {:?} ({origin})",
                self.ocr_languages
            )));
        }
        if !(50..=1200).contains(&self.ocr_dpi) {
            return Err(Error::user(format!(
                "ingest.ocr_dpi must be between 50 and 1200, got {} ({origin})",
                self.ocr_dpi
            )));
        }
        self.validate_annotators(origin)?;
        if let Some(key) = self.metadata.keys().find(|k| !valid_meta_key(k)) {
            return Err(Error::user(format!(
                "ingest.metadata key {key:?} must be 1 to 64 letters, digits, '_', '-' or '.' ({origin})"
            )));
        }
        Ok(())
    }

    /// Each entry of `annotators` is `auto` or a known annotator, once.
    fn validate_annotators(&self, origin: &str) -> Result<()> {
        let known = || {
            format!(
                "\"auto\" or {}",
                ANNOTATORS.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")
            )
        };
        for (i, name) in self.annotators.iter().enumerate() {
            if name != "auto" && !ANNOTATORS.contains(&name.as_str()) {
                return Err(Error::user(format!(
                    "ingest.annotators has {name:?}, which is no annotator; use {} ({origin})",
                    known()
                )));
            }
            if self.annotators[..i].contains(name) {
                return Err(Error::user(format!(
                    "ingest.annotators names {name:?} twice; name each once ({origin})"
                )));
            }
        }
        Ok(())
    }
}
