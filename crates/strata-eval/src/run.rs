//! The strategy grid: every ingest configuration (chunking × context) is ingested once, and
//! every strategy (search mode) runs every query against it.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use strata_core::config::SearchConfig;
use strata_core::{Config, DocId, Error, Result};
use strata_model::rerank::Reranker;
use strata_model::Embedder;
use strata_search::{Catalog, Expand, Mode, SearchHit, SearchRequest, Searcher};

use crate::dataset::{Dataset, Published};
use crate::ingest::{self, IndexedSet, IngestConfig, IngestStats};
use crate::judge;
use crate::metrics::{self, Percentiles, KS};

/// A search strategy: a mode by its name, optionally reranked (`hybrid+rerank`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Strategy {
    /// Name as given (`hybrid`, `hybrid+rerank`).
    pub name: String,
    /// The mode it runs.
    #[serde(skip)]
    pub mode: Mode,
    /// Whether the run's reranker reorders the top fused candidates.
    #[serde(skip)]
    pub rerank: bool,
    /// Search settings this strategy changes (`hybrid@dense=2@fusion=weighted`), as
    /// `(key, value)`, each one of [`crate::settings::SETTINGS`];
    /// `highlights=dense|lexical` also highlights each hit's sentences and judges them
    /// against span gold (`highlight_p@1`, `highlight_p@3`), with `highlight_sentences`
    /// (`dense_highlight_sentences`) bounding the sentences embedded per search.
    #[serde(skip)]
    pub settings: Vec<(String, String)>,
}

