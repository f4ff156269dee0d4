//! OCR of scanned pages, measured against the digital originals (issue 26).
//!
//! Corpus pages (`../shared/data/corpus/pdf`) are rendered to gray JPEGs at 300 dpi and put
//! in image-only PDFs ([`scan`]); the reader OCRs them and its output is compared with what
//! it reads from the digital pages:
//!
//! 1. **Body text**: the character error rate (edit distance over the digital text's length,
//!    whitespace runs as one space, letters lower-cased, tables left out) is at most 3 % over
//!    all pages. Lower-cased because small capitals are capitals on paper and lower-case
//!    letters in the text layer (`1. Introduction` is printed `1. INTRODUCTION`), and search
//!    does not see case;
//! 2. **Headings**: at least 90 % of the digital document's headings on those pages are
//!    recovered (titles equal in letters and digits, lower-cased, over their first 40);
//! 3. **Pages**: each chunk of the scanned copy cites the page its words come from;
//! 4. **Tables**: the rows of the digital tables are rows of the scanned copy's tables.
//!
//! The pages: 14 of a one-column chapter without outline (headings recovered from their
//! numbers), 4 two-column pages of the Ethereum yellow paper, 12 pages of NIST SP 800-207
//! (appendix B), and PepsiCo's 2022 financial statements (5 pages of tables, from the
//! FinanceBench filings). Without Tesseract or the corpus the tests skip with a message, unless
//! `STRATA_REQUIRE_OCR=1` (CI), where a missing Tesseract fails them.

mod cached;
mod measure;
mod scan;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use strata_core::{BlockKind, Config, Format};
use strata_ingest::read::pdf::ocr::{OcrMode, OcrOptions};
use strata_ingest::read::{reader_for, reader_with, Parsed};

use measure::{cer, norm, page_texts, ws};
use scan::ocr_ready;

/// Scans are rendered at this resolution, as office scanners do.
const SCAN_DPI: u32 = 300;

/// One document of the accuracy set and the pages taken from it.
struct Sample {
    /// Under `../shared/data`.
    file: &'static str,
    pages: std::ops::RangeInclusive<u32>,
}

const SAMPLES: &[Sample] = &[
    Sample { file: "corpus/pdf/aosa-bash-chapter-no-outline.pdf", pages: 1..=14 },
    Sample { file: "corpus/pdf/ethereum-yellow-paper-2col.pdf", pages: 1..=4 },
    Sample { file: "corpus/pdf/nist-sp-800-207-zero-trust-architecture.pdf", pages: 48..=59 },
    // The financial statements: income, comprehensive income, cash flows, balance sheet.
    Sample { file: "eval/financebench-dev/PEPSICO_2022_10K.pdf", pages: 62..=66 },
];

/// The statements' sample.
const TABLES: usize = 3;

fn corpus() -> Option<PathBuf> {
    strata_core::testdata::shared("corpus")?;
    strata_core::testdata::shared("eval/financebench-dev")?;
    Some(strata_core::testdata::root())
}

fn auto() -> OcrOptions {
    OcrOptions { mode: OcrMode::Auto, ..OcrOptions::default() }
}

/// A sample read digitally and from its scan.
struct Pair {
    digital: Parsed,
    scanned: Parsed,
    pages: Vec<u32>,
}

/// The samples, each read once (the scans take most of the test time).
fn pairs() -> Option<&'static [Pair]> {
    static PAIRS: OnceLock<Vec<Pair>> = OnceLock::new();
    let dir = corpus()?;
    if !ocr_ready() {
        return None;
    }
    Some(PAIRS.get_or_init(|| {
        SAMPLES
            .iter()
            .map(|s| {
                let path = dir.join(s.file);
                let digital = reader_for(Format::Pdf).unwrap().read(&std::fs::read(&path).unwrap()).unwrap();
                let bytes = scan::image_only(&path, s.pages.clone(), SCAN_DPI);
                // The scans, kept for a look or a benchmark (`bench/results/ocr.md`).
                if let Ok(keep) = std::env::var("STRATA_OCR_KEEP_SCANS") {
                    std::fs::write(Path::new(&keep).join(path.file_name().unwrap()), &bytes).unwrap();
                }
                let scanned = reader_with(Format::Pdf, &auto(), None).unwrap().read(&bytes).unwrap();
                Pair { digital, scanned, pages: s.pages.clone().collect() }
            })
            .collect()
    }))
}

