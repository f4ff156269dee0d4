//! strata's chunker against `text-splitter`'s `MarkdownSplitter`, same tokenizer, same text,
//! same 512-token limit, in one process.
//!
//! Inputs (read once at setup with `Pipeline::document_file`):
//! - `markdown`: the corpus `markdown/*.md` files (`document.text`: the source minus front matter);
//! - `html`: the text extracted from the corpus `html/*.htm*` files.
//!
//! Both sides see `document.text` of every file of a set; one iteration chunks all of them.
//! strata chunks the `Document` (heading tree and blocks already built, as in the pipeline);
//! text-splitter parses the same text as Markdown. Throughput is in bytes of `document.text`.
//!
//! After divan's table, `main` times one pass of each side per set with `Instant`, prints the
//! ratio strata / text-splitter, chunk counts, the largest chunk in tokens (re-tokenized with
//! the Hugging Face tokenizer) and a phase breakdown of strata's pass.
//!
//! Run: `cargo bench -p strata-ingest --bench chunking`. Needs the model folder
//! (`scripts/fetch-models.sh`, or `STRATA_MODEL_DIR`) and the corpus; skips when either is
//! missing.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use divan::counter::BytesCount;
use divan::Bencher;
use strata_core::config::ChunkConfig as StrataChunkConfig;
use strata_core::{Config, Document};
use strata_ingest::chunk::Chunker;
use strata_ingest::pipeline::Pipeline;
use strata_ingest::tokenize::HfTokenizer;
use strata_text::sentence::sentence_starts;
use strata_text::tokenize::Tokenizer;
use text_splitter::{ChunkConfig, MarkdownSplitter};

const MAX_TOKENS: usize = 512;
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/corpus");
const SETS: [&str; 2] = ["markdown", "html"];

struct InputSet {
    name: &'static str,
    docs: Vec<Document>,
    bytes: usize,
}

struct Setup {
    hf: Arc<tokenizers::Tokenizer>,
    strata_tokenizer: Arc<dyn Tokenizer>,
    chunker: Chunker,
    splitter: MarkdownSplitter<Arc<tokenizers::Tokenizer>>,
    sets: Vec<InputSet>,
}

impl Setup {
    fn set(&self, name: &str) -> &InputSet {
        self.sets.iter().find(|s| s.name == name).expect("known input set")
    }
}

static SETUP: OnceLock<Setup> = OnceLock::new();

fn setup() -> &'static Setup {
    SETUP.get().expect("setup() runs before divan")
}

fn model_dir() -> PathBuf {
    std::env::var_os("STRATA_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache/strata/models/all-MiniLM-L6-v2")
    })
}

fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)));
    out.sort();
    out
}

/// Loads tokenizers and inputs, or says why the bench is skipped.
fn load() -> Result<Setup, String> {
    let model = model_dir();
    let tokenizer_json = if model.is_dir() { model.join("tokenizer.json") } else { model.clone() };
    if !tokenizer_json.is_file() {
        return Err(format!(
            "no tokenizer at {} (run scripts/fetch-models.sh or set STRATA_MODEL_DIR)",
            tokenizer_json.display()
        ));
    }
    let corpus = PathBuf::from(CORPUS);
    let md_files = files(&corpus.join("markdown"), &["md"]);
    let html_files = files(&corpus.join("html"), &["html", "htm"]);
    if md_files.is_empty() || html_files.is_empty() {
        return Err(format!("no corpus at {} (markdown/*.md and html/*.htm* needed)", corpus.display()));
    }

    // text-splitter's sizer: the same tokenizer.json, padding and truncation off (as strata's
    // HfTokenizer does), so both count the same tokens.
    let mut hf = tokenizers::Tokenizer::from_file(&tokenizer_json).map_err(|e| format!("tokenizer: {e}"))?;
    hf.with_padding(None);
    hf.with_truncation(None).map_err(|e| format!("tokenizer: {e}"))?;
    let hf = Arc::new(hf);
    let splitter = MarkdownSplitter::new(ChunkConfig::new(MAX_TOKENS).with_sizer(Arc::clone(&hf)));

    let strata_tokenizer: Arc<dyn Tokenizer> =
        Arc::new(HfTokenizer::from_path(&tokenizer_json).map_err(|e| format!("tokenizer: {e}"))?);
    let chunker = Chunker::new(
        Arc::clone(&strata_tokenizer),
        &StrataChunkConfig { max_tokens: MAX_TOKENS, overlap: 0 },
    );
    let pipeline = Pipeline::with_tokenizer(&Config::default(), Arc::clone(&strata_tokenizer));

    let mut sets = Vec::new();
    for (name, paths) in [("markdown", md_files), ("html", html_files)] {
        let mut docs = Vec::new();
        for path in &paths {
            docs.push(pipeline.document_file(path).map_err(|e| format!("reading {}: {e}", path.display()))?);
        }
        let bytes = docs.iter().map(|d| d.text.len()).sum();
        sets.push(InputSet { name, docs, bytes });
    }
    Ok(Setup { hf, strata_tokenizer, chunker, splitter, sets })
}

#[divan::bench(args = SETS, sample_count = 5, sample_size = 1)]
fn strata(bencher: Bencher, set: &str) {
    let s = setup();
    let set = s.set(set);
    bencher.counter(BytesCount::new(set.bytes)).bench(|| {
        for doc in &set.docs {
            black_box(s.chunker.chunk(black_box(doc)));
        }
    });
}

#[divan::bench(args = SETS, sample_count = 3, sample_size = 1)]
fn text_splitter(bencher: Bencher, set: &str) {
    let s = setup();
    let set = s.set(set);
    bencher.counter(BytesCount::new(set.bytes)).bench(|| {
        for doc in &set.docs {
            black_box(s.splitter.chunks(black_box(&doc.text)).collect::<Vec<&str>>());
        }
    });
}