impl Strategy {
    /// Parses a strategy name: a mode, with `+rerank` to rerank it, then any `@key=value`
    /// settings (`hybrid@dense=2`, `hybrid+rerank@fusion=weighted`).
    pub fn parse(s: &str) -> Result<Strategy> {
        let name = s.trim().to_string();
        let mut parts = name.split('@');
        let head = parts.next().unwrap_or_default();
        let (mode, rerank) = match head.strip_suffix("+rerank") {
            Some(mode) => (mode, true),
            None => (head, false),
        };
        let mode = Mode::parse(mode)?;
        let settings = parts
            .map(|p| match p.split_once('=') {
                Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
                None => {
                    Err(Error::user(format!("strategy {name:?}: {p:?} is not KEY=VALUE (hybrid@dense=2)")))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let strategy = Strategy { name, mode, rerank, settings };
        strategy.search_config(&SearchConfig::default())?;
        Ok(strategy)
    }

    /// `base` with this strategy's settings ([`crate::settings::SETTINGS`]).
    pub fn search_config(&self, base: &SearchConfig) -> Result<SearchConfig> {
        let mut c = base.clone();
        for (key, value) in &self.settings {
            let name = &self.name;
            let Some(setting) = crate::settings::setting(key) else {
                return Err(Error::user(format!(
                    "strategy {name:?}: unknown setting {key:?}; use {}",
                    crate::settings::usage()
                )));
            };
            setting
                .apply(&mut c, value)
                .map_err(|why| Error::user(format!("strategy {name:?}: {key} {why}")))?;
        }
        c.validate(&format!("strategy {:?}", self.name))?;
        Ok(c)
    }

    /// Whether this strategy's highlights are judged (`@highlights=...`).
    pub fn judges_highlights(&self) -> bool {
        self.settings.iter().any(|(k, _)| k == "highlights")
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Grid {
    /// Ingest configurations, each ingested once.
    pub ingests: Vec<IngestConfig>,
    /// Strategies, each run on every ingest.
    pub strategies: Vec<Strategy>,
    /// Only the first this many queries (for quick runs).
    pub limit: Option<usize>,
    /// Where the indexes go (`DIR/<ingest label>`).
    pub index_dir: PathBuf,
    /// A folder of vectors shared by runs (`--vector-cache`): each text's vector is taken
    /// from it when it holds it, and the others are added ([`crate::vector_cache`]).
    pub vector_cache: Option<PathBuf>,
    /// Build each index in this PostgreSQL database instead (its strata tables are dropped
    /// before each ingest).
    #[cfg(feature = "postgres")]
    pub postgres: Option<strata_postgres::PgOptions>,
    /// Keep each index's vectors in Milvus instead (the records stay in `index_dir`). Each
    /// ingest drops its collections first.
    #[cfg(feature = "milvus")]
    pub milvus: Option<strata_milvus::MilvusOptions>,
}

/// Told as the run advances, for a progress bar.
pub trait Progress {
    /// A new phase with this many steps.
    fn phase(&self, label: &str, steps: u64);
    /// One step done.
    fn step(&self, what: &str);
}

/// Progress that goes nowhere.
pub struct Quiet;

impl Progress for Quiet {
    fn phase(&self, _: &str, _: u64) {}
    fn step(&self, _: &str) {}
}

/// One row of results: an ingest and a strategy.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Ingest label (`auto`, `256+structural`, `given`).
    pub ingest: String,
    /// Strategy name.
    pub strategy: String,
    /// Why the strategy did not run, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Queries scored (with gold).
    pub scored: usize,
    /// Queries that failed, with the first error.
    pub failed: usize,
    /// First error of a failed query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// Means over scored queries: `recall@5`, `ndcg@10`, `span_iou@5`, ….
    pub metrics: BTreeMap<String, f64>,
    /// Milliseconds per search stage.
    pub latency_ms: BTreeMap<String, Percentiles>,
    /// Each scored query's id and its metrics at 10, in query order: written to
    /// `queries.jsonl` beside the report, not into it.
    #[serde(skip)]
    pub per_query: Vec<(String, BTreeMap<String, f64>)>,
}

/// Everything a run found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Data set name.
    pub dataset: String,
    /// Documents and queries in the data set.
    pub documents: usize,
    /// Queries run.
    pub queries: usize,
    /// Queries without gold (not scored).
    pub queries_without_gold: usize,
    /// Gold labels that named something an ingest did not have, per ingest.
    pub unresolved_gold: BTreeMap<String, usize>,
    /// Cut-offs.
    pub ks: Vec<usize>,
    /// The embedding model of the dense leg, when there is one.
    pub model: Option<String>,
    /// The reranker of `+rerank` strategies, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reranker: Option<String>,
    /// What each ingest cost.
    pub ingests: BTreeMap<String, IngestStats>,
    /// Results, ingest by ingest, strategy by strategy.
    pub rows: Vec<Row>,
    /// Results published by others, for comparison.
    pub published: Vec<Published>,
    /// Notes from the adapter and the run.
    pub notes: Vec<String>,
    /// The command line, when the caller sets it.
    pub command: String,
    /// The machine, when the caller sets it.
    pub machine: String,
    /// Seconds for the whole run.
    pub seconds: f64,
}

/// Runs the grid over a data set. `embedder` is the dense leg's model (`None`: no dense leg,
/// and strategies that need it are reported as refused); `reranker` reranks the `+rerank`
/// strategies (`None`: they are refused), reading `config.rerank.candidates` results.
pub fn run(
    dataset: &Dataset,
    grid: &Grid,
    config: &Config,
    embedder: Option<&dyn Embedder>,
    reranker: Option<&dyn Reranker>,
    progress: &dyn Progress,
) -> Result<Report> {
    if grid.ingests.is_empty() || grid.strategies.is_empty() {
        return Err(Error::user("nothing to run: give at least one strategy and one chunking"));
    }
    let started = Instant::now();
    let queries = match grid.limit {
        Some(n) => &dataset.queries[..n.min(dataset.queries.len())],
        None => &dataset.queries[..],
    };
    let mut report = empty_report(dataset, queries, embedder, reranker);
    if grid.ingests.iter().any(|i| i.chunking == crate::ingest::Chunking::Given)
        && !dataset.documents.iter().any(|d| d.given_chunks.is_some())
    {
        return Err(Error::user(format!(
            "{} comes without chunks of its own; drop \"given\" from --chunking (use auto or a token count)",
            dataset.name
        )));
    }
    note_gold(&mut report, queries, grid);
    let mut vectors = match (&grid.vector_cache, embedder) {
        (Some(dir), Some(_)) => Some(crate::vector_cache::FolderCache::open(dir)?),
        _ => None,
    };
    let models = Models { config, embedder, reranker };
    for &ingest_config in &grid.ingests {
        let label = ingest_config.label();
        progress.phase(&format!("ingest {label}"), dataset.documents.len() as u64);
        let dir = grid.index_dir.join(&label);
        let location = ingest::location(grid, &label, &dir);
        let set = ingest::ingest(
            dataset,
            ingest_config,
            config,
            embedder,
            &dir,
            &location,
            vectors.as_mut(),
            &mut |name| progress.step(name),
        )?;
        note_ingest(&mut report, &label, &set.stats);
        run_ingest(&mut report, &label, &set, queries, grid, &models, progress)?;
        report.ingests.insert(label, set.stats);
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// What the strategies search with.
struct Models<'a> {
    config: &'a Config,
    embedder: Option<&'a dyn Embedder>,
    reranker: Option<&'a dyn Reranker>,
}

/// The report before anything ran: the data set, the queries and the models.
fn empty_report(
    dataset: &Dataset,
    queries: &[crate::dataset::Query],
    embedder: Option<&dyn Embedder>,
    reranker: Option<&dyn Reranker>,
) -> Report {
    Report {
        dataset: dataset.name.clone(),
        documents: dataset.documents.len(),
        queries: queries.len(),
        queries_without_gold: queries.iter().filter(|q| q.gold.is_empty()).count(),
        unresolved_gold: BTreeMap::new(),
        ks: KS.to_vec(),
        model: embedder.map(|e| e.info().model_id.clone()),
        reranker: reranker.map(|r| r.id().to_string()),
        ingests: BTreeMap::new(),
        rows: Vec::new(),
        published: dataset.published.clone(),
        notes: dataset.notes.clone(),
        command: String::new(),
        machine: String::new(),
        seconds: 0.0,
    }
}

/// Notes on what the gold can say: chunk ids across chunkings, whole documents.
fn note_gold(report: &mut Report, queries: &[crate::dataset::Query], grid: &Grid) {
    let chunk_gold =
        queries.iter().flat_map(|q| &q.gold).any(|g| matches!(g.target, crate::dataset::Target::Chunk(_)));
    if chunk_gold && grid.ingests.len() > 1 {
        report.notes.push(
            "gold names chunk ids, which name other text under each chunking; compare chunkings by span or section gold"
                .into(),
        );
    }
    if queries.iter().any(|q| {
        !q.gold.is_empty() && q.gold.iter().all(|g| matches!(g.target, crate::dataset::Target::Doc(_)))
    }) {
        report.notes.push(format!(
            "documents are judged whole: each query asks for {} chunks, and a document ranks where its best chunk does",
            strata_core::config::MAX_K
        ));
    }
}

/// Notes on one ingest: its own note, the contexts a model wrote, the documents that failed.
fn note_ingest(report: &mut Report, label: &str, stats: &ingest::IngestStats) {
    if let Some(note) = &stats.note {
        report.notes.push(format!("ingest {label}: {note}"));
    }
    if let Some(c) = &stats.contexts {
        report.notes.push(format!(
            "ingest {label}: contexts by {}: {} written, {} from {}, {} structural fallbacks, {} chunks of cut documents; {}",
            c.contextualizer,
            c.tally.written,
            c.tally.cached,
            crate::ingest::CONTEXT_CACHE_FILE,
            c.tally.fallbacks,
            c.tally.truncated,
            strata_providers::cost::describe(&c.tally.usage, c.tally.cost_usd)
        ));
    }
    if !stats.failed.is_empty() {
        report.notes.push(format!(
            "ingest {label}: {} documents failed, first: {} ({})",
            stats.failed.len(),
            stats.failed[0].0,
            stats.failed[0].1
        ));
    }
}

/// Every strategy of the grid on one ingest's index: a row each.
fn run_ingest(
    report: &mut Report,
    label: &str,
    set: &ingest::IndexedSet,
    queries: &[crate::dataset::Query],
    grid: &Grid,
    models: &Models<'_>,
    progress: &dyn Progress,
) -> Result<()> {
    let max_k = *KS.last().unwrap_or(&10);
    let mut doc_number: HashMap<DocId, usize> = HashMap::new();
    let mut ids: Vec<&DocId> = set.names.keys().collect();
    ids.sort();
    for (i, id) in ids.into_iter().enumerate() {
        doc_number.insert(id.clone(), i);
    }
    let golds: Vec<judge::ResolvedGold> =
        queries.iter().map(|q| judge::resolve(q, set, &doc_number)).collect();
    report.unresolved_gold.insert(label.to_string(), golds.iter().map(|g| g.unresolved).sum());
    let catalog = Catalog::read(set.store.as_ref())?;
    for strategy in &grid.strategies {
        let search = strategy.search_config(&models.config.search)?;
        let highlights = strategy.judges_highlights().then(|| Expand {
            highlights: search.highlights.max(1),
            dense_highlights: search.dense_highlights,
            dense_highlight_sentences: search.dense_highlight_sentences,
            ..Expand::none()
        });
        let searcher = Searcher::with_catalog(set.store.as_ref(), search, catalog.clone());
        let searcher = match models.embedder {
            Some(e) if set.has_vectors() => searcher.with_embedder(e)?,
            _ => searcher,
        };
        let searcher = match models.reranker {
            Some(r) => searcher.with_reranker(r, models.config.rerank.candidates),
            None => searcher,
        };
        progress.phase(&format!("{label} · {}", strategy.name), queries.len() as u64);
        let judged = Judged { golds: &golds, set, doc_number: &doc_number, highlights };
        let row = run_strategy(&searcher, strategy, queries, &judged, max_k, progress);
        report.rows.push(Row { ingest: label.to_string(), ..row });
    }
    Ok(())
}

/// What a strategy's answers are judged against.
struct Judged<'a> {
    golds: &'a [judge::ResolvedGold],
    set: &'a IndexedSet,
    doc_number: &'a HashMap<DocId, usize>,
    /// The expansion that highlights the hits, when highlights are judged.
    highlights: Option<Expand>,
}

fn run_strategy(
    searcher: &Searcher<'_>,
    strategy: &Strategy,
    queries: &[crate::dataset::Query],
    judged: &Judged<'_>,
    max_k: usize,
    progress: &dyn Progress,
) -> Row {
    let Judged { golds, set, doc_number, .. } = *judged;
    let mut row = Row {
        ingest: String::new(),
        strategy: strategy.name.clone(),
        refused: None,
        scored: 0,
        failed: 0,
        first_error: None,
        metrics: BTreeMap::new(),
        latency_ms: BTreeMap::new(),
        per_query: Vec::new(),
    };
    if strategy.rerank && searcher.reranker().is_none() {
        row.refused = Some(
            "no reranker: pass --rerank-model DIR (a cross-encoder folder such as ms-marco-MiniLM-L-6-v2) \
             or set [rerank] kind and model"
                .into(),
        );
        return row;
    }
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut stages: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (i, (query, gold)) in queries.iter().zip(golds).enumerate() {
        // Judged by document, several chunks of one document collapse into one result: ask
        // for more chunks so that the cut-offs count documents.
        let k = if gold.by_document() { strata_core::config::MAX_K } else { max_k };
        // The ranking is what is judged: no merging, pages or context (highlights only when
        // they are judged too).
        let mut request = SearchRequest::new(query.text.clone(), strategy.mode, k).ranking_only();
        request.rerank = strategy.rerank;
        if let Some(expand) = &judged.highlights {
            request.expand = expand.clone();
        }
        match searcher.search(&request) {
            Ok(response) => {
                for (stage, ms) in response.timings.stages() {
                    stages.entry(stage.to_string()).or_default().push(ms);
                }
                let mut hits: Vec<SearchHit> = metrics::dedupe(response.hits, |h| h.chunk_id.clone());
                metrics::break_ties(&mut hits, |h| h.score, |h| h.chunk_id.clone());
                let mut scores = judge::score(gold, &hits, set, doc_number, &KS);
                if judged.highlights.is_some() {
                    scores.extend(judge::score_highlights(gold, &hits));
                }
                tally(&mut row, &mut sums, &query.id, scores);
            }
            Err(e) if i == 0 && matches!(e, Error::User(_)) => {
                // The mode cannot run on this index at all (not built, no vectors, …).
                row.refused = Some(e.to_string());
                break;
            }
            Err(e) => {
                // A failed query scores zero, so failures never flatter a strategy.
                row.failed += 1;
                row.first_error.get_or_insert_with(|| format!("query {}: {e}", query.id));
                tally(&mut row, &mut sums, &query.id, judge::score(gold, &[], set, doc_number, &KS));
            }
        }
        progress.step(&query.id);
    }
    row.metrics = sums.into_iter().map(|(k, (sum, n))| (k, sum / n as f64)).collect();
    row.latency_ms = stages.into_iter().filter_map(|(k, v)| Some((k, Percentiles::of(&v)?))).collect();
    row
}

/// Adds one query's metrics to the row's running sums, and its metrics at 10 to the row's
/// per-query list.
fn tally(row: &mut Row, sums: &mut BTreeMap<String, (f64, usize)>, id: &str, scores: Vec<(String, f64)>) {
    if !scores.is_empty() {
        row.scored += 1;
        let at_10 = scores.iter().filter(|(name, _)| name.ends_with("@10")).cloned().collect();
        row.per_query.push((id.to_string(), at_10));
    }
    for (name, value) in scores {
        let entry = sums.entry(name).or_insert((0.0, 0));
        entry.0 += value;
        entry.1 += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strategy_changes_the_search_settings_it_names() {
        let s = Strategy::parse("hybrid+rerank@dense=2@fusion=weighted@documents=0").unwrap();
        assert_eq!((s.mode, s.rerank), (Mode::Hybrid, true));
        let c = s.search_config(&SearchConfig::default()).unwrap();
        assert_eq!((c.weights.dense, c.weights.documents), (2.0, 0.0));
        assert_eq!(c.fusion, strata_core::config::FusionKind::Weighted);
        assert_eq!(
            Strategy::parse("hybrid").unwrap().search_config(&SearchConfig::default()).unwrap(),
            SearchConfig::default()
        );
        for (bad, says) in [
            ("hybrid@dense", "KEY=VALUE"),
            ("hybrid@dense=x", "takes a number"),
            ("hybrid@speed=1", "unknown setting"),
            ("hybrid@dense=-1", ">= 0"),
            ("hybrid@highlights=bold", "highlights takes one of dense, lexical"),
            ("hierarchical@heading_scope=any", "heading_scope takes one of all, named, distinct"),
        ] {
            let err = Strategy::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
