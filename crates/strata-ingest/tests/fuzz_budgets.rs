//! The fuzz targets' inputs replayed on stable Rust, each within its budget of memory and
//! time: the committed seeds (`fuzz/seeds/`), what a local fuzz run kept (`fuzz/corpus/`,
//! when there is one), the regression files of what fuzzing found
//! (`tests/fuzz-regressions/`), the small documents of the shared corpus the seeds are made
//! from, and the hostile inputs of issue 53 (`bombs/`).
//!
//! Each read must keep the reader contract (`strata_ingest::read::contract`) and stay within
//! its budget: the fuzz runs' 256 MB and 2 s (`fuzz/run.sh`), or the target for a
//! bomb. The heap is counted by this binary's allocator (the peak a read holds); the time is
//! the thread's CPU time, which a loaded machine stretches less than wall-clock time. The
//! readers build with optimizations in tests too (`[profile.dev.package.strata-ingest]`), so
//! the budgets are the fuzz runs' own.
#![cfg(unix)]

mod bombs;
mod budget;

use std::path::{Path, PathBuf};
use std::time::Duration;

use budget::{alone, measure, Alone, Budget, Counting};
use strata_core::Format;
use strata_ingest::read::contract::read_and_check;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The fuzz targets and the format each reads.
const TARGETS: [(&str, Format); 5] = [
    ("read_markdown", Format::Markdown),
    ("read_html", Format::Html),
    ("read_text", Format::Text),
    ("read_pdf", Format::Pdf),
    ("read_docx", Format::Docx),
];

/// The largest shared-corpus file `fuzz/seed.sh` takes as a seed.
const MAX_SEED: u64 = 300 * 1024;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads `bytes` as `format`, measured; says what went wrong, if anything did.
fn replay(alone: &Alone, name: &str, format: Format, bytes: &[u8], budget: Budget) -> Option<String> {
    let (checked, cost) = measure(alone, || read_and_check(format, bytes));
    eprintln!(
        "{name}: {} bytes, peak heap {:.1} MB, {:.3} s CPU",
        bytes.len(),
        cost.heap as f64 / (1 << 20) as f64,
        cost.cpu.as_secs_f64()
    );
    match (checked, cost.over(budget)) {
        (Err(why), _) => Some(format!("{name}: {why}")),
        (Ok(()), Some(over)) => Some(format!("{name}: {over}")),
        (Ok(()), None) => None,
    }
}

/// Every file of `dir` (not recursive) up to `max` bytes, in name order; none when `dir` is
/// absent.
fn files(dir: &Path, max: u64) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.metadata().is_ok_and(|m| m.is_file() && m.len() <= max))
        .collect();
    out.sort();
    out
}

fn replay_files(alone: &Alone, paths: &[PathBuf], format: Format, failures: &mut Vec<String>) {
    for path in paths {
        let bytes = std::fs::read(path).unwrap();
        failures.extend(replay(alone, &path.display().to_string(), format, &bytes, Budget::FUZZ));
    }
}

fn assert_none(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} input(s) broke the contract or the budget:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn seeds_kept_inputs_and_regressions_read_within_the_fuzz_budget() {
    let alone = alone();
    let mut failures = Vec::new();
    let mut count = 0;
    for (target, format) in TARGETS {
        let mut paths = files(&repo().join("fuzz/seeds").join(target), u64::MAX);
        paths.extend(files(&repo().join("fuzz/corpus").join(target), u64::MAX));
        let regressions = files(&repo().join("crates/strata-ingest/tests/fuzz-regressions"), u64::MAX);
        let prefix = format!("{target}-");
        paths.extend(
            regressions
                .into_iter()
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix))),
        );
        count += paths.len();
        replay_files(&alone, &paths, format, &mut failures);
    }
    assert!(count >= TARGETS.len(), "fuzz/seeds/ should hold a seed per target; found {count} inputs");
    assert_none(&failures);
}

#[test]
fn shared_corpus_seeds_read_within_the_fuzz_budget() {
    let Some(corpus) = strata_core::testdata::shared("corpus") else { return };
    let alone = alone();
    let mut failures = Vec::new();
    for (dir, format) in [
        ("markdown", Format::Markdown),
        ("html", Format::Html),
        ("txt", Format::Text),
        ("pdf", Format::Pdf),
        ("docx", Format::Docx),
    ] {
        replay_files(&alone, &files(&corpus.join(dir), MAX_SEED), format, &mut failures);
    }
    assert_none(&failures);
}

/// Reads the bomb `name` of [`bombs::all`] within its budget.
fn bomb(name: &str) {
    let alone = alone();
    let bomb = bombs::all().into_iter().find(|b| b.name == name).unwrap();
    let budget = Budget { heap: bomb.heap_mb << 20, cpu: Duration::from_secs(bomb.cpu_secs) };
    assert_none(&Vec::from_iter(replay(&alone, bomb.name, bomb.format, &bomb.bytes, budget)));
}

/// A 17 KB PDF of one page, a line of text and then 4M `q Q`, took 4.7 GB: the stream was
/// parsed whole before the operator cap was checked.
#[test]
fn regression_content_stream_bomb_reads_within_300_mb_and_2_s() {
    bomb("content-ops.pdf");
}

#[test]
fn image_bombs_read_within_the_fuzz_budget() {
    bomb("image-huge.pdf");
    bomb("page-huge.pdf");
}

/// 60 MB of `# a` lines took 4.2 GB: every heading became a section.
#[test]
fn regression_heading_bomb_reads_within_1_gb() {
    bomb("headings.md");
}

/// 3.5M one-letter paragraphs at outline level 1 (a 1.8 MB DOCX) took 2.7 GB: roxmltree held
/// the tree of the whole 260 MB document part.
#[test]
fn regression_outline_docx_bomb_reads_within_1_gb() {
    bomb("outline.docx");
}
