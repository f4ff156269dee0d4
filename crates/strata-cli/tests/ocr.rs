//! Scanned PDFs through the CLI (issue 26): a mixed PDF (digital pages and two scans) reads
//! whole in page order, and the PDF search tests of `tests/pdf.rs` run on an image-only copy
//! of NIST SP 800-207 (all 59 pages rendered at 300 dpi, no text layer).
//!
//! Skips, saying why, without the corpus or Tesseract; under `STRATA_REQUIRE_OCR=1` (CI) a
//! missing Tesseract fails instead.

mod common;
#[path = "../../strata-ingest/tests/ocr/scan.rs"]
mod scan;

use std::path::Path;
use std::sync::OnceLock;

use common::{corpus, json, Ingested};
use scan::{ocr_ready, Part};

/// Ingests `pdf` (bytes) as `name` into a new index, asserting it did not fail.
fn ingest(name: &str, pdf: &[u8]) -> Ingested {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, pdf).unwrap();
    let index = dir.path().join("index");
    let summary = json(&index, &["ingest", file.to_str().unwrap()]);
    assert_eq!(summary["failed"], 0, "{summary:#}");
    eprintln!(
        "ingested {name}: {} chunks in {:.1} s",
        summary["chunks"],
        summary["seconds"].as_f64().unwrap()
    );
    Ingested { _dir: dir, index }
}

/// Words of four letters or more, lower-cased.
fn words(s: &str) -> std::collections::HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// The text poppler reads on page `page` of `pdf`: the independent check.
fn pdftotext(pdf: &Path, page: u32) -> String {
    let n = page.to_string();
    let out = std::process::Command::new("pdftotext")
        .args(["-f", &n, "-l", &n])
        .arg(pdf)
        .arg("-")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_mixed_pdf_with_two_scanned_pages_reads_whole_in_page_order() {
    let Some(dir) = corpus() else { return };
    if !ocr_ready() {
        return;
    }
    let source = dir.join("pdf/aosa-bash-chapter-no-outline.pdf");
    let source = source.as_path();
    let scanned = [3, 6];
    let parts: Vec<Part> = (1..=7)
        .map(|page| {
            if scanned.contains(&page) {
                Part::Scanned { source, page, dpi: 300 }
            } else {
                Part::Digital { source, page }
            }
        })
        .collect();
    let ing = ingest("mixed.pdf", &scan::build(&parts));
    let out = json(&ing.index, &["read", "mixed", "--pages", "1-7"]);
    let pages = out["pages"].as_array().unwrap();
    assert_eq!(out["page_count"], 7, "{out:#}");
    let originals: Vec<_> = (1..=7).map(|p| words(&pdftotext(source, p))).collect();
    for (i, page) in pages.iter().enumerate() {
        let got = words(page["text"].as_str().unwrap());
        // The original page its words best match is the one at its place.
        let overlap = |o: &std::collections::HashSet<String>| o.intersection(&got).count();
        let best = (0..7).max_by_key(|&j| overlap(&originals[j])).unwrap();
        let share = overlap(&originals[i]) as f64 / originals[i].len().max(1) as f64;
        println!("page {}: {:.0} % of its words, best match page {}", i + 1, 100.0 * share, best + 1);
        assert_eq!(best, i, "page {} reads as page {}", i + 1, best + 1);
        assert!(share >= 0.9, "page {}: only {:.0} % of its words", i + 1, 100.0 * share);
    }
    // Hits on a scanned page say so, with the page's confidence; hits on digital pages do not.
    let hits = json(&ing.index, &["search", "bash", "-k", "50"]);
    let hits = hits["hits"].as_array().unwrap();
    let pages_of =
        |h: &serde_json::Value| h["pages"]["first"].as_u64().unwrap()..=h["pages"]["last"].as_u64().unwrap();
    let (on_scans, on_digital): (Vec<_>, Vec<_>) =
        hits.iter().partition(|h| pages_of(h).any(|p| p == 3 || p == 6));
    assert!(!on_scans.is_empty() && !on_digital.is_empty(), "hits on both kinds of page: {hits:#?}");
    for h in on_scans {
        assert_eq!(h["ocr"], true, "{h:#}");
        assert!(h["ocr_confidence"].as_u64().is_some_and(|c| c > 80), "{h:#}");
    }
    for h in on_digital {
        assert!(h.get("ocr").is_none() && h.get("ocr_confidence").is_none(), "{h:#}");
    }
}

/// NIST SP 800-207, every page scanned, ingested once.
fn scanned_nist() -> Option<&'static Ingested> {
    static INDEX: OnceLock<Option<Ingested>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let dir = corpus()?;
            if !ocr_ready() {
                return None;
            }
            let source = dir.join("pdf/nist-sp-800-207-zero-trust-architecture.pdf");
            Some(ingest("nist-sp-800-207-scanned.pdf", &scan::image_only(&source, 1..=59, 300)))
        })
        .as_ref()
}

