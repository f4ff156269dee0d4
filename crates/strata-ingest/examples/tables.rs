//! Prints the table blocks a reader finds in one file, one JSON object per table: its page,
//! its header rows and its rows split into cells; then one summary object with the time the
//! read took and the page count. For comparing strata's tables with another extractor
//! (`scripts/bench/tables.py`):
//!
//! ```sh
//! cargo run -p strata-ingest --release --example tables -- FILE
//! ```

use strata_core::BlockKind;
use strata_ingest::read::reader_for;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: tables FILE");
        std::process::exit(2);
    };
    let ext = std::path::Path::new(&path).extension().and_then(|e| e.to_str()).unwrap_or("");
    let Some(reader) = strata_core::Format::from_extension(ext).and_then(reader_for) else {
        eprintln!("{path}: no reader for .{ext}");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let started = std::time::Instant::now();
    let parsed = reader.read(&bytes).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let secs = started.elapsed().as_secs_f64();
    let page_of = |offset: usize| parsed.page_breaks.partition_point(|b| *b <= offset) + 1;
    for b in parsed.blocks.iter().filter(|b| b.kind == BlockKind::Table) {
        let text = b.span.slice(&parsed.text);
        let header_rows = b.header.map_or(0, |h| h.slice(&parsed.text).lines().count());
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(" | ").map(str::trim).collect()).collect();
        let row =
            serde_json::json!({ "page": page_of(b.span.start), "header_rows": header_rows, "rows": rows });
        println!("{row}");
    }
    let pages = parsed.page_breaks.len() + 1;
    println!("{}", serde_json::json!({ "summary": true, "pages": pages, "seconds": secs }));
}
