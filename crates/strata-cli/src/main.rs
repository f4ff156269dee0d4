//! The `strata` command line. A thin front-end: it parses arguments, calls the libraries and
//! renders their answers as text or JSON.

#[macro_use]
mod print;
mod args;
mod eval;
mod render;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use serde::Serialize;
use strata_core::config::{parse_in, RerankKind};
use strata_core::Config;
use strata_engine::{estimate, ingest, models, Engine, Location, OpenOptions, SearchOptions};
use strata_search::navigate::split_target;
use strata_search::Mode;

use args::{Cli, Command};

fn main() -> ExitCode {
    // Behave like other Unix tools when the reader of our output goes away (`strata tree X |
    // head`): exit quietly instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Deep outlines (10,000 nested headings) serialize recursively; give them room.
    let child = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(real_main)
        .expect("spawning the main thread");
    child.join().unwrap_or(ExitCode::FAILURE)
}

fn real_main() -> ExitCode {
    let cli = Cli::parse();
    // `RUST_LOG=strata_ingest=debug,strata_search=debug` shows the stages at work. The server
    // logs each request by default; `STRATA_LOG_FORMAT=json` writes one JSON object per line.
    // lopdf warns about every odd font dictionary with the whole dictionary, many lines each,
    // through the progress bar; a PDF strata cannot read is reported as a failed file anyway.
    let default = match cli.command {
        Command::Serve { .. } => "warn,lopdf=error,strata_serve=info,tower_http=info",
        _ => "warn,lopdf=error",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| default.into());
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false);
    if std::env::var("STRATA_LOG_FORMAT").is_ok_and(|f| f == "json") {
        logs.json().init();
    } else {
        logs.init();
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            say_err!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The engine of `serve`: every model loaded, the index created when absent.
fn open_for_serving(
    config: Config,
    index: &std::path::Path,
    model: Option<String>,
) -> Result<std::sync::Arc<Engine>> {
    let open = OpenOptions { model, dense: true, create: true, navigate_only: false };
    Ok(std::sync::Arc::new(Engine::open(config, index, &open)?))
}

/// The engine of the navigation commands: no model is loaded.
fn navigator(config: Config, index: &std::path::Path) -> Result<Engine> {
    Ok(Engine::open(config, index, &OpenOptions { navigate_only: true, ..OpenOptions::default() })?)
}

/// Prints `value` as JSON with `--json`, else renders it for people.
fn emit<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T)) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        human(value);
    }
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::Ingest { paths, force, quiet, contextualize, dry_run, meta, ocr } => {
            let progress = !quiet && !cli.json && std::io::stderr().is_terminal();
            let mut config = config;
            if let Some(kind) = contextualize {
                config.context.kind = parse_in(&kind, "--contextualize")?;
                config.validate("--contextualize")?;
            }
            if let Some(ocr) = ocr {
                config.ingest.ocr = parse_in(&ocr, "--ocr")?;
            }
            for entry in &meta {
                let Some((key, value)) = entry.split_once('=') else {
                    anyhow::bail!("--meta {entry:?} is not KEY=VALUE; write it as --meta company=Acme");
                };
                config.ingest.metadata.insert(key.trim().to_string(), value.trim().to_string());
            }
            if !meta.is_empty() {
                config.validate("--meta")?;
            }
            if dry_run {
                let estimate = estimate::estimate(&config, &cli.index, &paths)?;
                emit(cli.json, &estimate, render::estimate)?;
                return Ok(ExitCode::SUCCESS);
            }
            let embedder = models::for_ingest(&config, cli.model.as_deref())?;
            if let Some(note) = embedder.as_deref().and_then(|e| models::fit_chunks(&mut config, e)) {
                tracing::info!("{note}");
            }
            let summary = ingest::run(
                &config,
                &Location::of(&config, &cli.index)?,
                &paths,
                force,
                progress,
                embedder.as_deref(),
                &|| {},
            )?;
            emit(cli.json, &summary, render::ingest)?;
            let nothing = summary.ingested == 0 && summary.unchanged == 0;
            Ok(if nothing { ExitCode::FAILURE } else { ExitCode::SUCCESS })
        }
        Command::Search {
            query,
            mode,
            k,
            doc,
            r#where,
            kind,
            page_range,
            budget,
            pages,
            refs,
            merge,
            order,
            context,
            rerank,
            rerank_model,
            rerank_candidates,
            no_rerank,
            highlights,
            dense_highlights,
            lexical_highlights,
            definitions,
        } => {
            let mut config = config;
            if let Some(kind) = rerank {
                config.rerank.kind = parse_in(&kind, "--rerank")?;
            }
            if let Some(model) = rerank_model {
                config.rerank.model = model;
            }
            if let Some(n) = rerank_candidates {
                config.rerank.candidates = n;
            }
            if no_rerank {
                config.rerank.kind = RerankKind::None;
            }
            config.validate("the command line")?;
            let options = SearchOptions {
                query,
                mode,
                k,
                doc,
                conditions: conditions(&r#where)?,
                kind,
                page_range,
                budget,
                pages,
                refs,
                merge,
                order,
                rerank: None,
                highlights,
                dense_highlights: match (dense_highlights, lexical_highlights) {
                    (true, _) => Some(true),
                    (_, true) => Some(false),
                    _ => None,
                },
                definitions,
            };
            let mode = options.mode(&config)?;
            let needs_dense = mode == Mode::Dense
                || (matches!(mode, Mode::Hybrid | Mode::Hierarchical) && config.search.weights.dense > 0.0);
            let open = OpenOptions { model: cli.model.clone(), dense: needs_dense, ..OpenOptions::default() };
            let engine = Engine::open(config, &cli.index, &open)?;
            let response = engine.search(&options)?;
            if context && !cli.json {
                render::context(&response);
            } else {
                emit(cli.json, &response, render::search)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Tree { doc, depth } => {
            let outline = navigator(config, &cli.index)?.outline(&doc, depth)?;
            emit(cli.json, &outline, render::tree)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Show { target } => {
            let (doc, node) = split_target(&target);
            let section = navigator(config, &cli.index)?.section(doc, node)?;
            emit(cli.json, &section, render::section)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Read { doc, pages } => {
            let read = navigator(config, &cli.index)?.read_pages(&doc, &pages)?;
            emit(cli.json, &read, render::pages)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Define { term } => {
            let defs = navigator(config, &cli.index)?.define(&term, None)?;
            emit(cli.json, &defs, |defs| render::define(&term, defs))?;
            Ok(if defs.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Refs { target } => {
            let (doc, node) = split_target(&target);
            let refs = navigator(config, &cli.index)?.references(doc, node)?;
            emit(cli.json, &refs, render::refs)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Docs => {
            let docs = navigator(config, &cli.index)?.documents()?;
            emit(cli.json, &docs, |docs| render::docs(docs))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check => {
            let check = strata_engine::check(&Location::of(&config, &cli.index)?)?;
            emit(cli.json, &check, render::check)?;
            Ok(if check.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Serve { addr, public, roots, no_mcp } => {
            let mut config = config;
            if let Some(addr) = addr {
                config.serve.addr = addr;
            }
            config.serve.public |= public;
            config.serve.roots.extend(roots);
            config.validate("the command line")?;
            let listen = strata_serve::Listen {
                addr: config.serve.addr.parse().context("--addr")?,
                public: config.serve.public,
                mcp: !no_mcp,
            };
            // Before loading any model: a refused address is refused at once.
            listen.check(config.serve.api_keys.len())?;
            let engine = open_for_serving(config, &cli.index, cli.model.clone())?;
            strata_serve::run_http(strata_serve::AppState::new(engine)?, listen)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp => {
            // No ingest over MCP: a mistyped --index is an error, not a new empty index.
            let open = OpenOptions { model: cli.model.clone(), dense: true, ..OpenOptions::default() };
            let engine = std::sync::Arc::new(Engine::open(config, &cli.index, &open)?);
            strata_serve::run_stdio(engine)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval(args) => {
            let outcome = eval::run(args, &config, cli.model.as_deref(), cli.json)?;
            emit(cli.json, &outcome, |o| {
                show!("{}", o.markdown);
                for path in &o.written {
                    say_err!("wrote {}", path.display());
                }
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Distill { source, out, dims } => {
            let source = source.or(cli.model).unwrap_or_else(|| config.dense.model.clone());
            let options = models::DistillOptions { dims, ..Default::default() };
            let made = models::distill(&source, out.as_deref(), options)?;
            emit(cli.json, &made, render::distilled)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Remove { doc } => {
            let id = strata_engine::remove(&Location::of(&config, &cli.index)?, &doc)?;
            emit(cli.json, &serde_json::json!({ "removed": id }), |_| say!("removed {id}"))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `--where key=value` flags as conditions.
fn conditions(flags: &[String]) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    flags
        .iter()
        .map(|f| match f.split_once('=') {
            Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
            None => anyhow::bail!("--where {f:?} is not KEY=VALUE; write it as --where company=Acme"),
        })
        .collect()
}
