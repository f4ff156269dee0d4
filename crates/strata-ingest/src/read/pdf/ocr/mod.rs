//! OCR of pages without a text layer (scans), into the same layout stages as digital pages.
//!
//! The stages, one file each: `render` draws a page as an 8-bit gray image (poppler's
//! `pdftoppm`, at `[ingest] ocr_dpi`, default 300); `tesseract` reads its words with their
//! boxes, baselines and confidences (the `tesseract` program, its hOCR parsed by `hocr`);
//! `words` turns them into the glyphs `layout` takes, so lines, columns, furniture, tables,
//! paragraphs and headings come from the same code for a scan as for a digital page. Both
//! programs run as children under a deadline (`child`) and open their input by a path
//! (`source`): a hostile page costs its own time and memory, never the ingest's.
//!
//! Pages OCR'd before are read from a [`PageCache`] by page hash (`cache`), when the ingest
//! driver gives one.
//!
//! Pages are OCR'd in parallel by a few workers, each with one page image and one child at
//! a time. A page that cannot be rendered or read is reported by number
//! and left empty; the caller decides what an all-empty document is.

mod cache;
mod child;
mod hocr;
mod render;
mod source;
mod tesseract;
mod words;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

pub use cache::PageCache;
pub use strata_core::config::OcrMode;

pub(crate) use words::OcrPage;

/// Most OCR workers (each runs one Tesseract child, ~100 MB with `eng`, and holds one page
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
    /// Pixels one page's image may hold (`[ingest] ocr_max_page_pixels`).
    pub max_page_pixels: u64,
    /// Seconds one page's rendering may take (`[ingest] ocr_render_seconds`).
    pub render_seconds: u64,
    /// Seconds Tesseract may take to read one page (`[ingest] ocr_recognize_seconds`).
    pub recognize_seconds: u64,
}

impl Default for OcrOptions {
    /// OCR off: a reader built without a configuration reads text layers only.
    fn default() -> Self {
        OcrOptions::from_config(&strata_core::config::IngestConfig {
            ocr: OcrMode::Off,
            ..Default::default()
        })
    }
}

impl OcrOptions {
    /// The options `[ingest]` gives.
    pub fn from_config(ingest: &strata_core::config::IngestConfig) -> OcrOptions {
        OcrOptions {
            mode: ingest.ocr,
            languages: ingest.ocr_languages.clone(),
            dpi: ingest.ocr_dpi,
            max_page_pixels: ingest.ocr_max_page_pixels,
            render_seconds: ingest.ocr_render_seconds,
            recognize_seconds: ingest.ocr_recognize_seconds,
        }
    }

    /// The resolution page `request` is rendered at: [`OcrOptions::dpi`], or lower when
    /// the page would hold more than [`OcrOptions::max_page_pixels`] pixels, down to 72 dpi;
    /// below that the page is refused, before anything is rendered.
    pub(crate) fn dpi_for(&self, request: &Request) -> Result<u32, String> {
        let pixels_at = |dpi: u32| {
            let inches =
                f64::from(request.width.max(0.0)) * f64::from(request.height.max(0.0)) / (72.0 * 72.0);
            inches * f64::from(dpi) * f64::from(dpi)
        };
        let max = self.max_page_pixels as f64;
        if pixels_at(self.dpi) <= max {
            return Ok(self.dpi);
        }
        let dpi = (f64::from(self.dpi) * (max / pixels_at(self.dpi)).sqrt()).floor() as u32;
        if dpi >= MIN_DPI {
            return Ok(dpi);
        }
        Err(format!(
            "the page is {:.0} × {:.0} points: at {MIN_DPI} dpi it would hold {:.0} million pixels, more than [ingest] ocr_max_page_pixels ({}); raise it to OCR this page",
            request.width,
            request.height,
            pixels_at(MIN_DPI) / 1e6,
            self.max_page_pixels
        ))
    }
}

