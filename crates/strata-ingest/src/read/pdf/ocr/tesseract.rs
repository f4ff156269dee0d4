//! Tesseract, run as the `tesseract` program on one page image at a time.
//!
//! A child process per page is what bounds a page: Tesseract's own deadline (its progress
//! monitor) is checked during recognition but not during page layout analysis, where a page
//! of speckles took 50 s with a 1 ms deadline when Tesseract ran inside strata. A child is
//! killed at `[ingest] ocr_recognize_seconds`, whatever it is doing, its memory is its own,
//! and a crash costs that page only. Starting it and loading `eng` takes about 0.1 s, a few
//! percent of the seconds a page's recognition takes (`bench/results/ocr.md`).
//!
//! The page goes in as a PGM file ([`Source`]), and the words come back as hOCR, the output
//! that carries each line's baseline (`hocr`).

use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use super::child;
use super::hocr::{self, Word};
use super::source::Source;

/// The program.
const TESSERACT: &str = "tesseract";

/// Most hOCR bytes read for one page: about 150 bytes a word, so a hundred thousand words.
const MAX_HOCR_BYTES: u64 = 16 << 20;

/// An 8-bit gray image, one byte per pixel, rows top down.
pub(crate) struct Gray {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

/// Tesseract's version (`5.3.0`), when the program runs. Once found it is remembered for the
/// process; until then it is asked again, so that OCR starts once Tesseract is installed.
pub(crate) fn version() -> Option<String> {
    static VERSION: OnceLock<String> = OnceLock::new();
    if let Some(known) = VERSION.get() {
        return Some(known.clone());
    }
    let out = Command::new(TESSERACT).arg("--version").output().ok()?;
    // Tesseract 4 printed its version on stderr, 5 on stdout.
    let text = [out.stdout, out.stderr].concat();
    let first = String::from_utf8_lossy(&text).lines().next()?.trim().to_string();
    let version = first.strip_prefix("tesseract ")?.trim().to_string();
    Some(VERSION.get_or_init(|| version).clone())
}

/// The languages of `languages` (`eng+deu`) that Tesseract has no data for; empty when it
/// has them all.
pub(crate) fn missing_languages(languages: &str) -> Vec<String> {
    let installed = Command::new(TESSERACT)
        .arg("--list-langs")
        .output()
        .map(|out| {
            String::from_utf8_lossy(&out.stdout).lines().skip(1).map(str::trim).map(String::from).collect()
        })
        .unwrap_or_else(|_| Vec::<String>::new());
    languages.split('+').filter(|l| !installed.iter().any(|i| i == l)).map(String::from).collect()
}

/// Reads the words of `image`, rendered at `dpi`, with `languages`, within `deadline`; the
/// error says why it could not.
pub(crate) fn words(
    image: &Gray,
    dpi: u32,
    languages: &str,
    deadline: Duration,
) -> Result<Vec<Word>, String> {
    let header = format!("P5\n{} {}\n255\n", image.width, image.height);
    let pgm = Source::write(&[header.as_bytes(), &image.pixels], "pgm")
        .map_err(|e| format!("the page image could not be written for Tesseract ({e})"))?;
    let mut command = Command::new(TESSERACT);
    command
        .arg(pgm.path())
        .args(["-", "-l", languages, "--psm", "3", "--dpi", &dpi.to_string()])
        // Spaces between words come from their boxes; keep Tesseract from padding.
        .args(["-c", "preserve_interword_spaces=0", "hocr"])
        .env("OMP_THREAD_LIMIT", omp_thread_limit());
    pgm.share_with(&mut command);
    let done = child::run(command, MAX_HOCR_BYTES, deadline)
        .map_err(|f| f.message("Tesseract", "read it", "ocr_recognize_seconds", deadline))?;
    if !done.status.success() {
        let err = String::from_utf8_lossy(&done.stderr);
        return Err(format!("Tesseract could not read the page image ({}): {}", done.status, err.trim()));
    }
    if done.stdout.len() as u64 > MAX_HOCR_BYTES {
        return Err(format!("Tesseract read more than {} MiB of words on it", MAX_HOCR_BYTES >> 20));
    }
    Ok(hocr::words(&String::from_utf8_lossy(&done.stdout)))
}

/// OpenMP threads per Tesseract: `OMP_THREAD_LIMIT` when the environment sets it, else 1.
///
/// Debian's Tesseract runs its LSTM on OpenMP with a fixed team of threads per call (its
/// `num_threads` clauses override `omp_set_num_threads`; only the limit caps them). strata
/// already runs one OCR worker per core, and both together oversubscribe the machine:
/// measured on 2 cores, 3.5 times as long, most of it in spinning threads
/// (`bench/results/ocr.md`).
fn omp_thread_limit() -> String {
    std::env::var("OMP_THREAD_LIMIT").unwrap_or_else(|_| "1".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether Tesseract with `eng` runs here; under `STRATA_REQUIRE_OCR` it must.
    fn ready() -> bool {
        let ready = version().is_some() && missing_languages("eng").is_empty();
        assert!(ready || std::env::var("STRATA_REQUIRE_OCR").is_err(), "Tesseract with eng is required");
        ready
    }

    /// Issue 53: recognition had no hard time bound. Tesseract's monitor deadline was not
    /// checked during page layout analysis, where a page of speckles took 50 s with a 1 ms
    /// deadline. Tesseract now runs as a child killed at the deadline: a page past it is an
    /// error naming the setting, and the next page reads as before.
    #[test]
    fn regression_a_page_past_its_recognition_deadline_is_killed() {
        if !ready() {
            return eprintln!("skipping: Tesseract with eng is not installed");
        }
        // Speckles: one dark pixel in seven, pseudo-random, over a Letter page at 300 dpi.
        let (width, height) = (2550, 3300);
        let mut state = 0x2545_f491_u32;
        let pixels = (0..width * height)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                if state % 7 == 0 {
                    0
                } else {
                    255
                }
            })
            .collect();
        let speckles = Gray { width, height, pixels };
        let err = words(&speckles, 300, "eng", Duration::from_millis(200)).unwrap_err();
        assert!(err.contains("[ingest] ocr_recognize_seconds"), "{err}");
        let blank = Gray { width: 100, height: 100, pixels: vec![255; 10_000] };
        assert_eq!(words(&blank, 300, "eng", Duration::from_secs(30)), Ok(Vec::new()));
    }

    #[test]
    fn missing_languages_are_named() {
        if !ready() {
            return eprintln!("skipping: Tesseract with eng is not installed");
        }
        assert_eq!(missing_languages("eng+xx-not-a-language"), ["xx-not-a-language"]);
        assert!(version().is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit())));
    }
}
