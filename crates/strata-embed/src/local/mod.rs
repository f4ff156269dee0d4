//! A sentence-transformer run locally on ONNX Runtime.
//!
//! The model folder is read by [`ModelFolder`], the encoder graph is built from its weights by
//! [`graph`], and ONNX Runtime runs it on the CPU in **lanes**: one session per core (at most
//! [`MAX_LANES`]), each with one intra-op thread, each taking the next batch of a call as it
//! finishes one, and each query (a call of one text) on whichever lane is free. Texts are
//! tokenized with the model's own `tokenizer.json`, truncated to the model's window, sorted by
//! length and padded per batch to the batch's longest text, so that short chunks do not pay
//! for long ones. Pooling follows the model's configuration; every vector is L2-normalized.
//!
//! ONNX Runtime is not linked: its shared library is loaded at run time from the path
//! [`locate::find_onnxruntime`] returns (the `onnxruntime` wheel from PyPI, unpacked by
//! `scripts/fetch-models.sh`).

pub mod graph;
pub mod quantize;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use strata_core::config::DensePrecision;
use strata_core::{Error, Result};
use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

pub use self::graph::Precision;
use crate::folder::{ModelFolder, Weights};
use crate::locate;
use strata_model::{l2_normalize, Embedder, EmbedderInfo, Embeddings, Pooling};

/// How a local model runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalOptions {
    /// Threads in all. Default: the number of cores.
    pub threads: usize,
    /// Sessions that run batches side by side, each with `threads / lanes` intra-op
    /// threads. Default: [`default_lanes`] of `threads`. A lane holds its own copy of the
    /// graph (about 60 MB in int8, 90 MB in f32).
    pub lanes: usize,
    /// Texts per forward pass. Default 32: on two cores, batch 64 of 256-token texts ran at
    /// half the speed of batch 32 (attention tensors leave the cache; see
    /// `bench/results/embedding-stack.md`).
    pub batch_size: usize,
    /// The projections' arithmetic. Default f32; [`precision_for`] resolves the config's
    /// `auto`. Cross-encoders run in f32 whatever this says.
    pub precision: Precision,
}

impl Default for LocalOptions {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        LocalOptions { threads, lanes: default_lanes(threads), batch_size: 32, precision: Precision::Fp32 }
    }
}

/// Lanes for `threads` threads: one per thread up to [`MAX_LANES`], then more threads per
/// lane. One thread per lane, each on its own batch, beat one session with two intra-op
/// threads by 30 % in int8 on two cores (126.7 against 95.8 texts/s,
/// `bench/results/int8/README.md`): a pass of one text has little to share between threads.
pub fn default_lanes(threads: usize) -> usize {
    threads.clamp(1, MAX_LANES)
}

/// Lanes at most by default: each holds its own graph.
pub const MAX_LANES: usize = 4;

/// Whether this CPU multiplies u8 by s8 in VNNI (AVX-512 VNNI or AVX-VNNI): the int8 graph
/// is fast and exact there; elsewhere the products go through 16-bit sums that can saturate.
pub fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512vnni") || std::is_x86_feature_detected!("avxvnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The precision `[dense] precision` asks for on this CPU: int8 where it has VNNI (`auto`
/// and `int8`), else f32, with one log line when `int8` was asked for and cannot be had.
pub fn precision_for(wanted: DensePrecision) -> Precision {
    match wanted {
        DensePrecision::Fp32 => Precision::Fp32,
        _ if has_vnni() => Precision::Int8,
        DensePrecision::Int8 => {
            tracing::warn!("[dense] precision = \"int8\" needs a CPU with VNNI (avx512_vnni or avx_vnni); running in fp32");
            Precision::Fp32
        }
        DensePrecision::Auto => {
            tracing::info!("this CPU has no VNNI: the dense model runs in fp32");
            Precision::Fp32
        }
    }
}

/// A BERT-family sentence-transformer on ONNX Runtime.
pub struct LocalEmbedder {
    info: EmbedderInfo,
    tokenizer: Tokenizer,
    sessions: Vec<Mutex<Session>>,
    batch_size: usize,
    /// What the vector cache keys the vectors by ([`loaded_id`]).
    cache_id: String,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("info", &self.info)
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

/// The process-wide ONNX Runtime environment, created on first use from the library
/// [`locate::find_onnxruntime`] finds.
pub(crate) fn environment() -> Result<&'static Environment> {
    static ENV: OnceLock<std::result::Result<Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let lib = locate::find_onnxruntime().map_err(|e| e.to_string())?;
        let builder = ort::init_from(&lib).map_err(|e| format!("loading {}: {e}", lib.display()))?;
        builder
            .with_name("strata")
            .build()
            .map_err(|e| format!("starting ONNX Runtime ({}): {e}", lib.display()))
    })
    .as_ref()
    .map_err(|e| Error::user(e.clone()))
}

