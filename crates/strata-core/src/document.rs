//! The document: normalized text, pages, blocks and the heading tree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{PageRange, Span, Tree};

/// A stable document id, derived from the canonical source path (see
/// [`DocId::from_source`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct DocId(pub String);

impl DocId {
    /// Builds the id of a source: a slug of the file stem followed by eight hex digits of a
    /// hash of the canonical path, so that two `README.md` files get distinct, stable ids.
    /// (Ingest still refuses a file whose id is taken by another path, however unlikely.)
    pub fn from_source(canonical_path: &str) -> DocId {
        let stem = canonical_path.rsplit(['/', '\\']).next().unwrap_or(canonical_path);
        let stem = stem.rsplit_once('.').map(|(s, _)| s).unwrap_or(stem);
        let mut slug = String::with_capacity(stem.len());
        for c in stem.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
        }
        let slug = slug.trim_end_matches('-');
        let slug = if slug.is_empty() { "doc" } else { slug };
        let slug: String = slug.chars().take(48).collect();
        let hash = fnv1a(canonical_path.as_bytes());
        DocId(format!("{slug}-{:08x}", (hash ^ (hash >> 32)) & 0xffff_ffff))
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for DocId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The formats strata reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// CommonMark + GFM.
    Markdown,
    /// HTML.
    Html,
    /// Plain text (RFCs, statutes, …).
    Text,
    /// PDF.
    Pdf,
    /// Office Open XML word processing.
    Docx,
}

impl Format {
    /// The format implied by a file extension, if strata reads it.
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext.to_ascii_lowercase().as_str() {
            "md" | "markdown" | "mdown" | "mkd" => Some(Format::Markdown),
            "html" | "htm" | "xhtml" => Some(Format::Html),
            "txt" | "text" => Some(Format::Text),
            "pdf" => Some(Format::Pdf),
            "docx" => Some(Format::Docx),
            _ => None,
        }
    }

    /// True when a document of this format with `pages` pages is cited by page: a PDF
    /// always, a DOCX only where it records page breaks and plain text only where form feeds
    /// split it (both have more than one page then). Markdown, HTML and the rest have no
    /// pages: they read as one page, which no reader of the source could find.
    pub fn has_pages(self, pages: usize) -> bool {
        self == Format::Pdf || pages > 1
    }

    /// Lowercase name, as used in config and output.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Text => "text",
            Format::Pdf => "pdf",
            Format::Docx => "docx",
        }
    }
}

/// Where a document came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Canonical path or URI.
    pub path: String,
    /// Format it was read as.
    pub format: Format,
    /// blake3 of the raw bytes, hex.
    pub content_hash: String,
    /// Size of the raw bytes.
    pub size: u64,
    /// Modification time, seconds since the Unix epoch, when known.
    pub mtime: Option<i64>,
}

impl Source {
    /// `path` as a source path, losing nothing and mixing nothing up: each byte of a file
    /// name that is not UTF-8 is written `\xNN`, and the escape character itself `\\`, so
    /// that two names never give one source path (and so one document id): `a<0xFF>.md` is
    /// `a\xff.md` and a file literally named `a\xff.md` is `a\\xff.md`. [`Source::file_path`]
    /// reads it back.
    pub fn path_of(path: &std::path::Path) -> String {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            escape(path.as_os_str().as_bytes())
        }
        #[cfg(not(unix))]
        {
            path.display().to_string().replace('\\', "\\\\")
        }
    }

    /// The file a source path written by [`Source::path_of`] names.
    pub fn file_path(path: &str) -> std::path::PathBuf {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&unescape(path)))
        }
        #[cfg(not(unix))]
        {
            std::path::PathBuf::from(path.replace("\\\\", "\\"))
        }
    }
}

/// `bytes` as text: `\` as `\\`, and each byte that is not part of valid UTF-8 as `\xNN`.
#[cfg_attr(not(unix), allow(dead_code))]
fn escape(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    loop {
        let (valid, rest) = match std::str::from_utf8(bytes) {
            Ok(all) => (all, &[][..]),
            Err(e) => {
                let (valid, after) = bytes.split_at(e.valid_up_to());
                (std::str::from_utf8(valid).unwrap_or_default(), after)
            }
        };
        for c in valid.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
        if rest.is_empty() {
            return out;
        }
        let bad = std::str::from_utf8(rest).err().and_then(|e| e.error_len()).unwrap_or(rest.len());
        for b in &rest[..bad] {
            out.push_str(&format!("\\x{b:02x}"));
        }
        bytes = &rest[bad..];
    }
}