/// `tests/pdf.rs`'s `read_pages_prints_those_pages_and_refuses_pages_past_the_end` on the
/// scan.
#[test]
fn scanned_copy_read_pages_prints_those_pages_and_refuses_pages_past_the_end() {
    let Some(ing) = scanned_nist() else { return };
    let out = json(&ing.index, &["read", "nist-sp-800-207-scanned", "--pages", "14-15"]);
    let pages = out["pages"].as_array().unwrap();
    assert_eq!(pages.iter().map(|p| p["number"].as_u64().unwrap()).collect::<Vec<_>>(), [14, 15]);
    assert_eq!(out["page_count"], 59);
    let text = pages[0]["text"].as_str().unwrap();
    assert!(text.contains("policy decision point (PDP)"), "{text}");
    assert!(!text.contains("available free of charge"), "the rotated margin stamp is left out: {text}");
    let bad = common::strata(&ing.index, &["read", "nist-sp-800-207-scanned", "--pages", "70"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("59 pages"));
}

/// `tests/pdf.rs`'s `pdf_hits_cite_the_page_their_text_is_on_by_its_printed_number` on the
/// scan.
#[test]
fn scanned_copy_hits_cite_the_page_their_text_is_on_by_its_printed_number() {
    let Some(ing) = scanned_nist() else { return };
    let out = json(&ing.index, &["search", "\"Attacker Response to ZTA\"", "--mode", "exact", "-k", "3"]);
    let hits = out["hits"].as_array().unwrap();
    let section = hits
        .iter()
        .find(|h| h["heading_path"].as_array().unwrap().last().unwrap() == "B.4.5 Attacker Response to ZTA")
        .unwrap_or_else(|| panic!("the section is among the hits: {out:#}"));
    assert_eq!(section["pages"]["first"], 58, "{section:#}");
    assert_eq!(section["ocr"], true, "{section:#}");
    let page = json(&ing.index, &["read", "nist-sp-800-207-scanned", "--pages", "58"]);
    assert!(page["pages"][0]["text"].as_str().unwrap().contains("Attacker Response to ZTA"));
    assert_eq!(page["pages"][0]["label"], "49");
    let context = out["context"]["text"].as_str().unwrap();
    assert!(context.contains("› B.4.5 Attacker Response to ZTA, p. 49]"), "{context}");
}

/// A re-ingest (`--force`, or the file removed and ingested again under another name) reads
/// its scanned pages from the index's OCR cache; only a page never seen is OCR'd.
#[test]
fn a_re_ingest_reads_scanned_pages_from_the_ocr_cache() {
    let Some(dir) = corpus() else { return };
    if !ocr_ready() {
        return;
    }
    let source = dir.join("pdf/aosa-bash-chapter-no-outline.pdf");
    let ing = ingest("scan.pdf", &scan::image_only(&source, 1..=3, 150));
    let file = ing.index.parent().unwrap().join("scan.pdf");
    let first = json(&ing.index, &["read", "scan", "--pages", "1-3"]);

    let again = json(&ing.index, &["ingest", "--force", file.to_str().unwrap()]);
    assert_eq!(again["ocr"], serde_json::json!({ "read": 0, "cached": 3 }), "{again:#}");
    assert_eq!(json(&ing.index, &["read", "scan", "--pages", "1-3"])["pages"], first["pages"]);

    // Removed, then pages 2 to 4 under another name: only page 4 is new.
    json(&ing.index, &["remove", "scan"]);
    let other = ing.index.parent().unwrap().join("other.pdf");
    std::fs::write(&other, scan::image_only(&source, 2..=4, 150)).unwrap();
    let summary = json(&ing.index, &["ingest", other.to_str().unwrap()]);
    assert_eq!(summary["ocr"], serde_json::json!({ "read": 1, "cached": 2 }), "{summary:#}");
}