/// The folder's `model.safetensors`, or an error that says how to convert a PyTorch pickle.
pub(crate) fn safetensors_of(folder: &ModelFolder) -> Result<&Path> {
    match &folder.weights {
        Weights::Safetensors(path) => Ok(path),
        Weights::PytorchBin(path) => Err(Error::user(format!(
            "{}: strata reads model.safetensors, not PyTorch pickles; convert once with \
             `python -c \"import torch, safetensors.torch as s; \
             s.save_file(torch.load('{p}'), '{dir}/model.safetensors')\"`",
            path.display(),
            p = path.display(),
            dir = folder.dir.display()
        ))),
    }
}

/// The folder's `tokenizer.json`, truncating longest-first to `max_length` tokens and not
/// padding (batches are padded to their longest input by the caller).
pub(crate) fn tokenizer_for(folder: &ModelFolder, max_length: usize) -> Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_file(&folder.tokenizer)
        .map_err(|e| Error::user(format!("{}: {e}", folder.tokenizer.display())))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
            direction: TruncationDirection::Right,
        }))
        .map_err(|e| Error::user(format!("{}: {e}", folder.tokenizer.display())))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// An ONNX Runtime session for the BERT graph of `folder` (its `weights` mapped) ending in
/// `head`: full
/// optimization, `options.threads` intra-op threads, one inter-op thread. `what` names the
/// model in errors. The runtime is loaded first: building the graph already calls into it.
pub(crate) fn session(
    folder: &ModelFolder,
    weights: &graph::WeightsFile,
    head: graph::Head,
    options: LocalOptions,
    what: &str,
) -> Result<Session> {
    let env = environment()?;
    let model = graph::build_with(&folder.config, weights, head, options.precision)?;
    let builder = |e: ort::Error| Error::Internal(format!("configuring ONNX Runtime: {e}"));
    let session_builder = Session::builder(env)
        .map_err(&builder)?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| builder(e.into()))?
        .with_intra_threads(options.threads.max(1))
        .map_err(|e| builder(e.into()))?
        .with_inter_threads(1)
        .map_err(|e| builder(e.into()))?;
    model.into_session(&session_builder).map_err(|e| Error::Internal(format!("building {what}: {e}")))
}

impl LocalEmbedder {
    /// Loads model `spec` (a folder path or a name, see [`locate::find_model`]).
    pub fn open(spec: &str, options: LocalOptions) -> Result<LocalEmbedder> {
        let dir = locate::find_model(spec)?;
        LocalEmbedder::load(&ModelFolder::read(&dir)?, options)
    }

