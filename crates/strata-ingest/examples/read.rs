//! Prints what a reader finds in one file: the headings with their levels and pages, then
//! the text with page breaks marked. For looking at a reader's output while working on it:
//!
//! ```sh
//! cargo run -p strata-ingest --release --example read -- FILE [--text]
//! ```
//!
//! With `--tables` it prints instead one JSON object per table block (its page, header rows
//! and rows split into cells), then one summary object with the read's time and the page
//! count: what `scripts/bench/tables.py` compares with pdfplumber.

use strata_core::Format;
use strata_ingest::read::reader_for;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: read FILE [--text | --tables]");
        std::process::exit(2);
    };
    let flags: Vec<String> = args.collect();
    let show_text = flags.iter().any(|a| a == "--text");
    let ext = std::path::Path::new(&path).extension().and_then(|e| e.to_str()).unwrap_or("");
    let Some(reader) = Format::from_extension(ext).and_then(reader_for) else {
        eprintln!("{path}: no reader for .{ext}");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let started = std::time::Instant::now();
    let parsed = match reader.read(&bytes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let secs = started.elapsed().as_secs_f64();
    let page_of = |offset: usize| parsed.page_breaks.partition_point(|b| *b <= offset) + 1;
    if flags.iter().any(|a| a == "--tables") {
        print_tables(&parsed, secs);
        return;
    }
    println!(
        "# {path}: {} bytes of text, {} pages, {} headings, {} blocks, {:.3} s",
        parsed.text.len(),
        parsed.page_breaks.len() + 1,
        parsed.headings.len(),
        parsed.blocks.len(),
        secs
    );
    println!("title: {:?}", parsed.title);
    for w in &parsed.warnings {
        println!("warning: {w}");
    }
    for h in &parsed.headings {
        println!(
            "{}{} [p. {}] {:?}",
            "  ".repeat(h.level.saturating_sub(1) as usize),
            h.title,
            page_of(h.span.start),
            &parsed.text[h.span.start..h.span.end]
        );
    }
    if show_text {
        let mut last = 0;
        for (i, b) in parsed.page_breaks.iter().chain(std::iter::once(&parsed.text.len())).enumerate() {
            let label = parsed.page_labels.get(i).cloned().flatten().unwrap_or_default();
            println!("\n===== page {} {label} =====", i + 1);
            println!("{}", &parsed.text[last..*b]);
            last = *b;
        }
    }
}

/// The table blocks as JSON lines, then a summary line.
fn print_tables(parsed: &strata_ingest::read::Parsed, secs: f64) {
    let page_of = |offset: usize| parsed.page_breaks.partition_point(|b| *b <= offset) + 1;
    for b in parsed.blocks.iter().filter(|b| b.kind == strata_core::BlockKind::Table) {
        let header_rows = b.header.map_or(0, |h| h.slice(&parsed.text).lines().count());
        let rows: Vec<Vec<&str>> =
            b.span.slice(&parsed.text).lines().map(|l| l.split(" | ").map(str::trim).collect()).collect();
        let row =
            serde_json::json!({ "page": page_of(b.span.start), "header_rows": header_rows, "rows": rows });
        println!("{row}");
    }
    let pages = parsed.page_breaks.len() + 1;
    println!("{}", serde_json::json!({ "summary": true, "pages": pages, "seconds": secs }));
}
