//! OCR of pages without a text layer (scans), into the same layout stages as digital pages.
//!
//! The stages, one file each: `render` draws a page as an 8-bit gray image (poppler's
//! `pdftoppm`, at `[ingest] ocr_dpi`, default 300); `tesseract` reads its words with their
//! boxes, baselines and confidences (Tesseract's C API, loaded at run time); `words` turns
//! them into the glyphs `layout` takes, so lines, columns, furniture, tables, paragraphs and
//! headings come from the same code for a scan as for a digital page.
//!
//! Pages are OCR'd in parallel by a few workers, each with its own Tesseract instance and
//! one page image at a time. A page that cannot be rendered or read is reported by number
//! and left empty; the caller decides what an all-empty document is.

mod render;
mod tesseract;
mod words;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use strata_core::config::OcrMode;

pub(crate) use words::OcrPage;

/// Most OCR workers (each holds one Tesseract instance, ~100 MB with `eng`, and one page
/// image).
const MAX_WORKERS: usize = 8;

/// How a PDF reader OCRs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrOptions {
    /// When pages are OCR'd.
    pub mode: OcrMode,
    /// Tesseract languages, `+`-joined.
    pub languages: String,
    /// Rendering resolution.
    pub dpi: u32,
}

impl Default for OcrOptions {
    /// OCR off: a reader built without a configuration reads text layers only.
    fn default() -> Self {
        OcrOptions { mode: OcrMode::Off, languages: "eng".to_string(), dpi: 300 }
    }
}

impl OcrOptions {
    /// The options `[ingest]` gives.
    pub fn from_config(ingest: &strata_core::config::IngestConfig) -> OcrOptions {
        OcrOptions { mode: ingest.ocr, languages: ingest.ocr_languages.clone(), dpi: ingest.ocr_dpi }
    }
}

/// What to install for OCR, when something is missing; `None` when OCR can run.
pub fn unavailable(languages: &str) -> Option<String> {
    if tesseract::version().is_none() {
        return Some(
            "Tesseract is not installed; install it (`apt-get install tesseract-ocr`, or `brew install tesseract`) for strata to OCR scanned pages"
                .to_string(),
        );
    }
    if !render::available() {
        return Some(
            "poppler's pdftoppm is not installed; install it (`apt-get install poppler-utils`, or `brew install poppler`) for strata to OCR scanned pages"
                .to_string(),
        );
    }
    match tesseract::Engine::new(languages) {
        Ok(_) => None,
        Err(_) => Some(format!(
            "Tesseract has no data for ocr_languages = {languages:?}; install it (e.g. `apt-get install tesseract-ocr-{}`) or change [ingest] ocr_languages",
            languages.split('+').next().unwrap_or("eng")
        )),
    }
}

/// A page to OCR: its number (1-based, in document order) and displayed height in points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    pub number: u32,
    pub height: f32,
}

/// OCRs `pages` of the PDF in `bytes`, in parallel; one result per request, in order, the
/// error saying why that page could not be read. `Err` when OCR cannot run at all.
pub(crate) fn recognize(
    bytes: &[u8],
    pages: &[Request],
    options: &OcrOptions,
) -> Result<Vec<Result<OcrPage, String>>, String> {
    if let Some(missing) = unavailable(&options.languages) {
        return Err(missing);
    }
    let source =
        render::Source::write(bytes).map_err(|e| format!("the PDF could not be written for OCR ({e})"))?;
    let workers =
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_WORKERS).min(pages.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<OcrPage, String>>>> = Mutex::new(vec![None; pages.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut engine = match tesseract::Engine::new(&options.languages) {
                    Ok(e) => e,
                    Err(e) => return tracing::warn!(?e, "an OCR worker could not start Tesseract"),
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(request) = pages.get(i) else { break };
                    let page = read_page(&mut engine, source.path(), *request, options.dpi);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(page);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("no OCR worker could start".to_string())))
        .collect())
}

/// Renders and reads one page.
#[tracing::instrument(name = "ocr", skip_all, fields(page = request.number))]
fn read_page(
    engine: &mut tesseract::Engine,
    pdf: &std::path::Path,
    request: Request,
    dpi: u32,
) -> Result<OcrPage, String> {
    let image = render::page(pdf, request.number, dpi)?;
    let words =
        engine.words(&image, dpi).ok_or_else(|| "Tesseract could not read the page image".to_string())?;
    Ok(words::glyphs(&words, &image, dpi, request.height))
}
