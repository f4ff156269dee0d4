//! The read stage: bytes of one file to a [`Parsed`] document (text, pages, blocks, headings).
//!
//! Each format is a [`Reader`]. A reader only finds text and structure; the tree stage
//! ([`crate::tree`]) turns its heading marks into a [`strata_core::Tree`], and
//! [`crate::pipeline`] assembles the [`strata_core::Document`].

use std::collections::BTreeMap;
use std::sync::Arc;

pub use limits::{HeadingCap, ReadLimits};
use strata_core::{Block, Format, SectionNumber, Span};

pub mod contract;
pub mod decode;
pub mod docx;
pub mod html;
pub mod levels;
pub mod limits;
pub mod markdown;
mod numerals;
pub mod pdf;
pub mod text;

/// A heading found by a reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingMark {
    /// Level: 1–6 for Markdown and HTML, the numbering depth for plain text and recovered PDF
    /// headings, the outline level for PDF bookmarks and DOCX (1–9). Levels may skip.
    pub level: u32,
    /// Heading text, whitespace-normalized, markup removed.
    pub title: String,
    /// The heading in [`Parsed::text`] (the whole heading line or element).
    pub span: Span,
    /// Section number, when the heading has one. Readers that know better than
    /// [`strata_text::number::from_heading`] (plain-text RFC numbering) set it; otherwise the
    /// tree stage derives it from the title.
    pub number: Option<SectionNumber>,
}

/// What a reader produces.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// Normalized UTF-8 text: LF line ends, no BOM. Every span below refers to it.
    pub text: String,
    /// Byte offsets where pages 2, 3, … start (empty for formats without pages). Sorted,
    /// each `> 0` and `< text.len()`; two equal offsets mean an empty page between them
    /// (a page that held only a running header or footer), which keeps later page numbers
    /// right.
    pub page_breaks: Vec<usize>,
    /// Printed page labels, one per page, when the format has them.
    pub page_labels: Vec<Option<String>>,
    /// Top-level blocks, sorted and disjoint.
    pub blocks: Vec<Block>,
    /// Headings in document order, at most [`ReadLimits::max_headings`].
    pub headings: Vec<HeadingMark>,
    /// Headings found past [`ReadLimits::max_headings`] and read as text of the section
    /// above them ([`HeadingCap`]).
    pub dropped_headings: usize,
    /// Title, when the format says it (front matter, `<title>`, RFC header).
    pub title: Option<String>,
    /// Metadata (front matter).
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// Non-fatal problems.
    pub warnings: Vec<String>,
    /// Pages read by OCR: one entry per page, the mean word confidence (0–100) of each
    /// OCR'd page, `None` for the others; empty when no page was OCR'd.
    pub ocr: Vec<Option<f32>>,
    /// When passages are cited by source line (Markdown, plain text without form feeds):
    /// the source line of the text's first byte ([`strata_core::Document::first_line`]).
    pub first_line: Option<u32>,
}

impl Parsed {
    /// Checks the [`Reader`] contract on this output: heading and block spans on `char`
    /// boundaries inside the text, headings in order and not overlapping, blocks sorted and
    /// disjoint, page breaks sorted (equal offsets are empty pages), each `> 0` and
    /// `< text.len()` on a `char` boundary. The property tests and the fuzz targets assert it;
    /// the error says which mark broke it.
    pub fn check(&self) -> Result<(), String> {
        let t = &self.text;
        let ok =
            |s: usize, e: usize| s <= e && e <= t.len() && t.is_char_boundary(s) && t.is_char_boundary(e);
        let mut last = 0;
        for h in &self.headings {
            if !ok(h.span.start, h.span.end) || h.span.start < last {
                return Err(format!("heading {:?} at {} out of order or off boundary", h.title, h.span));
            }
            last = h.span.end;
        }
        let mut last = 0;
        for b in &self.blocks {
            if !ok(b.span.start, b.span.end) || b.span.start < last {
                return Err(format!("block {:?} at {} out of order or off boundary", b.kind, b.span));
            }
            last = b.span.end;
        }
        let mut last = 0;
        for &b in &self.page_breaks {
            if b < last || b == 0 || b >= t.len() || !t.is_char_boundary(b) {
                return Err(format!("page break {b} invalid (text {} bytes)", t.len()));
            }
            last = b;
        }
        Ok(())
    }
}