/// The bytes [`escape`] wrote `text` from (a `\` not followed by `\` or `xNN` is kept).
#[cfg_attr(not(unix), allow(dead_code))]
fn unescape(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 2..i + 4).and_then(|h| std::str::from_utf8(h).ok());
        let hex = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], bytes.get(i + 1), hex) {
            (b'\\', Some(b'\\'), _) => {
                out.push(b'\\');
                i += 2;
            }
            (b'\\', Some(b'x'), Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// One page: a span of the text. Formats without pages have one page covering the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// Physical page number, 1-based.
    pub number: u32,
    /// Printed page label (`iv`, `A-3`) when it differs from the number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The page's text.
    pub span: Span,
    /// The mean word confidence (0–100) Tesseract gave, when the page was read by OCR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr: Option<u8>,
}

/// Structural kind of a block of text, as the reader saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BlockKind {
    /// A heading line.
    Heading,
    /// Running prose.
    Paragraph,
    /// A table (kept as text rows).
    Table,
    /// A code block or preformatted text.
    Code,
    /// One item of a list.
    ListItem,
    /// A block quote.
    Quote,
    /// Anything else (raw HTML, thematic breaks, …).
    Other,
}

/// A top-level block of the text: chunking keeps blocks whole where they fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// What kind of block.
    pub kind: BlockKind,
    /// Where it is.
    pub span: Span,
    /// A table's header rows (its first rows, inside `span`): what gives the numbers of the
    /// rows below them their meaning (`(Millions) | 2018 | 2017 | 2016`). A chunk that starts
    /// inside the table carries them in its context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Span>,
}

impl Block {
    /// A block without a header.
    pub fn new(kind: BlockKind, span: Span) -> Block {
        Block { kind, span, header: None }
    }

    /// A block of `kind` at `span` of `text`. A table's first row is its header, as in
    /// Markdown, and in HTML and DOCX tables, whose first row names the columns; a caption
    /// line before it (a line without ` | `) goes with it.
    pub fn headed(kind: BlockKind, span: Span, text: &str) -> Block {
        if kind != BlockKind::Table {
            return Block::new(kind, span);
        }
        let table = span.slice(text);
        let line_end = |from: usize| table[from..].find('\n').map_or(table.len(), |i| from + i);
        let mut end = line_end(0);
        if !table[..end].contains(" | ") && end < table.len() {
            end = line_end(end + 1);
        }
        Block::table(span, span.start + end)
    }

    /// A table block whose first rows, up to `header_end`, are its header (none when
    /// `header_end` is at or before the start).
    pub fn table(span: Span, header_end: usize) -> Block {
        let header = (header_end > span.start).then(|| Span::new(span.start, header_end.min(span.end)));
        Block { kind: BlockKind::Table, span, header }
    }
}

/// A document read into strata: normalized text, pages, blocks and the heading tree.
///
/// Invariants (checked by [`Document::validate`]): pages tile the text in order, blocks are
/// sorted and disjoint, and every node span lies inside the text on `char` boundaries.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    /// Stable id.
    pub id: DocId,
    /// Where it came from.
    pub source: Source,
    /// Title (from metadata, the first top heading, or the file name).
    pub title: String,
    /// Normalized UTF-8 text. Every span refers to it.
    pub text: String,
    /// Pages, in order, tiling the text.
    pub pages: Vec<Page>,
    /// Top-level blocks, sorted.
    pub blocks: Vec<Block>,
    /// The heading tree.
    pub tree: Tree,
    /// Front matter and other metadata.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// The first words of the document (its first pages, see
    /// [`crate::document_lead`]), kept when a store keeps the document
    /// without its text: part of the profile the document leg searches.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lead: String,
    /// Warnings raised while reading (lossy decoding, skipped content, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where the document is cited by line (plain text without pages, Markdown): the source
    /// file's line of the text's first byte (after Markdown front matter, say). `None` for a
    /// document cited by page, or by its heading path alone (HTML).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u32>,
    /// The annotators that ran on it (`strata_ingest::annotate`), and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<crate::Annotation>,
}

/// The metadata keys of a document's identity (the `sec` annotator's,
/// `strata_ingest::annotate::sec`), in the order
/// [`Document::search_title`] writes them.
pub const IDENTITY_KEYS: [&str; 5] = ["issuer", "ticker", "form", "period", "quarter"];

impl Document {
    /// What the document's chunks are searched by as their title: the title, then the
    /// identity in its metadata (issuer, ticker, form, period, quarter, and `FY2018 2018`
    /// for each fiscal year), so that "3M FY2018 capital expenditure" finds 3M's 2018 10-K
    /// whatever its pages say. Just the title for a document without an identity.
    pub fn search_title(&self) -> String {
        let mut out = self.title.clone();
        for key in IDENTITY_KEYS {
            if let Some(value) = self.metadata.get(key).and_then(|v| v.as_str()) {
                out.push_str(" | ");
                out.push_str(value);
            }
        }
        let years = self.metadata.get("fiscal_years").and_then(|v| v.as_array());
        for year in years.into_iter().flatten().filter_map(|y| y.as_u64()) {
            out.push_str(&format!(" | FY{year} {year}"));
        }
        out
    }