/// The lowest resolution a page too large for [`OcrOptions::max_page_pixels`] is rendered at.
const MIN_DPI: u32 = 72;

/// What to install for OCR, when something is missing; `None` when OCR can run.
///
/// A check that passed is remembered for the process (per language list); one that failed
/// is made again, so that OCR starts working once the missing package is installed.
pub fn unavailable(languages: &str) -> Option<String> {
    static READY: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let ready = || READY.lock().unwrap_or_else(|e| e.into_inner());
    if ready().iter().any(|l| l == languages) {
        return None;
    }
    let missing = check(languages);
    if missing.is_none() {
        ready().push(languages.to_string());
    }
    missing
}

fn check(languages: &str) -> Option<String> {
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
    let missing = tesseract::missing_languages(languages);
    let first = missing.first()?;
    Some(format!(
        "Tesseract has no data for {} of ocr_languages = {languages:?}; install it (e.g. `apt-get install tesseract-ocr-{first}`) or change [ingest] ocr_languages",
        missing.join(", ")
    ))
}

/// A page to OCR: its number (1-based, in document order), its object, and its displayed
/// width and height in points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    pub number: u32,
    pub page: lopdf::ObjectId,
    pub width: f32,
    pub height: f32,
}

/// [`recognize`], the pages `cache` holds read from it and the others put there once read.
pub(crate) fn recognize_cached(
    bytes: &[u8],
    doc: &lopdf::Document,
    pages: &[Request],
    options: &OcrOptions,
    cache: Option<&dyn PageCache>,
) -> Result<Vec<Result<OcrPage, String>>, String> {
    // Without Tesseract there is no version to key by, and `recognize` says what to install.
    let Some((cache, version)) = cache.zip(tesseract::version()) else {
        return recognize(bytes, pages, options);
    };
    let keys: Vec<String> = pages.iter().map(|p| cache::key(doc, p.page, options, &version)).collect();
    let found = cache.get(&keys);
    let mut results: Vec<Option<Result<OcrPage, String>>> =
        keys.iter().map(|k| found.get(k).and_then(|v| cache::decode(v)).map(Ok)).collect();
    let missing: Vec<usize> = (0..pages.len()).filter(|&i| results[i].is_none()).collect();
    tracing::debug!(cached = pages.len() - missing.len(), to_read = missing.len(), "OCR cache");
    if !missing.is_empty() {
        let requests: Vec<Request> = missing.iter().map(|&i| pages[i]).collect();
        for (&i, result) in missing.iter().zip(recognize(bytes, &requests, options)?) {
            if let Ok(page) = &result {
                cache.put(keys[i].clone(), cache::encode(page));
            }
            results[i] = Some(result);
        }
    }
    Ok(results.into_iter().map(|r| r.unwrap_or_else(|| Err("the page was not read".to_string()))).collect())
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
    let source = source::Source::write(&[bytes], "pdf")
        .map_err(|e| format!("the PDF could not be written for OCR ({e})"))?;
    let workers =
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_WORKERS).min(pages.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<OcrPage, String>>>> = Mutex::new(vec![None; pages.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(request) = pages.get(i) else { break };
                let page = read_page(&source, *request, options);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(page);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(results.into_iter().map(|r| r.unwrap_or_else(|| Err("the page was not read".to_string()))).collect())
}

/// Renders and reads one page.
#[tracing::instrument(name = "ocr", skip_all, fields(page = request.number))]
fn read_page(pdf: &source::Source, request: Request, options: &OcrOptions) -> Result<OcrPage, String> {
    let dpi = options.dpi_for(&request)?;
    let deadline = Duration::from_secs(options.render_seconds);
    let image = render::page(pdf, request.number, dpi, options.max_page_pixels, deadline)?;
    let deadline = Duration::from_secs(options.recognize_seconds);
    let words = tesseract::words(&image, dpi, &options.languages, deadline)?;
    Ok(words::glyphs(&words, &image, dpi, request.height))
}
