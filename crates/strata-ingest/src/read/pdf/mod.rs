//! PDF: text per physical page in reading order, the outline or recovered headings as the
//! tree, printed page labels.
//!
//! The stages, one file each:
//!
//! - `content`: the content-stream interpreter, page operators to positioned glyphs;
//! - `fonts`: decoding (ToUnicode, standard encodings, `/Differences`), glyph widths and
//!   boldness; `glyphs`: glyph names to text for fonts without ToUnicode;
//! - `layout`: glyphs to segments, columns and lines in reading order;
//! - `furniture`: running headers, footers and page numbers found across pages and left out;
//! - `contents`: table-of-contents pages read as entries (title, printed page, level), their
//!   lines left out;
//! - `tables`: runs of lines laid out as a grid (statements, schedules) rewritten as table
//!   rows, cells joined by ` | `, header rows marked;
//! - `page_text`: lines to paragraphs, a table to one block, hyphenated line ends joined, the page breaks;
//! - `outline`: bookmarks mapped to the line of their heading on their page;
//! - `calibrate`: contents entries onto physical pages, when there are no bookmarks;
//! - `form`: the headings of SEC forms and financial statements (parts, items, statements,
//!   notes), each at its own level;
//! - `headings`: headings recovered from form, numbering, font size and weight when there is
//!   no outline;
//! - `nest`: the contents entries and form headings as anchors, the other recovered headings
//!   below them;
//! - `labels`: `/PageLabels` (roman front matter) as printed page labels; without them,
//!   the page numbers the furniture printed, where they run in sequence.
//!
//! Built on `lopdf` (pure Rust, MIT): it parses the file, decrypts files with an empty user
//! password, inflates streams and decodes font encodings; everything from glyph positions
//! on is ours. The crate comparison is in `bench/results/pdf.md`.

mod calibrate;
mod content;
mod contents;
mod fonts;
mod form;
mod furniture;
mod glyphs;
mod headings;
mod labels;
mod layout;
mod nest;
pub mod ocr;
mod outline;
mod page_text;
mod tables;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use lopdf::{Document, Object};
use strata_core::Format;

use super::{Parsed, ReadError, ReadLimits, Reader};
use crate::tree::keep_headings;

/// Most bytes one page's content streams may inflate to.
const MAX_PAGE_CONTENT: usize = 64 << 20;

/// Reads PDF files; pages without a text layer are OCR'd as [`ocr::OcrOptions`] say, pages
/// OCR'd before read from an [`ocr::PageCache`] when it has one.
#[derive(Clone, Default)]
pub struct PdfReader {
    ocr: ocr::OcrOptions,
    cache: Option<Arc<dyn ocr::PageCache>>,
}

impl std::fmt::Debug for PdfReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PdfReader").field("ocr", &self.ocr).field("cache", &self.cache.is_some()).finish()
    }
}

impl PdfReader {
    /// A reader that OCRs as `options` say (the default reader does not OCR), with the
    /// pages OCR'd before in `cache`.
    pub fn with_ocr(options: ocr::OcrOptions, cache: Option<Arc<dyn ocr::PageCache>>) -> PdfReader {
        PdfReader { ocr: options, cache }
    }
}

impl Reader for PdfReader {
    fn format(&self) -> Format {
        Format::Pdf
    }

    fn read_with(&self, bytes: &[u8], limits: &ReadLimits) -> Result<Parsed, ReadError> {
        let head = &bytes[..bytes.len().min(1024)];
        if !head.windows(5).any(|w| w == b"%PDF-") {
            return Err(ReadError::Malformed(
                "not a PDF: no %PDF- header in the first 1024 bytes; check the file, or rename it if it is another format"
                    .to_string(),
            ));
        }
        // lopdf is defensive, but a parser bug on a hostile file must cost that file only.
        catch_unwind(AssertUnwindSafe(|| read_pdf(bytes, &self.ocr, self.cache.as_deref(), limits))).unwrap_or_else(|_| {
            Err(ReadError::Malformed(
                "the PDF parser failed on this file (it may be damaged); repair it, e.g. with `qpdf in.pdf out.pdf`, and re-ingest"
                    .to_string(),
            ))
        })
    }
}