    /// True when the document is cited by page ([`Format::has_pages`]).
    pub fn has_pages(&self) -> bool {
        self.source.format.has_pages(self.pages.len())
    }

    /// The pages `span` touches, in a document cited by page; `None` in one without pages.
    pub fn cited_pages(&self, span: Span) -> Option<PageRange> {
        self.has_pages().then(|| self.pages_of(span))
    }

    /// The source lines `span` covers, in a document cited by line whose text is at hand
    /// (not a store's metadata alone). It counts the text up to the span: for many spans,
    /// use [`Self::lines`].
    pub fn cited_lines(&self, span: Span) -> Option<crate::LineRange> {
        Some(crate::LineRange::of(&self.text, span, self.line_base()?))
    }

    /// The source lines of the text, when the document is cited by line ([`Self::first_line`])
    /// and its text is at hand.
    pub fn lines(&self) -> Option<crate::Lines<'_>> {
        Some(crate::Lines::new(&self.text, self.line_base()?))
    }

    /// [`Self::first_line`], when the text it numbers is at hand (a store's metadata alone
    /// has an empty text).
    fn line_base(&self) -> Option<u32> {
        self.first_line.filter(|_| !self.text.is_empty())
    }

    /// The 1-based page that holds byte `offset`.
    pub fn page_at(&self, offset: usize) -> u32 {
        let i = self.pages.partition_point(|p| p.span.end <= offset);
        self.pages.get(i).or(self.pages.last()).map(|p| p.number).unwrap_or(1)
    }

    /// The page range that `span` touches.
    pub fn pages_of(&self, span: Span) -> PageRange {
        let first = self.page_at(span.start);
        let last = self.page_at(span.end.saturating_sub(1).max(span.start));
        PageRange { first, last }
    }

    /// The lowest OCR confidence of the pages in `range` that were read by OCR; `None` when
    /// none was.
    pub fn ocr_confidence(&self, range: PageRange) -> Option<u8> {
        self.pages
            .iter()
            .filter(|p| (range.first..=range.last).contains(&p.number))
            .filter_map(|p| p.ocr)
            .min()
    }

    /// The printed label of a page, falling back to its number.
    pub fn page_label(&self, number: u32) -> String {
        self.pages
            .iter()
            .find(|p| p.number == number)
            .and_then(|p| p.label.clone())
            .unwrap_or_else(|| number.to_string())
    }

    /// Checks the span invariants. Readers call it in tests; a failure is a reader bug.
    pub fn validate(&self) -> Result<(), String> {
        let len = self.text.len();
        let mut at = 0;
        for p in &self.pages {
            if p.span.start != at {
                return Err(format!("page {} starts at {} instead of {at}", p.number, p.span.start));
            }
            at = p.span.end;
        }
        if at != len && !self.pages.is_empty() {
            return Err(format!("pages end at {at}, text has {len} bytes"));
        }
        let mut last = 0;
        for b in &self.blocks {
            if b.span.start < last || b.span.end > len || b.span.start > b.span.end {
                return Err(format!("block {:?} at {} out of order", b.kind, b.span));
            }
            last = b.span.end;
        }
        for n in self.tree.nodes() {
            for s in [n.heading, n.own, n.subtree] {
                if s.end > len
                    || s.start > s.end
                    || !self.text.is_char_boundary(s.start)
                    || !self.text.is_char_boundary(s.end)
                {
                    return Err(format!("node {} has a bad span {s}", n.id));
                }
            }
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;

    fn path(bytes: &[u8]) -> &Path {
        Path::new(std::ffi::OsStr::from_bytes(bytes))
    }

    /// Issue 51, finding 6: a name with an invalid byte and a name that spells its escape.
    #[test]
    fn regression_a_byte_and_its_spelled_escape_are_two_source_paths() {
        let (raw, spelled) = (Source::path_of(path(b"/d/a\xff.md")), Source::path_of(path(b"/d/a\\xff.md")));
        assert_eq!((raw.as_str(), spelled.as_str()), ("/d/a\\xff.md", "/d/a\\\\xff.md"));
        assert_ne!(DocId::from_source(&raw), DocId::from_source(&spelled));
        assert_eq!(Source::path_of(Path::new("/a/b ü.md")), "/a/b ü.md");
    }

    proptest! {
        /// Every file name reads back from its source path, so no two share one.
        #[test]
        fn source_paths_read_back_to_their_file(bytes in proptest::collection::vec(
            prop_oneof![Just(b'\\'), Just(b'x'), Just(b'f'), Just(0xffu8), Just(0xc3u8), Just(0xbcu8), 1u8..=255],
            0..24,
        )) {
            let written = Source::path_of(path(&bytes));
            let read = Source::file_path(&written);
            prop_assert_eq!(read.as_os_str().as_bytes(), &bytes[..]);
        }
    }
}
