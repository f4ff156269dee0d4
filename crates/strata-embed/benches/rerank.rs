//! The local cross-encoder's latency for one query and 50 candidates (the default
//! `[rerank] candidates`), against sentence-transformers' `CrossEncoder` on the same input in
//! the same run.
//!
//! The model is the random-weight one of `tests/fixtures/cross-encoder.json`: the
//! ms-marco-MiniLM-L-6-v2 layout (6 layers, 384 wide, 12 heads), so the arithmetic is the real
//! model's. The candidates are 50 passages of about 180 words cut from RFC 9000 (about 220
//! tokens each with the query, as strata's chunks are), scored against one question.
//!
//! strata's side runs at batch 1, 4 (the reranker's default), 8, 16 and 32, 2 intra-op threads.
//! Small batches win: pairs are padded to the longest of their batch, and a few candidates
//! reach the 512-token window. The peer is
//! `scripts/cross-encoder-peer.py` (sentence-transformers on PyTorch, 2 threads, batch 4 and
//! 32, CrossEncoder's default) on
//! the same model folder and input, when `STRATA_RERANK_PEER_PYTHON` names a Python that has
//! it (see the script's docstring); its logits are compared with strata's as well.
//!
//! Run: `cargo bench -p strata-embed --bench rerank`; `STRATA_RERANK_BENCH_RUNS` sets the
//! timed passes (default 10). Skips when the corpus, the tokenizer or ONNX Runtime is missing.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use strata_embed::local::LocalOptions;
use strata_embed::rerank::cross_encoder::CrossEncoder;
use strata_model::rerank::Reranker;

#[path = "../tests/support/random_cross_encoder.rs"]
mod random_cross_encoder;

const RFC: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/corpus/txt/rfc9000-quic-unpaginated.txt");
const QUERY: &str = "how does QUIC handle connection migration when the client's address changes";
const CANDIDATES: usize = 50;
const PASSAGE_WORDS: usize = 180;
/// Batch sizes the peer runs at: CrossEncoder's default (32), and strata's (4).
const PEER_BATCHES: [usize; 2] = [4, 32];

fn passages(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    // Slices from all over the document.
    let step = (words.len() / PASSAGE_WORDS / CANDIDATES).max(1);
    words.chunks(PASSAGE_WORDS).step_by(step).take(CANDIDATES).map(|w| w.join(" ")).collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let Ok(text) = std::fs::read_to_string(RFC) else {
        eprintln!("skipping: {RFC} is missing (the shared corpus)");
        return;
    };
    let runs: usize =
        std::env::var("STRATA_RERANK_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    let passages = passages(&text);
    assert_eq!(passages.len(), CANDIDATES, "RFC 9000 is long enough for {CANDIDATES} passages");
    let dir = tempfile::tempdir().expect("a temp folder");
    let fx = random_cross_encoder::fixture();
    if let Err(e) = random_cross_encoder::write_model(dir.path(), &fx) {
        eprintln!("skipping: {e}");
        return;
    }
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let mut strata_scores = Vec::new();
    println!(
        "# cross-encoder rerank latency: 1 query × {CANDIDATES} passages, ms-marco-MiniLM-L-6-v2 layout"
    );
    let tokens = {
        let model = CrossEncoder::open(
            dir.path(),
            LocalOptions { threads: 2, batch_size: 32, ..LocalOptions::default() },
        )
        .expect("the model opens");
        let lens: Vec<usize> = refs.iter().map(|p| model.encode(QUERY, p).unwrap().len()).collect();
        lens.iter().sum::<usize>() as f64 / lens.len() as f64
    };
    println!("mean pair length {tokens:.0} tokens; {runs} timed runs after one warm-up\n");
    println!("| side | batch | median ms | best ms | ms per pair |");
    println!("|---|---|---|---|---|");
    let mut medians = Vec::new();
    for batch in [1, 4, 8, 16, 32] {
        let model = CrossEncoder::open(
            dir.path(),
            LocalOptions { threads: 2, batch_size: batch, ..LocalOptions::default() },
        )
        .expect("the model opens");
        strata_scores = model.score(QUERY, &refs).expect("scores");
        let times: Vec<Duration> = (0..runs.max(1))
            .map(|_| {
                let at = Instant::now();
                std::hint::black_box(model.score(QUERY, &refs).unwrap());
                at.elapsed()
            })
            .collect();
        let best = *times.iter().min().unwrap();
        let med = median(times);
        medians.push((batch, ms(med)));
        println!(
            "| strata (ONNX Runtime 2 threads) | {batch} | {:.1} | {:.1} | {:.2} |",
            ms(med),
            ms(best),
            ms(med) / CANDIDATES as f64
        );
    }
    let Ok(python) = std::env::var("STRATA_RERANK_PEER_PYTHON") else {
        println!("\npeer not run: set STRATA_RERANK_PEER_PYTHON to a Python with sentence-transformers (scripts/cross-encoder-peer.py)");
        return;
    };
    let input = dir.path().join("input.json");
    std::fs::write(&input, serde_json::json!({"query": QUERY, "passages": passages}).to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cross-encoder-peer.py");
    let mut ratios = Vec::new();
    for batch in PEER_BATCHES {
        let out = Command::new(&python)
            .arg(&script)
            .args(["--model-dir", &dir.path().display().to_string(), "--input", &input.display().to_string()])
            .args(["--runs", &runs.max(1).to_string(), "--threads", "2", "--batch-size", &batch.to_string()])
            .output()
            .expect("running the peer");
        if !out.status.success() {
            eprintln!("the peer failed: {}", String::from_utf8_lossy(&out.stderr));
            return;
        }
        let peer: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("the peer prints one JSON line");
        let median_ms = peer["median_ms"].as_f64().unwrap();
        println!(
            "| {} | {batch} | {:.1} | {:.1} | {:.2} |",
            peer["peer"].as_str().unwrap_or("peer"),
            median_ms,
            peer["best_ms"].as_f64().unwrap(),
            median_ms / CANDIDATES as f64
        );
        let worst = peer["scores"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&strata_scores)
            .map(|(p, s)| (p.as_f64().unwrap() - *s as f64).abs())
            .fold(0.0, f64::max);
        let ours = medians.iter().find(|(b, _)| *b == batch).map_or(f64::NAN, |(_, m)| *m);
        ratios.push(format!(
            "at batch {batch} strata is {:.2}× the peer's speed (median), largest |logit difference| {worst:.1e}",
            median_ms / ours
        ));
    }
    println!();
    for r in ratios {
        println!("{r}");
    }
}
