//! `strata eval`: loads a data set, runs the grid with a progress bar, writes the report.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use strata_core::config::{parse_in, RerankKind};
#[cfg(any(feature = "postgres", feature = "milvus"))]
use strata_core::config::{StoreConfig, StoreKind};
use strata_core::Config;
use strata_eval::{Chunking, ContextMode, Grid, IngestConfig, LoadOptions, Progress, Strategy};

use crate::args::EvalArgs;
use strata_engine::models as embedder;

/// What `strata eval` prints at the end.
#[derive(serde::Serialize)]
pub struct Outcome {
    /// Files written.
    pub written: Vec<PathBuf>,
    /// The Markdown report.
    #[serde(skip)]
    pub markdown: String,
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn phase(&self, label: &str, steps: u64) {
        self.0.set_position(0);
        self.0.set_length(steps);
        self.0.set_prefix(label.to_string());
    }
    fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
        self.0.inc(1);
    }
}

/// Runs `strata eval`.
pub fn run(args: EvalArgs, config: &Config, model: Option<&str>, json: bool) -> Result<Outcome> {
    let options = LoadOptions { docs: args.docs.clone(), split: Some(args.split.clone()) };
    let dataset = strata_eval::load(&args.dataset, args.format.as_deref(), &options)
        .with_context(|| format!("loading data set {}", args.dataset.display()))?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("eval-out").join(&dataset.name));
    let pre_split = dataset.documents.iter().any(|d| d.given_chunks.is_some());
    let grid = grid(&args, config, pre_split, &out)?;
    let embedder = embedder::for_ingest(config, model)?;
    let mut config = config.clone();
    config.rerank = rerank_config(&args, &config)?;
    // Only a run with a `+rerank` strategy loads a reranker; the others never need one.
    let reranker = if grid.strategies.iter().any(|s| s.rerank) {
        strata_engine::models::reranker(&config.rerank)?
    } else {
        None
    };
    let bar = progress_bar(!args.quiet && !json && std::io::stderr().is_terminal());
    let mut report = strata_eval::run::run(
        &dataset,
        &grid,
        &config,
        embedder.as_deref(),
        reranker.as_deref(),
        &Bar(bar.clone()),
    )?;
    bar.finish_and_clear();
    report.command = command_line();
    report.machine = machine();
    let written = strata_eval::report::write(&report, &out)?;
    Ok(Outcome { written, markdown: strata_eval::report::markdown(&report) })
}

/// The grid the flags ask for: every chunking × context, the strategies, and the stores.
fn grid(args: &EvalArgs, config: &Config, pre_split: bool, out: &std::path::Path) -> Result<Grid> {
    // The store URLs read `[store]`; a build without the backends has none to read.
    #[cfg(not(any(feature = "postgres", feature = "milvus")))]
    let _ = config;
    let strategies = args.strategies.iter().map(|s| Strategy::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let chunking: Vec<String> = match (args.chunking.is_empty(), pre_split) {
        (true, true) => vec!["given".into(), "auto".into()],
        (true, false) => vec!["auto".into()],
        (false, _) => args.chunking.clone(),
    };
    let chunkings = chunking.iter().map(|c| Chunking::parse(c)).collect::<Result<Vec<_>, _>>()?;
    let contexts = args.context.iter().map(|c| ContextMode::parse(c)).collect::<Result<Vec<_>, _>>()?;
    let mut ingests = Vec::new();
    for &chunking in &chunkings {
        for &context in &contexts {
            ingests.push(IngestConfig { chunking, context });
        }
    }
    Ok(Grid {
        ingests,
        strategies,
        limit: args.limit,
        index_dir: args.index_dir.clone().unwrap_or_else(|| out.join("index")),
        vector_cache: args.vector_cache.clone(),
        #[cfg(feature = "postgres")]
        postgres: match &args.postgres {
            Some(url) => {
                let store =
                    StoreConfig { kind: StoreKind::Postgres, url: Some(url.clone()), ..config.store.clone() };
                store.validate("--postgres")?;
                Some(strata_engine::Location::postgres_options(config, url)?)
            }
            None => None,
        },
        #[cfg(feature = "milvus")]
        milvus: match &args.milvus {
            Some(url) => {
                let store =
                    StoreConfig { kind: StoreKind::Milvus, url: Some(url.clone()), ..config.store.clone() };
                store.validate("--milvus")?;
                // Each ingest names its own collections.
                Some(strata_milvus::MilvusOptions {
                    collection: None,
                    ..strata_engine::Location::milvus_options(config, url)
                })
            }
            None => None,
        },
    })
    .and_then(|grid| without_backends(args).map(|()| grid))
}

/// Refuses `--postgres` and `--milvus` in a build without them.
fn without_backends(args: &EvalArgs) -> Result<()> {
    #[cfg(not(feature = "postgres"))]
    if args.postgres.is_some() {
        anyhow::bail!(
            "--postgres: this strata was built without PostgreSQL; build it with `--features postgres`"
        );
    }
    #[cfg(not(feature = "milvus"))]
    if args.milvus.is_some() {
        anyhow::bail!("--milvus: this strata was built without Milvus; build it with `--features milvus`");
    }
    let _ = args;
    Ok(())
}

/// `[rerank]` with `--rerank-model` (a cross-encoder unless a kind is named) and `--rerank`
/// over it.
fn rerank_config(args: &EvalArgs, config: &Config) -> Result<strata_core::config::RerankConfig> {
    let mut rerank = config.rerank.clone();
    if let Some(m) = &args.rerank_model {
        rerank.model = m.clone();
        if rerank.kind == RerankKind::None {
            rerank.kind = RerankKind::CrossEncoder;
        }
    }
    if let Some(kind) = &args.rerank {
        rerank.kind = parse_in(kind, "--rerank")?;
    }
    Ok(rerank)
}

/// The progress bar of the grid's phases, hidden when `show` is false.
fn progress_bar(show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>24} [{bar:30}] {pos}/{len} {wide_msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// The command line as the report records it, arguments with spaces quoted.
fn command_line() -> String {
    std::iter::once("strata".to_string())
        .chain(std::env::args().skip(1))
        .map(|a| if a.contains(' ') { format!("'{a}'") } else { a })
        .collect::<Vec<_>>()
        .join(" ")
}

/// CPU model and count, from `/proc/cpuinfo` where there is one.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!("{cpu}, {cores} cores, {}", std::env::consts::OS)
}