/// One page's lines, as laid out, before furniture is taken out.
pub(crate) struct PageLines {
    pub lines: Vec<layout::Line>,
    /// Height of the page as displayed (lines' `y` run from 0 at its foot), for telling
    /// headers from footers.
    pub height: f32,
    /// Width of the page as displayed, for the size of its image when it is OCR'd.
    pub width: f32,
}

fn read_pdf(
    bytes: &[u8],
    ocr: &ocr::OcrOptions,
    cache: Option<&dyn ocr::PageCache>,
    limits: &ReadLimits,
) -> Result<Parsed, ReadError> {
    let doc = Document::load_mem(bytes).map_err(load_error)?;
    if doc.is_encrypted() {
        return Err(encrypted());
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(ReadError::Malformed("the PDF has no pages".to_string()));
    }
    let mut warnings = Vec::new();
    let (mut laid, scans) = lay_out(&doc, &pages, ocr.mode, limits, &mut warnings);
    let ids = pages.values().copied().collect();
    let scans = Scans { bytes, doc: &doc, ids, pages: scans, cache };
    let OcrRead { confidence, failed } = scans.read(&mut laid, ocr, &mut warnings)?;
    if laid.iter().all(|p| p.lines.is_empty()) {
        if confidence.iter().any(Option::is_some) {
            return Err(ReadError::Malformed(format!(
                "OCR found no text on any of its {} pages; check that they hold text, or set [ingest] ocr_languages to their language",
                pages.len()
            )));
        }
        return Err(ReadError::NoTextLayer { pages: pages.len(), why: no_text_why(ocr.mode, failed) });
    }
    let printed = furniture::strip(&mut laid);
    let outline = outline::entries(&doc, &pages);
    // With bookmarks, a contents page only loses its leader lines; without, it is read.
    let listed =
        if outline.is_empty() { contents::take(&mut laid) } else { contents::strip_leaders(&mut laid) };
    let tables = tables::mark(&mut laid);
    if tables > 0 {
        tracing::debug!(tables, "tables found");
    }
    let mut text = page_text::assemble(&laid);
    let mut labels = labels::page_labels(&doc, pages.len());
    let numbers = if printed.iter().any(Option::is_some) { printed.clone() } else { labels.clone() };
    if labels.is_empty() && printed.iter().any(Option::is_some) {
        labels = printed;
    }
    let headings = if outline.is_empty() {
        let contents = calibrate::entries(&listed, &numbers, &text)
            .map_or_else(Vec::new, |entries| outline::place(&entries, &text, true));
        nest::nest(contents, headings::recover(&text))
    } else {
        outline::place(&outline, &text, false)
    };
    let blocks = page_text::blocks(&text, &headings);
    let title = info_title(&doc).or_else(|| headings::title(&text));
    let (headings, dropped_headings) = keep_headings(headings, limits.max_headings);
    let parsed = Parsed {
        text: std::mem::take(&mut text.text),
        page_breaks: text.page_breaks,
        page_labels: labels,
        blocks,
        headings,
        dropped_headings,
        title,
        metadata: Default::default(),
        warnings,
        ocr: if confidence.iter().any(Option::is_some) { confidence } else { Vec::new() },
        first_line: None,
    };
    Ok(parsed)
}

/// Each page's lines from its content streams, one page's glyphs in memory at a time, and
/// the pages (0-based) to OCR: those without a text layer with `auto`, all with `force`
/// (left empty here).
fn lay_out(
    doc: &Document,
    pages: &std::collections::BTreeMap<u32, lopdf::ObjectId>,
    mode: ocr::OcrMode,
    limits: &ReadLimits,
    warnings: &mut Vec<String>,
) -> (Vec<PageLines>, Vec<usize>) {
    let mut interpreter = content::Interpreter::new(doc, limits.max_page_operators);
    let (mut laid, mut scans) = (Vec::with_capacity(pages.len()), Vec::new());
    let mut rotated = 0;
    for (i, (&number, &id)) in pages.iter().enumerate() {
        let content = match doc.get_page_content_with_limit(id, MAX_PAGE_CONTENT) {
            Ok(c) => c,
            Err(e) => {
                warnings.push(format!(
                    "page {number}: its content could not be read ({e}); the page is left empty"
                ));
                Vec::new()
            }
        };
        let (to_display, [width, height]) = page_space(doc, id);
        let glyphs = interpreter.page(id, &content, to_display);
        warnings.extend(interpreter.warnings.drain(..).map(|w| format!("page {number}: {w}")));
        if let Some(why) = interpreter.cut.take() {
            warnings.push(format!(
                "page {number} is cut short: {why}; the text read before that is kept, raise the setting to read on"
            ));
        }
        let scanned = glyphs.iter().all(|g| g.rotated || g.text.trim().is_empty());
        let ocr_it = match mode {
            ocr::OcrMode::Force => true,
            ocr::OcrMode::Auto => scanned,
            ocr::OcrMode::Off => false,
        };
        if ocr_it {
            scans.push(i);
            laid.push(PageLines { lines: Vec::new(), height, width });
        } else {
            let (lines, r) = layout::lines(&glyphs);
            rotated += r;
            laid.push(PageLines { lines, height, width });
        }
    }
    if rotated > 0 {
        tracing::debug!(rotated, "rotated glyphs (margin text) left out");
    }
    (laid, scans)
}