/// Why a file could not be read. Each message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Zero bytes, or only whitespace.
    #[error("the file is empty; nothing to index")]
    Empty,
    /// Looks like a binary file.
    #[error("the file looks binary ({0}); this build reads Markdown, HTML, plain text, PDF and DOCX")]
    Binary(String),
    /// Larger than `ingest.max_file_bytes`.
    #[error("the file is {size} bytes, over ingest.max_file_bytes = {limit}; raise that limit in strata.toml or split the file")]
    TooLarge {
        /// File size.
        size: u64,
        /// The configured limit.
        limit: u64,
    },
    /// More bytes arrived than `ingest.max_file_bytes` allows, though the file's size said
    /// otherwise (it grew while it was read).
    #[error("more than {limit} bytes arrived, over ingest.max_file_bytes = {limit} (the file grew while it was read); raise that limit in strata.toml or ingest the file once it is complete")]
    GrewTooLarge {
        /// The configured limit.
        limit: u64,
    },
    /// The format parser refused the content.
    #[error("{0}")]
    Malformed(String),
    /// HTML nesting elements deeper than the reader takes (its parser's time grows with the
    /// square of the depth).
    #[error("the HTML nests elements at least {depth} deep, more than the {limit} strata reads (parsing time grows with the square of the depth); close the elements it leaves open, flatten the markup, or convert the file to Markdown")]
    TooDeep {
        /// Elements open when the parse stopped.
        depth: usize,
        /// The limit.
        limit: usize,
    },
    /// A PDF whose pages carry no text (scanned images): a warning for that file, not a
    /// failure of the ingest.
    #[error("no text layer on any of its {pages} pages (a scan?); {why}")]
    NoTextLayer {
        /// Pages in the file.
        pages: usize,
        /// What OCR did with them and what to do: OCR is off, cannot run (what to install),
        /// or could not read a page (why).
        why: String,
    },
    /// OCR was asked for (`[ingest] ocr = "force"`) and cannot run; the message says what
    /// to install.
    #[error("OCR cannot run: {0}")]
    OcrUnavailable(String),
    /// The extension is not one strata reads.
    #[error(
        "unsupported file type {0:?}; this build reads .md, .markdown, .html, .htm, .xhtml, .txt, .text, .pdf and .docx"
    )]
    Unsupported(String),
}

/// One input format.
///
/// Contract: `read` never panics on any input, returns spans on `char` boundaries of
/// `Parsed::text`, headings in document order with non-overlapping spans, and blocks sorted
/// and disjoint. All readers run the shared checks in `tests/readers.rs`.
pub trait Reader: Send + Sync {
    /// The format this reader handles.
    fn format(&self) -> Format;
    /// Reads one file's bytes within `limits`, which the reader checks as it reads.
    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError>;

    /// Reads one file's bytes within the default limits.
    fn read(&self, bytes: &[u8]) -> Result<Parsed, ReadError> {
        self.read_with(bytes, &ReadLimits::default())
    }
}

/// The reader for a format, PDF pages OCR'd as `ocr` says (those OCR'd before read from
/// `cache`), when this build has one.
pub fn reader_with(
    format: Format,
    ocr: &pdf::ocr::OcrOptions,
    cache: Option<&Arc<dyn pdf::ocr::PageCache>>,
) -> Option<Box<dyn Reader>> {
    match format {
        Format::Pdf => Some(Box::new(pdf::PdfReader::with_ocr(ocr.clone(), cache.cloned()))),
        other => reader_for(other),
    }
}

/// The reader for a format, when this build has one (PDF without OCR).
pub fn reader_for(format: Format) -> Option<Box<dyn Reader>> {
    match format {
        Format::Markdown => Some(Box::new(markdown::MarkdownReader)),
        Format::Html => Some(Box::new(html::HtmlReader)),
        Format::Text => Some(Box::new(text::TextReader)),
        Format::Docx => Some(Box::new(docx::DocxReader)),
        Format::Pdf => Some(Box::new(pdf::PdfReader::default())),
        _ => None,
    }
}