fn tokens(hf: &tokenizers::Tokenizer, text: &str) -> usize {
    hf.encode(text, false).map(|e| e.len()).unwrap_or(usize::MAX)
}

/// Best of `runs` timed passes of `f`, and its last result.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = black_box(f());
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("runs > 0"))
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

/// One timed comparison per set, chunk statistics and strata's phases.
fn report(s: &Setup) {
    println!();
    println!("== one-process comparison (best of 3 interleaved passes, Instant) ==");
    println!(
        "{:<9} {:>10} {:>11} {:>11} {:>7} {:>14} {:>14}",
        "set", "bytes", "strata MB/s", "t-s MB/s", "ratio", "chunks s / t-s", "max tok s / t-s"
    );
    for set in &s.sets {
        // Interleaved, so both sides see the same background load.
        let (mut ts, mut tt) = (Duration::MAX, Duration::MAX);
        let (mut strata_chunks, mut ts_chunks) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let (d, c) = best_of(1, || set.docs.iter().map(|d| s.chunker.chunk(d)).collect::<Vec<_>>());
            (ts, strata_chunks) = (ts.min(d), c);
            let (d, c) = best_of(1, || {
                set.docs.iter().map(|d| s.splitter.chunks(&d.text).collect::<Vec<&str>>()).collect::<Vec<_>>()
            });
            (tt, ts_chunks) = (tt.min(d), c);
        }
        let n_strata: usize = strata_chunks.iter().map(Vec::len).sum();
        let n_ts: usize = ts_chunks.iter().map(Vec::len).sum();
        let max_strata = strata_chunks
            .iter()
            .zip(&set.docs)
            .flat_map(|(cs, d)| cs.iter().map(move |c| tokens(&s.hf, c.span.slice(&d.text))))
            .max()
            .unwrap_or(0);
        let max_ts = ts_chunks.iter().flatten().map(|c| tokens(&s.hf, c)).max().unwrap_or(0);
        let over: usize = strata_chunks
            .iter()
            .zip(&set.docs)
            .flat_map(|(cs, d)| cs.iter().map(move |c| tokens(&s.hf, c.span.slice(&d.text))))
            .filter(|&n| n > MAX_TOKENS)
            .count();
        println!(
            "{:<9} {:>10} {:>11.2} {:>11.2} {:>6.2}× {:>14} {:>14}",
            set.name,
            set.bytes,
            mbps(set.bytes, ts),
            mbps(set.bytes, tt),
            tt.as_secs_f64() / ts.as_secs_f64(),
            format!("{n_strata} / {n_ts}"),
            format!("{max_strata} / {max_ts}"),
        );
        println!(
            "ratio[{}]: {:.2}×  (strata chunks re-tokenized over {MAX_TOKENS}: {over})",
            set.name,
            tt.as_secs_f64() / ts.as_secs_f64()
        );
    }

    // Where strata's time goes, per set: the same per-section work as Chunker::chunk, in
    // phases. Tokenize = token_starts of each section's own text; sentences = sentence_starts
    // of the sections over the limit (the only ones Chunker splits); the rest of a full
    // pass is packing, heading paths and chunk records.
    println!();
    println!("== strata phases (best of 5 passes) ==");
    println!(
        "{:<9} {:>10} {:>10} {:>10} {:>10} {:>16}",
        "set", "total ms", "tokenize", "sentences", "rest", "sections >limit"
    );
    for set in &s.sets {
        let (total, _) = best_of(5, || set.docs.iter().map(|d| s.chunker.chunk(d).len()).sum::<usize>());
        let (tok, _) = best_of(5, || {
            let mut n = 0usize;
            for d in &set.docs {
                for node in d.tree.nodes() {
                    let sec = node.own.slice(&d.text);
                    if !sec.trim().is_empty() {
                        n += s.strata_tokenizer.token_starts(sec).len();
                    }
                }
            }
            n
        });
        let big: Vec<(&Document, strata_core::Span)> = set
            .docs
            .iter()
            .flat_map(|d| d.tree.nodes().iter().map(move |n| (d, n.own)))
            .filter(|(d, span)| s.strata_tokenizer.count(span.slice(&d.text)) > MAX_TOKENS)
            .collect();
        let (sent, _) = best_of(5, || {
            big.iter().map(|(d, span)| sentence_starts(span.slice(&d.text)).len()).sum::<usize>()
        });
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let pct = |d: Duration| 100.0 * d.as_secs_f64() / total.as_secs_f64();
        println!(
            "{:<9} {:>10.1} {:>5.1} {:>3.0}% {:>5.1} {:>3.0}% {:>5.1} {:>3.0}% {:>16}",
            set.name,
            ms(total),
            ms(tok),
            pct(tok),
            ms(sent),
            pct(sent),
            ms(total.saturating_sub(tok + sent)),
            pct(total.saturating_sub(tok + sent)),
            format!("{} of {}", big.len(), set.docs.iter().map(|d| d.tree.len()).sum::<usize>()),
        );
    }
}

fn main() {
    let loaded = match load() {
        Ok(s) => s,
        Err(why) => {
            println!("chunking bench skipped: {why}");
            return;
        }
    };
    for set in &loaded.sets {
        let names: Vec<String> = set
            .docs
            .iter()
            .map(|d| {
                format!(
                    "{} ({} B)",
                    Path::new(&d.source.path).file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
                    d.text.len()
                )
            })
            .collect();
        println!("input {}: {} bytes of document.text from {}", set.name, set.bytes, names.join(", "));
    }
    let _ = SETUP.set(loaded);
    divan::main();
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--list" || a == "--test") {
        report(setup());
    }
}