#[test]
fn body_text_of_scans_is_within_three_percent_of_the_digital_text() {
    let Some(pairs) = pairs() else { return };
    let (mut errors, mut chars) = (0usize, 0usize);
    for (pair, sample) in pairs.iter().zip(SAMPLES) {
        let digital = page_texts(&pair.digital, &[BlockKind::Table]);
        let scanned = page_texts(&pair.scanned, &[BlockKind::Table]);
        assert_eq!(scanned.len(), pair.pages.len(), "{}: one page of text per scanned page", sample.file);
        let (mut e, mut n) = (0, 0);
        for (i, &p) in pair.pages.iter().enumerate() {
            let (want, got) = (ws(&digital[p as usize - 1]).to_lowercase(), ws(&scanned[i]).to_lowercase());
            let d = cer(&want, &got);
            println!(
                "{} p{p}: {d} errors in {} chars ({:.2} %)",
                sample.file,
                want.chars().count(),
                100.0 * d as f64 / want.chars().count().max(1) as f64
            );
            e += d;
            n += want.chars().count();
        }
        println!("{}: CER {:.2} % ({e} / {n})", sample.file, 100.0 * e as f64 / n.max(1) as f64);
        errors += e;
        chars += n;
    }
    let rate = errors as f64 / chars as f64;
    println!("all pages: CER {:.2} % ({errors} / {chars})", 100.0 * rate);
    assert!(rate <= 0.03, "CER {:.2} % over 3 %", 100.0 * rate);
}

#[test]
fn headings_of_scans_are_those_of_the_digital_pages() {
    let Some(pairs) = pairs() else { return };
    let (mut found, mut total) = (0, 0);
    for (pair, sample) in pairs.iter().zip(SAMPLES) {
        let on_pages = measure::headings_on(&pair.digital, &pair.pages);
        let got: Vec<String> = pair.scanned.headings.iter().map(|h| norm(&h.title)).collect();
        for want in &on_pages {
            let hit = got.iter().any(|g| measure::same_title(want, g));
            if !hit {
                println!("{}: missed heading {want:?}", sample.file);
            }
            found += hit as usize;
            total += 1;
        }
        println!(
            "{}: {} digital headings on the pages, {} in the scan",
            sample.file,
            on_pages.len(),
            got.len()
        );
    }
    println!("headings recovered: {found} of {total}");
    assert!(total >= 10, "the samples hold headings");
    assert!(found as f64 >= 0.9 * total as f64, "{found} of {total} headings recovered");
}

#[test]
fn chunks_of_scans_cite_the_pages_their_words_are_on() {
    let Some(pairs) = pairs() else { return };
    let dir = corpus().unwrap();
    let mut config = Config::default();
    config.ingest.ocr = OcrMode::Auto;
    let pipeline = strata_ingest::pipeline::Pipeline::new(&config).unwrap();
    let sample = &SAMPLES[2];
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("scan.pdf");
    std::fs::write(&path, scan::image_only(&dir.join(sample.file), sample.pages.clone(), SCAN_DPI)).unwrap();
    let ingested = pipeline.ingest_file(&path).unwrap();
    let pages = page_texts(&pairs[2].digital, &[]);
    let wrong = measure::misplaced_chunks(&ingested, &pages, &pairs[2].pages);
    println!(
        "{} chunks, {} cite another page than their words: {wrong:?}",
        ingested.chunks.len(),
        wrong.len()
    );
    assert!(ingested.chunks.len() >= 10);
    assert!(
        wrong.len() * 20 <= ingested.chunks.len(),
        "more than 5 % of chunks cite the wrong page: {wrong:?}"
    );
    assert!(
        ingested.document.pages.iter().all(|p| p.ocr.is_some_and(|c| c > 50)),
        "every page is marked OCR'd with its confidence"
    );
}

#[test]
fn tables_of_scans_keep_their_rows() {
    let Some(pairs) = pairs() else { return };
    let pair = &pairs[TABLES];
    let want = measure::table_rows(&pair.digital, &pair.pages);
    let got = measure::table_rows(&pair.scanned, &(1..=pair.pages.len() as u32).collect::<Vec<_>>());
    assert!(want.len() >= 50, "the statements have rows: {want:?}");
    let kept = want.iter().filter(|w| got.iter().any(|g| cer(w, g) * 10 <= w.chars().count())).count();
    println!("table rows: {} digital, {} scanned, {kept} kept", want.len(), got.len());
    assert!(
        kept * 10 >= want.len() * 9,
        "{kept} of {} rows kept; digital {want:#?} scanned {got:#?}",
        want.len()
    );
}
