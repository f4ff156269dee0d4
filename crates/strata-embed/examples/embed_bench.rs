//! Embedding throughput of a local embedder (a sentence-transformer, or a static model) on
//! a JSONL file of `{"text": ...}` lines.
//!
//! ```text
//! cargo run --release -p strata-embed --example embed_bench -- INPUTS.jsonl MODEL [BATCH] [OUT.f32]
//! ```
//! `STRATA_DENSE_PRECISION` (`auto`, `fp32`, `int8`; default fp32) chooses the graph's
//! arithmetic, as `[dense] precision` does; `STRATA_DENSE_LANES` the lanes (default: one
//! per core, as `[dense] lanes = 0`). Prints one line with sentences per second (after one warm-up batch, tokenization
//! included) and writes the vectors as raw little-endian f32 when `OUT.f32` is given, so
//! `scripts/bench/embed_peers.py` can compare them with sentence-transformers.

use std::time::Instant;

use strata_core::config::DensePrecision;
use strata_embed::local::{self, LocalEmbedder, LocalOptions};
use strata_embed::locate;
use strata_embed::static_model::{self, StaticEmbedder};
use strata_model::Embedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, inputs, model, rest @ ..] = args.as_slice() else {
        return Err("usage: embed_bench INPUTS.jsonl MODEL [BATCH] [OUT.f32]".into());
    };
    let batch_size = rest.first().map(|b| b.parse()).transpose()?.unwrap_or(32);
    let texts: Vec<String> = std::fs::read_to_string(inputs)?
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).map(|v| v["text"].as_str().unwrap_or("").to_string())
        })
        .collect::<Result<_, _>>()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();

    let t = Instant::now();
    let dir = locate::find_model(model)?;
    let embedder: Box<dyn Embedder> = if static_model::is_static(&dir) {
        Box::new(StaticEmbedder::open_dir(&dir)?)
    } else {
        let wanted = std::env::var("STRATA_DENSE_PRECISION").unwrap_or_else(|_| "fp32".into());
        let precision = local::precision_for(wanted.parse::<DensePrecision>()?);
        let defaults = LocalOptions::default();
        let lanes = match std::env::var("STRATA_DENSE_LANES") {
            Ok(n) => n.parse()?,
            Err(_) => defaults.lanes,
        };
        Box::new(LocalEmbedder::open_dir(&dir, LocalOptions { batch_size, precision, lanes, ..defaults })?)
    };
    let load = t.elapsed().as_secs_f64();
    embedder.embed_passages(&refs[..batch_size.min(refs.len())])?;
    let t = Instant::now();
    let vectors = embedder.embed_passages(&refs)?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "strata model={} bs={batch_size} n={} load_s={load:.2} secs={secs:.3} sent_per_s={:.2} truncated={}",
        embedder.info().model_id,
        refs.len(),
        refs.len() as f64 / secs,
        vectors.truncated().len()
    );
    if let Some(out) = rest.get(1) {
        let bytes: Vec<u8> = vectors.as_slice().iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(out, bytes)?;
    }
    Ok(())
}