    /// Loads a model folder that has been read.
    pub fn load(folder: &ModelFolder, options: LocalOptions) -> Result<LocalEmbedder> {
        // The published tokenizer.json often truncates and pads to 128; strata truncates to
        // the model's window and pads per batch itself.
        let tokenizer = tokenizer_for(folder, folder.max_seq_len)?;
        let what = format!("the encoder for {}", folder.dir.display());
        let lanes = options.lanes.clamp(1, options.threads.max(1));
        let lane_options = LocalOptions { threads: (options.threads / lanes).max(1), ..options };
        let weights = graph::WeightsFile::open(safetensors_of(folder)?)?;
        // The weights are hashed beside the graphs' building, which takes longer.
        let (sessions, digest) = std::thread::scope(|scope| {
            let digest = scope.spawn(|| weights.digest());
            let sessions = (0..lanes)
                .map(|_| session(folder, &weights, graph::Head::Encoder, lane_options, &what).map(Mutex::new))
                .collect::<Result<Vec<_>>>();
            (sessions, digest.join())
        });
        let sessions = sessions?;
        let digest = digest.map_err(|_| Error::Internal("hashing the model's weights panicked".into()))?;
        let info = EmbedderInfo {
            model_id: folder.model_id.clone(),
            dim: folder.config.hidden_size,
            max_seq_len: folder.max_seq_len,
            pooling: folder.pooling,
            tokenizer: Some(folder.tokenizer.clone()),
            query_prefix: folder.query_prefix.clone(),
            passage_prefix: folder.passage_prefix.clone(),
        };
        let shape = format!(
            "{:?}#{}#{:?}#{:?}#{}",
            folder.config, info.max_seq_len, info.pooling, options.precision, info.passage_prefix
        );
        let cache_id = loaded_id(
            &info.model_id,
            &digest,
            &tokenizer.to_string(false).unwrap_or_default(),
            &shape,
            &code(options.precision),
        );
        Ok(LocalEmbedder { info, tokenizer, sessions, batch_size: options.batch_size.max(1), cache_id })
    }

    /// Model folder path convenience for tests and tools.
    pub fn open_dir(dir: &Path, options: LocalOptions) -> Result<LocalEmbedder> {
        LocalEmbedder::load(&ModelFolder::read(dir)?, options)
    }

    fn embed(&self, texts: &[&str], prefix: &str) -> Result<Embeddings> {
        let dim = self.info.dim;
        let mut encodings = Vec::with_capacity(texts.len());
        for text in texts {
            let input = if prefix.is_empty() { (*text).to_string() } else { format!("{prefix}{text}") };
            encodings.push(
                self.tokenizer
                    .encode(input, true)
                    .map_err(|e| Error::Internal(format!("tokenizing for {}: {e}", self.info.model_id)))?,
            );
        }
        let truncated: Vec<usize> = encodings
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.get_overflowing().is_empty())
            .map(|(i, _)| i)
            .collect();
        // Longest first, as sentence-transformers does; ties keep input order.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));

