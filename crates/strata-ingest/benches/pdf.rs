//! strata's PDF reader against poppler's `pdftotext`, pages per second, in one run.
//!
//! For each corpus `pdf/*.pdf` (bytes read into memory once): strata's
//! `reader_for(Format::Pdf).read(&bytes)` (the whole reader: parse, interpret, lay out, strip
//! furniture, place the outline or recover headings) against `pdftotext FILE -` and
//! `pdftotext -layout FILE -`, each a spawned process writing to a pipe that the bench drains.
//! The three sides run interleaved (one warm-up pass, then `RUNS` passes), so they see the same
//! background load; the table reports medians, and best-of in a second table.
//!
//! pdftotext pays for a process start and reads the file from the page cache; strata reads
//! from memory. The spawn floor (`pdftotext -v`, which starts the process and exits) is printed
//! so the reader can tell how much of pdftotext's time on small files is start-up.
//!
//! Run: `cargo bench -p strata-ingest --bench pdf`. `STRATA_PDF_BENCH_RUNS` sets the passes
//! (default 7; 1 under `cargo test --benches`). Skips when the corpus or `pdftotext` is missing.

use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use strata_core::Format;
use strata_ingest::read::{reader_for, Reader};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/corpus/pdf");
const DEFAULT_RUNS: usize = 7;

struct Input {
    name: String,
    path: PathBuf,
    bytes: Vec<u8>,
    /// Pages as strata counts them (page breaks + 1).
    pages: usize,
    /// Pages as pdftotext counts them (form feeds).
    pages_poppler: usize,
    strata_text: usize,
    poppler_text: usize,
}

/// The timings of one side on one file.
#[derive(Default)]
struct Samples(Vec<Duration>);

impl Samples {
    fn median(&self) -> Duration {
        let mut v = self.0.clone();
        v.sort();
        v[v.len() / 2]
    }
    fn best(&self) -> Duration {
        self.0.iter().copied().min().unwrap_or_default()
    }
}

fn pdf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|e| e == "pdf"));
    out.sort();
    out
}

/// Runs `pdftotext [extra] FILE -`, drains its stdout, and returns the text's length in bytes
/// and its page count (form feeds).
fn pdftotext(path: &Path, extra: &[&str]) -> Result<(usize, usize), String> {
    let mut child = Command::new("pdftotext")
        .args(extra)
        .arg(path)
        .arg("-")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("pdftotext: {e}"))?;
    let mut out = Vec::new();
    child.stdout.take().expect("piped").read_to_end(&mut out).map_err(|e| format!("pdftotext: {e}"))?;
    let status = child.wait().map_err(|e| format!("pdftotext: {e}"))?;
    if !status.success() {
        return Err(format!("pdftotext {} exited with {status}", path.display()));
    }
    Ok((out.len(), out.iter().filter(|&&b| b == b'\x0c').count()))
}

fn spawn_floor() -> Result<(), String> {
    let status = Command::new("pdftotext")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("pdftotext: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("pdftotext -v exited with {status}"))
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let r = black_box(f());
    (t.elapsed(), r)
}

/// Loads the corpus and checks both sides once, or says why the bench is skipped.
fn load(reader: &dyn Reader) -> Result<Vec<Input>, String> {
    let paths = pdf_files(Path::new(CORPUS));
    if paths.is_empty() {
        return Err(format!("no corpus PDFs at {CORPUS}"));
    }
    spawn_floor().map_err(|e| format!("{e} (install poppler-utils)"))?;
    let mut inputs = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let parsed = reader.read(&bytes).map_err(|e| format!("strata on {}: {e}", path.display()))?;
        let (poppler_text, pages_poppler) = pdftotext(&path, &[])?;
        inputs.push(Input {
            name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            path,
            bytes,
            pages: parsed.page_breaks.len() + 1,
            pages_poppler,
            strata_text: parsed.text.len(),
            poppler_text,
        });
    }
    Ok(inputs)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn pps(pages: usize, d: Duration) -> f64 {
    pages as f64 / d.as_secs_f64()
}

fn table(title: &str, inputs: &[Input], sides: &[[Samples; 3]], pick: fn(&Samples) -> Duration) {
    println!();
    println!("### {title}");
    println!();
    println!(
        "| file | pages | strata ms | pdftotext ms | pdftotext -layout ms | strata pages/s | pdftotext pages/s | -layout pages/s | ratio vs pdftotext | ratio vs -layout |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut total = [Duration::ZERO; 3];
    let mut pages = 0;
    for (input, s) in inputs.iter().zip(sides) {
        let [a, b, c] = [pick(&s[0]), pick(&s[1]), pick(&s[2])];
        total[0] += a;
        total[1] += b;
        total[2] += c;
        pages += input.pages;
        row(&input.name, input.pages, a, b, c, false);
    }
    row("total", pages, total[0], total[1], total[2], true);
}

fn row(name: &str, pages: usize, a: Duration, b: Duration, c: Duration, bold: bool) {
    let star = if bold { "**" } else { "" };
    println!(
        "| {star}{name}{star} | {pages} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {star}{:.2}×{star} | {star}{:.2}×{star} |",
        ms(a),
        ms(b),
        ms(c),
        pps(pages, a),
        pps(pages, b),
        pps(pages, c),
        b.as_secs_f64() / a.as_secs_f64(),
        c.as_secs_f64() / a.as_secs_f64(),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let runs = std::env::var("STRATA_PDF_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(if args.iter().any(|a| a == "--bench") { DEFAULT_RUNS } else { 1 });
    let reader = reader_for(Format::Pdf).expect("this build reads PDF");
    let inputs = match load(reader.as_ref()) {
        Ok(i) => i,
        Err(why) => {
            println!("pdf bench skipped: {why}");
            return;
        }
    };
    for i in &inputs {
        println!(
            "input {}: {} B, {} pages (pdftotext: {}), text {} B strata / {} B pdftotext",
            i.name,
            i.bytes.len(),
            i.pages,
            i.pages_poppler,
            i.strata_text,
            i.poppler_text
        );
    }

    let mut floor = Samples::default();
    let mut sides: Vec<[Samples; 3]> = inputs.iter().map(|_| Default::default()).collect();
    // Pass 0 warms caches and is not counted; later passes interleave the three sides.
    for pass in 0..=runs {
        for (input, s) in inputs.iter().zip(sides.iter_mut()) {
            let (a, _) = timed(|| reader.read(black_box(&input.bytes)).map(|p| p.text.len()));
            let (b, r1) = timed(|| pdftotext(&input.path, &[]));
            let (c, r2) = timed(|| pdftotext(&input.path, &["-layout"]));
            if let Err(e) = r1.and(r2) {
                println!("pdf bench failed: {e}");
                std::process::exit(1);
            }
            if pass > 0 {
                s[0].0.push(a);
                s[1].0.push(b);
                s[2].0.push(c);
            }
        }
        let (f, _) = timed(spawn_floor);
        if pass > 0 {
            floor.0.push(f);
        }
    }

    println!();
    println!("{runs} timed passes per side and file, interleaved, after one warm-up pass.");
    println!(
        "ratio = pdftotext time / strata time (>1: strata is faster). pdftotext spawn floor (`pdftotext -v`): median {:.2} ms, best {:.2} ms.",
        ms(floor.median()),
        ms(floor.best())
    );
    table("median of runs", &inputs, &sides, Samples::median);
    table("best of runs", &inputs, &sides, Samples::best);
}