/// The pages of a PDF to OCR, 0-based, and what OCR reads them from.
struct Scans<'a> {
    bytes: &'a [u8],
    doc: &'a Document,
    /// Every page's object, in page order.
    ids: Vec<lopdf::ObjectId>,
    pages: Vec<usize>,
    cache: Option<&'a dyn ocr::PageCache>,
}

/// What OCR did with the pages without a text layer.
#[derive(Default)]
struct OcrRead {
    /// Each page's mean word confidence, `None` for a page not OCR'd.
    confidence: Vec<Option<f32>>,
    /// Why OCR left pages empty, when it did: that it cannot run, or the first page it could
    /// not read.
    failed: Option<String>,
}

impl Scans<'_> {
    /// OCRs the pages and lays out their words. A page OCR cannot read is a warning and
    /// stays empty; OCR that cannot run is an error with `force` and, with `auto`, a warning
    /// naming the pages left empty; either way [`OcrRead::failed`] says why.
    fn read(
        &self,
        laid: &mut [PageLines],
        options: &ocr::OcrOptions,
        warnings: &mut Vec<String>,
    ) -> Result<OcrRead, ReadError> {
        let scans = &self.pages;
        let mut read = OcrRead { confidence: vec![None; laid.len()], failed: None };
        if scans.is_empty() {
            return Ok(read);
        }
        let requests: Vec<ocr::Request> = scans
            .iter()
            .map(|&i| ocr::Request {
                number: i as u32 + 1,
                page: self.ids[i],
                width: laid[i].width,
                height: laid[i].height,
            })
            .collect();
        let results = match ocr::recognize_cached(self.bytes, self.doc, &requests, options, self.cache) {
            Ok(r) => r,
            Err(why) if options.mode == ocr::OcrMode::Force => return Err(ReadError::OcrUnavailable(why)),
            Err(why) => {
                if scans.len() < laid.len() {
                    warnings.push(format!("{} without a text layer left empty: {why}", page_list(scans)));
                }
                read.failed = Some(format!("OCR cannot run: {why}"));
                return Ok(read);
            }
        };
        for (&i, result) in scans.iter().zip(results) {
            match result {
                Ok(page) => {
                    laid[i].lines = layout::lines(&page.glyphs).0;
                    read.confidence[i] = Some(page.confidence);
                }
                Err(why) => {
                    read.failed.get_or_insert_with(|| format!("OCR could not read page {}: {why}", i + 1));
                    warnings.push(format!(
                        "page {}: OCR could not read it ({why}); the page is left empty",
                        i + 1
                    ))
                }
            }
        }
        Ok(read)
    }
}

/// What to say of a PDF with no text on any page: what OCR did, and what to do.
fn no_text_why(mode: ocr::OcrMode, failed: Option<String>) -> String {
    match (mode, failed) {
        (ocr::OcrMode::Off, _) => "OCR is off ([ingest] ocr = \"off\"): set ocr = \"auto\" for strata to OCR scanned pages \
             (with Tesseract and poppler-utils installed), or OCR it first (e.g. `ocrmypdf in.pdf out.pdf`), and re-ingest"
            .to_string(),
        (_, Some(why)) => format!("{why}; or OCR it first (e.g. `ocrmypdf in.pdf out.pdf`) and re-ingest"),
        (_, None) => "OCR it first (e.g. `ocrmypdf in.pdf out.pdf`) and re-ingest".to_string(),
    }
}