        let batches: Vec<&[usize]> = token_batches(&order, |i| encodings[i].len(), self.batch_size).collect();
        let mut out = vec![0.0f32; texts.len() * dim];
        for (batch, pooled) in batches.iter().zip(self.run_batches(&batches, &encodings)?) {
            for (k, &i) in batch.iter().enumerate() {
                out[i * dim..(i + 1) * dim].copy_from_slice(&pooled[k * dim..(k + 1) * dim]);
            }
        }
        let mut embeddings = Embeddings::new(dim, out);
        embeddings.set_truncated(truncated);
        Ok(embeddings)
    }

    /// Runs `batches` (indexes into `encodings`) on every lane at once, each lane taking the
    /// next batch when it is done; returns each batch's pooled rows, in batch order.
    fn run_batches(&self, batches: &[&[usize]], encodings: &[Encoding]) -> Result<Vec<Vec<f32>>> {
        let next = AtomicUsize::new(0);
        let lane = || -> Result<Vec<Pooled>> {
            let mut done = Vec::new();
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                let Some(batch) = batches.get(b) else { return Ok(done) };
                let rows: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
                done.push((b, self.run(&rows)?));
            }
        };
        let lanes = self.sessions.len().min(batches.len());
        let finished: Vec<Result<Vec<Pooled>>> = if lanes <= 1 {
            vec![lane()]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..lanes).map(|_| scope.spawn(lane)).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        let mut pooled = vec![Vec::new(); batches.len()];
        for (b, rows) in finished.into_iter().collect::<Result<Vec<_>>>()?.into_iter().flatten() {
            pooled[b] = rows;
        }
        Ok(pooled)
    }

    /// One forward pass over `rows`, padded to the longest; returns pooled, normalized rows.
    fn run(&self, rows: &[&Encoding]) -> Result<Vec<f32>> {
        let ids: Vec<&[u32]> = rows.iter().map(|e| e.get_ids()).collect();
        let (dim, pooling) = (self.info.dim, self.info.pooling);
        self.forward(&ids, |hidden, len| {
            let mut pooled = pool(hidden, &ids, len, dim, pooling);
            pooled.chunks_exact_mut(dim).for_each(l2_normalize);
            pooled
        })
    }

    /// The mean of the last hidden states over each row's tokens, not normalized: what
    /// [`crate::static_model::distill`] reads for every vocabulary token. `rows` are token
    /// ids with their special tokens, each row its own length.
    pub fn mean_hidden(&self, rows: &[&[u32]]) -> Result<Vec<f32>> {
        let dim = self.info.dim;
        self.forward(rows, |hidden, len| pool(hidden, rows, len, dim, Pooling::Mean))
    }

    /// One forward pass over `rows` padded to the longest (`len`); hands the last hidden
    /// states `[rows, len, dim]` to `read`.
    fn forward<T>(&self, rows: &[&[u32]], read: impl FnOnce(&[f32], usize) -> T) -> Result<T> {
        let n = rows.len();
        let len = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0i64; n * len];
        let mut mask = vec![0i64; n * len];
        for (r, row) in rows.iter().enumerate() {
            for (t, &id) in row.iter().enumerate() {
                ids[r * len + t] = id as i64;
                mask[r * len + t] = 1;
            }
        }
        let err = |e: ort::Error| Error::Internal(format!("running {}: {e}", self.info.model_id));
        let shape = vec![n as i64, len as i64];
        let inputs: Vec<(std::borrow::Cow<'_, str>, SessionInputValue<'_>)> = vec![
            ("input_ids".into(), Tensor::from_array((shape.clone(), ids)).map_err(err)?.into()),
            ("attention_mask".into(), Tensor::from_array((shape, mask)).map_err(err)?.into()),
        ];
        let mut session = match self.sessions.iter().find_map(|s| s.try_lock().ok()) {
            Some(free) => free,
            None => self.sessions[0].lock().map_err(|_| Error::Internal("embedder lock poisoned".into()))?,
        };
        let outputs = session.run(inputs).map_err(err)?;
        let (_, hidden) = outputs[graph::OUTPUT].try_extract_tensor::<f32>().map_err(err)?;
        Ok(read(hidden, len))
    }
}

/// A batch's number and its pooled rows.
type Pooled = (usize, Vec<f32>);

/// Padded tokens per forward pass at most: 8 texts of 32 tokens, one of 256. Small passes
/// keep each lane's activations in the core's cache and ONNX Runtime's arena small
/// (attention scores alone are `batch × heads × len²` floats). With two lanes in int8 on two
/// cores, 512 texts of ~200 tokens ran at 132 texts/s with one text a pass, 130 at 256
/// tokens, 127 at 512, 110 at 1,024 and 81 at 2,048 (`bench/results/int8/README.md`).
const BATCH_TOKENS: usize = 256;

/// Cuts `order` (longest first) into batches of at most `batch_size` texts and at most
/// [`BATCH_TOKENS`] padded tokens (a batch's first text sets its padded length), never empty.
fn token_batches<'a>(
    order: &'a [usize],
    len: impl Fn(usize) -> usize + 'a,
    batch_size: usize,
) -> impl Iterator<Item = &'a [usize]> + 'a {
    let mut rest = order;
    std::iter::from_fn(move || {
        let first = *rest.first()?;
        let fits = (BATCH_TOKENS / len(first).max(1)).clamp(1, batch_size.max(1));
        let (batch, tail) = rest.split_at(fits.min(rest.len()));
        rest = tail;
        Some(batch)
    })
}

