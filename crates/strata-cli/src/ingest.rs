//! `strata ingest`: its flags become the engine's [`IngestOptions`], and the engine ingests,
//! as it does for the server's jobs and the Python package.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use strata_core::config::parse_in;
use strata_core::Config;
use strata_engine::{estimate, IngestOptions};

use crate::args::{key_values, IngestArgs};
use crate::{emit, render};

/// Runs `strata ingest` (or, with `--dry-run`, its estimate) on the index at `index`.
pub fn run(
    config: Config,
    index: &Path,
    model: Option<&str>,
    json: bool,
    args: IngestArgs,
) -> Result<ExitCode> {
    let options = IngestOptions {
        force: args.force,
        progress: !args.quiet && !json && std::io::stderr().is_terminal(),
        context: args.contextualize.map(|kind| parse_in(&kind, "--contextualize")).transpose()?,
        metadata: key_values("--meta", &args.meta)?,
        ocr: args.ocr.map(|ocr| parse_in(&ocr, "--ocr")).transpose()?,
        ..IngestOptions::default()
    };
    if args.dry_run {
        let estimate = estimate::estimate(&options.apply(&config)?, index, &args.paths)?;
        emit(json, &estimate, render::estimate)?;
        return Ok(ExitCode::SUCCESS);
    }
    let summary = strata_engine::ingest_files(config, index, model, &args.paths, &options)?;
    emit(json, &summary, render::ingest)?;
    let nothing = summary.ingested == 0 && summary.unchanged == 0;
    Ok(if nothing { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
