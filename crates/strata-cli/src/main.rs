//! The `strata` command line. A thin front-end: it parses arguments, calls the libraries and
//! renders their answers as text or JSON.

#[macro_use]
mod print;
mod args;
mod eval;
mod ingest;
mod render;
mod search;
mod serve;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;
use serde::Serialize;
use strata_core::Config;
use strata_engine::{models, Engine, Location, OpenOptions};
use strata_search::navigate::split_target;

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

fn run(cli: Cli) -> Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
    let (index, model, json) = (cli.index.as_path(), cli.model.clone(), cli.json);
    match cli.command {
        Command::Ingest(args) => ingest::run(config, index, model.as_deref(), json, args),
        Command::Search(args) => search::run(config, index, model, json, args),
        Command::Tree { doc, depth } => {
            done(json, &navigator(config, index)?.outline(&doc, depth)?, render::tree)
        }
        Command::Show { target } => {
            let (doc, node) = split_target(&target);
            done(json, &navigator(config, index)?.section(doc, node)?, render::section)
        }
        Command::Read { doc, pages } => {
            done(json, &navigator(config, index)?.read_pages(&doc, &pages)?, render::pages)
        }
        Command::Define { term } => {
            let defs = navigator(config, index)?.define(&term, None)?;
            emit(json, &defs, |defs| render::define(&term, defs))?;
            Ok(if defs.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Refs { target } => {
            let (doc, node) = split_target(&target);
            done(json, &navigator(config, index)?.references(doc, node)?, render::refs)
        }
        Command::Docs => done(json, &navigator(config, index)?.documents()?, |docs| render::docs(docs)),
        Command::Check => {
            let check = strata_engine::check(&Location::of(&config, index)?)?;
            emit(json, &check, render::check)?;
            Ok(if check.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Serve(args) => serve::http(config, index, model, args).map(|()| ExitCode::SUCCESS),
        Command::Mcp => serve::stdio(config, index, model).map(|()| ExitCode::SUCCESS),
        Command::Eval(args) => {
            let outcome = eval::run(args, &config, model.as_deref(), json)?;
            done(json, &outcome, |o| {
                show!("{}", o.markdown);
                for path in &o.written {
                    say_err!("wrote {}", path.display());
                }
            })
        }
        Command::Distill { source, out, dims } => {
            let source = source.or(model).unwrap_or_else(|| config.dense.model.clone());
            let options = models::DistillOptions { dims, ..Default::default() };
            done(json, &models::distill(&source, out.as_deref(), options)?, render::distilled)
        }
        Command::Remove { doc } => {
            let id = strata_engine::remove(&Location::of(&config, index)?, &doc)?;
            done(json, &serde_json::json!({ "removed": id }), |_| say!("removed {id}"))
        }
    }
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

/// [`emit`], for a command that succeeded.
fn done<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T)) -> Result<ExitCode> {
    emit(json, value, human)?;
    Ok(ExitCode::SUCCESS)
}