/// Pools hidden states `[rows, len, dim]` into one row per input: the first token's, or the
/// mean over the row's own tokens (padding lies past its length).
fn pool(hidden: &[f32], rows: &[&[u32]], len: usize, dim: usize, pooling: Pooling) -> Vec<f32> {
    let mut pooled = vec![0.0f32; rows.len() * dim];
    for (r, row) in rows.iter().enumerate() {
        let dst = &mut pooled[r * dim..(r + 1) * dim];
        match pooling {
            Pooling::Cls => dst.copy_from_slice(&hidden[r * len * dim..r * len * dim + dim]),
            Pooling::Mean => {
                for t in 0..row.len() {
                    let src = &hidden[(r * len + t) * dim..(r * len + t + 1) * dim];
                    dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
                }
                let count = row.len().max(1) as f32;
                dst.iter_mut().for_each(|d| *d /= count);
            }
        }
    }
    pooled
}

/// The cache id of a model as it was loaded: blake3 of the weights' bytes the graph was
/// built from, of the tokenizer as parsed, of the architecture, window, pooling, passage
/// prefix and precision (`shape`), and of the versions of the code that computes ([`code`]).
/// Nothing is read again later, so a folder changed, moved or deleted after the load
/// changes nothing.
fn loaded_id(model_id: &str, weights: &str, tokenizer: &str, shape: &str, code: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in [weights, tokenizer, shape, code] {
        hasher.update(part.as_bytes());
        hasher.update(b"\0");
    }
    format!("{model_id}@{}", hasher.finalize().to_hex())
}

/// The versions of the code that computes a vector in `precision`: the graph's, and for
/// int8 the quantization's.
fn code(precision: Precision) -> String {
    match precision {
        Precision::Fp32 => format!("graph {}", graph::GRAPH_VERSION),
        Precision::Int8 => format!("graph {} quantize {}", graph::GRAPH_VERSION, quantize::QUANTIZE_VERSION),
    }
}

impl Embedder for LocalEmbedder {
    fn info(&self) -> &EmbedderInfo {
        &self.info
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(texts, &self.info.passage_prefix)
    }

    /// What was loaded ([`loaded_id`]): the same folder name with other weights, the same
    /// weights in int8 instead of fp32, or the same files run by other code are other vectors.
    fn cache_id(&self) -> Result<Option<String>> {
        Ok(Some(self.cache_id.clone()))
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed(texts, &self.info.query_prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key had no code version (issue 54): a change to the graph or to int8 rounding kept
    /// serving vectors of the old code. Each part of what was loaded, the code's version
    /// included, is its own id.
    #[test]
    fn regression_another_code_version_is_another_cache_id() {
        let id = |code: &str| loaded_id("m", "weights", "tokenizer", "shape", code);
        assert_ne!(id(&code(Precision::Fp32)), id(&code(Precision::Int8)));
        let next = format!("graph {}", graph::GRAPH_VERSION + 1);
        assert_ne!(id(&code(Precision::Fp32)), id(&next));
        assert_ne!(
            loaded_id("m", "weights", "tokenizer", "shape", "c"),
            loaded_id("m", "weight", "stokenizer", "shape", "c")
        );
        assert!(id("c").starts_with("m@"));
    }

    fn sizes(lens: &[usize], batch_size: usize) -> Vec<usize> {
        let order: Vec<usize> = (0..lens.len()).collect();
        token_batches(&order, |i| lens[i], batch_size).map(<[usize]>::len).collect()
    }

    #[test]
    fn long_texts_go_in_smaller_batches() {
        // 256 tokens a pass: one text of 256 tokens, two of 100, twelve of 20; a batch's
        // first (longest) text sets the count.
        let mut lens = vec![256; 3];
        lens.extend([100; 5]);
        assert_eq!(sizes(&lens, 32), vec![1, 1, 1, 2, 2, 1]);
        assert_eq!(sizes(&[20; 30], 32), vec![12, 12, 6]);
        assert_eq!(sizes(&[20; 30], 8), vec![8, 8, 8, 6]);
    }

    #[test]
    fn a_text_longer_than_the_budget_still_gets_a_batch() {
        assert_eq!(sizes(&[9000, 10], 32), vec![1, 1]);
        assert_eq!(sizes(&[], 32), Vec::<usize>::new());
    }
}
