//! Times `Engine::search` for queries read from standard input, one per line, answering each
//! with its seconds on standard output: the Rust side of `bench/python-latency.py --rust-bin`,
//! which interleaves it with the same searches from Python on the same index.
//!
//! ```text
//! cargo build --release -p strata-engine --no-default-features --example search_timing
//! echo "section 102(b)" | target/release/examples/search_timing INDEX_DIR MODEL [MODE]
//! ```

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use strata_core::Config;
use strata_engine::{Engine, OpenOptions, SearchOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [index, model, rest @ ..] = args.as_slice() else {
        return Err("usage: search_timing INDEX_DIR MODEL [MODE] < queries".into());
    };
    let mode = rest.first().cloned();
    let open = OpenOptions { model: Some(model.clone()), dense: true, ..OpenOptions::default() };
    let engine = Engine::open(Config::load(None)?, Path::new(index), &open)?;
    let mut out = std::io::stdout().lock();
    for query in std::io::stdin().lock().lines() {
        let options = SearchOptions { mode: mode.clone(), ..SearchOptions::new(query?) };
        let started = Instant::now();
        let response = engine.search(&options)?;
        let seconds = started.elapsed().as_secs_f64();
        writeln!(out, "{seconds} {}", response.hits.len())?;
        out.flush()?;
    }
    Ok(())
}
