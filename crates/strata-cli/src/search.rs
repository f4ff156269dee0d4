//! `strata search`: its flags become [`SearchOptions`] (the rerank flags, configuration over
//! `[rerank]`), and the engine answers.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use strata_core::config::{parse_in, RerankKind};
use strata_core::Config;
use strata_engine::{Engine, OpenOptions, SearchOptions};
use strata_search::Mode;

use crate::args::{key_values, SearchArgs};
use crate::{emit, render};

/// Runs `strata search` on the index at `index`.
pub fn run(
    mut config: Config,
    index: &Path,
    model: Option<String>,
    json: bool,
    args: SearchArgs,
) -> Result<ExitCode> {
    if let Some(kind) = &args.rerank {
        config.rerank.kind = parse_in(kind, "--rerank")?;
    }
    if let Some(model) = &args.rerank_model {
        config.rerank.model = model.clone();
    }
    if let Some(n) = args.rerank_candidates {
        config.rerank.candidates = n;
    }
    if args.no_rerank {
        config.rerank.kind = RerankKind::None;
    }
    config.validate("the command line")?;
    let context = args.context;
    let options = options(args)?;
    let mode = options.mode(&config)?;
    let needs_dense = mode == Mode::Dense
        || (matches!(mode, Mode::Hybrid | Mode::Hierarchical) && config.search.weights.dense > 0.0);
    let open = OpenOptions { model, dense: needs_dense, ..OpenOptions::default() };
    let engine = Engine::open(config, index, &open)?;
    let response = engine.search(&options)?;
    if context && !json {
        render::context(&response);
    } else {
        emit(json, &response, render::search)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The search flags as the engine's options.
fn options(args: SearchArgs) -> Result<SearchOptions> {
    Ok(SearchOptions {
        query: args.query,
        mode: args.mode,
        k: args.k,
        doc: args.doc,
        conditions: key_values("--where", &args.r#where)?,
        kind: args.kind,
        page_range: args.page_range,
        budget: args.budget,
        pages: args.pages,
        refs: args.refs,
        merge: args.merge,
        order: args.order,
        rerank: None,
        highlights: args.highlights,
        dense_highlights: match (args.dense_highlights, args.lexical_highlights) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        definitions: args.definitions,
    })
}