/// `page 3` or `pages 3, 7, 9`, of 0-based indexes.
fn page_list(pages: &[usize]) -> String {
    let numbers: Vec<String> = pages.iter().map(|i| (i + 1).to_string()).collect();
    format!("page{} {}", if pages.len() == 1 { "" } else { "s" }, numbers.join(", "))
}

fn load_error(e: lopdf::Error) -> ReadError {
    let message = e.to_string();
    let lower = message.to_ascii_lowercase();
    if lower.contains("decrypt") || lower.contains("password") || lower.contains("encrypt") {
        return encrypted();
    }
    ReadError::Malformed(format!(
        "the PDF could not be parsed ({message}); repair it, e.g. with `qpdf in.pdf out.pdf`, and re-ingest"
    ))
}

fn encrypted() -> ReadError {
    ReadError::Malformed(
        "the PDF is encrypted with a password; decrypt it (e.g. `qpdf --decrypt --password=… in.pdf out.pdf`) and re-ingest"
            .to_string(),
    )
}

/// Follows one reference (lopdf's dictionaries hold objects or references to them).
pub(crate) fn deref<'d>(doc: &'d Document, o: &'d Object) -> Option<&'d Object> {
    match o {
        Object::Reference(id) => doc.get_object(*id).ok(),
        o => Some(o),
    }
}

/// The map from a page's user space to the page as displayed, and the displayed width and
/// height: the visible box (`/CropBox`, else `/MediaBox`, both inherited) moved to the origin, then turned
/// by `/Rotate` (clockwise, in quarter turns), so that "up" and "left to right" are what a
/// reader sees on landscape pages too.
fn page_space(doc: &Document, page: lopdf::ObjectId) -> ([f32; 6], [f32; 2]) {
    let inherited = |key: &[u8]| -> Option<&Object> {
        let mut id = Some(page);
        for _ in 0..32 {
            let dict = id.and_then(|i| doc.get_dictionary(i).ok())?;
            if let Some(o) = dict.get(key).ok().and_then(|o| deref(doc, o)) {
                return Some(o);
            }
            id = dict.get(b"Parent").and_then(Object::as_reference).ok();
        }
        None
    };
    let rect = |key: &[u8]| -> Option<[f32; 4]> {
        let v: Vec<f32> = inherited(key)?.as_array().ok()?.iter().filter_map(|o| o.as_float().ok()).collect();
        let r = [v.first()?.min(*v.get(2)?), v.get(1)?.min(*v.get(3)?), v[0].max(v[2]), v[1].max(v[3])];
        (r.iter().all(|x| x.is_finite()) && r[2] > r[0] && r[3] > r[1]).then_some(r)
    };
    let [x0, y0, x1, y1] = rect(b"CropBox").or_else(|| rect(b"MediaBox")).unwrap_or([0.0, 0.0, 612.0, 792.0]);
    let rotate = inherited(b"Rotate").and_then(|o| o.as_i64().ok()).unwrap_or(0).rem_euclid(360);
    let (w, h) = (x1 - x0, y1 - y0);
    match rotate {
        90 => ([0.0, -1.0, 1.0, 0.0, -y0, x1], [h, w]),
        180 => ([-1.0, 0.0, 0.0, -1.0, x1, y1], [w, h]),
        270 => ([0.0, 1.0, -1.0, 0.0, y1, -x0], [h, w]),
        _ => ([1.0, 0.0, 0.0, 1.0, -x0, -y0], [w, h]),
    }
}

/// The document information dictionary's title, unless it is a file name or a tool's label.
fn info_title(doc: &Document) -> Option<String> {
    let info = doc.trailer.get(b"Info").ok().and_then(|o| deref(doc, o))?.as_dict().ok()?;
    let title = lopdf::decode_text_string(info.get(b"Title").ok().and_then(|o| deref(doc, o))?).ok()?;
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = title.to_ascii_lowercase();
    let junk = title.is_empty()
        || lower.starts_with("microsoft word")
        || [".doc", ".pdf", ".tex", ".dvi", ".indd"].iter().any(|x| lower.ends_with(x))
        || lower == "untitled";
    (!junk).then_some(title)
}

#[cfg(test)]
mod tests;
