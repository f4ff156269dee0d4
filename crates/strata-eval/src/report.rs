//! Writing a report: `report.json` (everything), `report.md` (the tables) and
//! `report.html` (the tables and the charts), into one folder.

use std::path::Path;

use strata_core::{Error, Result};

use crate::chart;
use crate::run::{Report, Row};

/// A table, rendered to Markdown or HTML.
struct Table {
    title: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn markdown(&self) -> String {
        let mut out = format!(
            "## {}\n\n| {} |\n|{}\n",
            self.title,
            self.header.join(" | "),
            "---|".repeat(self.header.len())
        );
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push('\n');
        out
    }

    fn html(&self) -> String {
        let mut out = format!("<h2>{}</h2>\n<table>\n<tr>", escape(&self.title));
        for h in &self.header {
            out.push_str(&format!("<th>{}</th>", escape(h)));
        }
        out.push_str("</tr>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for cell in row {
                out.push_str(&format!("<td>{}</td>", escape(cell)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn metric(row: &Row, name: &str) -> String {
    row.metrics.get(name).map_or_else(|| "–".to_string(), |v| format!("{v:.3}"))
}

fn ran(report: &Report) -> impl Iterator<Item = &Row> {
    report.rows.iter().filter(|r| r.refused.is_none())
}

fn tables(report: &Report) -> Vec<Table> {
    let mut tables = vec![retrieval_table(report)];
    tables.extend(published_table(report));
    tables.extend(structural_table(report));
    tables.extend(highlights_table(report));
    tables.push(latency_table(report));
    tables.push(ingest_table(report));
    tables
}

/// Recall at each k, MRR, nDCG, precision and hits, a row per strategy.
fn retrieval_table(report: &Report) -> Table {
    let ks = &report.ks;
    let mut header = vec!["chunking".to_string(), "strategy".to_string()];
    header.extend(ks.iter().map(|k| format!("recall@{k}")));
    header.extend(["mrr@10", "ndcg@10", "precision@5", "hit@5"].map(String::from));
    let rows = ran(report)
        .map(|r| {
            let mut cells = vec![r.ingest.clone(), r.strategy.clone()];
            cells.extend(ks.iter().map(|k| metric(r, &format!("recall@{k}"))));
            cells.extend(["mrr@10", "ndcg@10", "precision@5", "hit@5"].map(|m| metric(r, m)));
            cells
        })
        .collect();
    Table { title: "Retrieval (means over queries with gold)".into(), header, rows }
}

/// The published results of the data set's own paper beside strata's, when it has some.
fn published_table(report: &Report) -> Option<Table> {
    if report.published.is_empty() {
        return None;
    }
    let mut metrics: Vec<&str> = Vec::new();
    let mut systems: Vec<&str> = Vec::new();
    for p in &report.published {
        if !metrics.contains(&p.metric.as_str()) {
            metrics.push(&p.metric);
        }
        if !systems.contains(&p.system.as_str()) {
            systems.push(&p.system);
        }
    }
    let mut header = vec!["system".to_string()];
    header.extend(metrics.iter().map(|m| m.to_string()));
    let mut rows: Vec<Vec<String>> = systems
        .iter()
        .map(|s| {
            let mut cells = vec![format!("published: {s}")];
            cells.extend(metrics.iter().map(|m| {
                report
                    .published
                    .iter()
                    .find(|p| p.system == *s && p.metric == *m)
                    .map_or_else(|| "–".to_string(), |p| format!("{:.3}", p.value))
            }));
            cells
        })
        .collect();
    let model = report.model.as_deref().unwrap_or("no dense model");
    rows.extend(ran(report).map(|r| {
        let mut cells = vec![format!("strata {} · {} ({model})", r.strategy, r.ingest)];
        cells.extend(metrics.iter().map(|m| metric(r, m)));
        cells
    }));
    let sources: Vec<&str> = {
        let mut s: Vec<&str> = Vec::new();
        for p in &report.published {
            if !s.contains(&p.source.as_str()) {
                s.push(&p.source);
            }
        }
        s
    };
    Some(Table { title: format!("Next to published results ({})", sources.join("; ")), header, rows })
}

/// Section, page and span recall and IoU, when the gold has them.
fn structural_table(report: &Report) -> Option<Table> {
    let structural = ["section_recall@5", "page_recall@5", "span_recall@5", "span_precision@5", "span_iou@5"];
    if !ran(report).any(|r| structural.iter().any(|m| r.metrics.contains_key(*m))) {
        return None;
    }
    let mut header = vec!["chunking".to_string(), "strategy".to_string()];
    let names: Vec<String> = ["section_recall", "page_recall", "span_recall", "span_iou"]
        .iter()
        .flat_map(|m| ["1", "5", "10", "min"].map(|k| format!("{m}@{k}")))
        .filter(|name| ran(report).any(|r| r.metrics.contains_key(name)))
        .collect();
    header.extend(names.iter().cloned());
    let rows = ran(report)
        .map(|r| {
            let mut cells = vec![r.ingest.clone(), r.strategy.clone()];
            cells.extend(names.iter().map(|m| metric(r, m)));
            cells
        })
        .collect();
    Some(Table { title: "Sections, pages and spans".into(), header, rows })
}

/// How often the highlighted sentences of hits on gold are on it, when judged.
fn highlights_table(report: &Report) -> Option<Table> {
    let judged = |r: &&Row| r.metrics.contains_key("highlight_p@3");
    if !ran(report).any(|r| judged(&r)) {
        return None;
    }
    let header =
        ["chunking", "strategy", "highlight_p@1", "highlight_p@3", "highlight p50 ms", "highlight p99 ms"];
    let rows = ran(report)
        .filter(judged)
        .map(|r| {
            let stage = r.latency_ms.get("highlight");
            let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.1}"));
            vec![
                r.ingest.clone(),
                r.strategy.clone(),
                metric(r, "highlight_p@1"),
                metric(r, "highlight_p@3"),
                ms(stage.map(|p| p.p50)),
                ms(stage.map(|p| p.p99)),
            ]
        })
        .collect();
    let title = "Highlights: the hits on gold, how often their highlighted sentences are on it".into();
    Some(Table { title, header: header.map(String::from).to_vec(), rows })
}

/// Search latency: total percentiles and each stage's median.
fn latency_table(report: &Report) -> Table {
    let stages = ["total", "plan", "embed", "dense", "keyword", "exact", "fuse", "hierarchy", "fetch"];
    let mut header = vec!["chunking".to_string(), "strategy".to_string()];
    header.extend(["total p50", "total p95", "total p99"].map(String::from));
    header.extend(stages[1..].iter().map(|s| format!("{s} p50")));
    let rows = ran(report)
        .map(|r| {
            let mut cells = vec![r.ingest.clone(), r.strategy.clone()];
            let ms = |v: f64| format!("{v:.2}");
            match r.latency_ms.get("total") {
                Some(t) => cells.extend([ms(t.p50), ms(t.p95), ms(t.p99)]),
                None => cells.extend(["–", "–", "–"].map(String::from)),
            }
            cells.extend(stages[1..].iter().map(|s| r.latency_ms.get(*s).map_or("–".into(), |p| ms(p.p50))));
            cells
        })
        .collect();
    Table { title: "Search latency (milliseconds per query)".into(), header, rows }
}

/// What each ingest made and took.
fn ingest_table(report: &Report) -> Table {
    let header = [
        "chunking",
        "documents",
        "chunks",
        "tokens/chunk",
        "max tokens",
        "truncated",
        "ingest s",
        "embed s",
        "index MB",
        "peak RSS MB",
        "failed",
    ]
    .map(String::from)
    .to_vec();
    let mb = |b: u64| format!("{:.1}", b as f64 / 1e6);
    let rows = report
        .ingests
        .iter()
        .map(|(label, s)| {
            vec![
                label.clone(),
                s.documents.to_string(),
                s.chunks.to_string(),
                format!("{:.0}", s.mean_chunk_tokens),
                if s.max_tokens == 0 { "given".into() } else { s.max_tokens.to_string() },
                s.truncated.to_string(),
                format!("{:.1}", s.seconds),
                format!("{:.1}", s.embed_seconds),
                mb(s.index_bytes),
                s.peak_rss_bytes.map_or("–".into(), mb),
                s.failed.len().to_string(),
            ]
        })
        .collect();
    Table { title: "Ingest".into(), header, rows }
}

fn preamble(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    if !report.command.is_empty() {
        lines.push(format!("Command: `{}`", report.command));
    }
    if !report.machine.is_empty() {
        lines.push(format!("Machine: {}", report.machine));
    }
    lines.push(format!(
        "{} documents, {} queries ({} without gold, not scored), dense model: {}, run took {:.0} s.",
        report.documents,
        report.queries,
        report.queries_without_gold,
        report.model.as_deref().unwrap_or("none"),
        report.seconds
    ));
    let unresolved: usize = report.unresolved_gold.values().sum();
    if unresolved > 0 {
        let per: Vec<String> =
            report.unresolved_gold.iter().map(|(ingest, n)| format!("{n} in {ingest}")).collect();
        lines.push(format!("Gold labels that did not resolve (counted as misses): {}.", per.join(", ")));
    }
    lines
}

fn trailer(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .rows
        .iter()
        .filter_map(|r| {
            r.refused.as_ref().map(|why| format!("{} · {}: not run: {why}", r.strategy, r.ingest))
        })
        .collect();
    lines.extend(report.rows.iter().filter(|r| r.failed > 0).map(|r| {
        format!(
            "{} · {}: {} queries failed; {}",
            r.strategy,
            r.ingest,
            r.failed,
            r.first_error.as_deref().unwrap_or("")
        )
    }));
    lines.extend(report.notes.iter().cloned());
    lines
}

/// The Markdown report.
pub fn markdown(report: &Report) -> String {
    let mut out = format!("# strata eval: {}\n\n", report.dataset);
    for line in preamble(report) {
        out.push_str(&format!("{line}  \n"));
    }
    out.push('\n');
    for table in tables(report) {
        out.push_str(&table.markdown());
    }
    let trailer = trailer(report);
    if !trailer.is_empty() {
        out.push_str("## Notes\n\n");
        for line in trailer {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}

/// The HTML report, with the charts `chart::write` made beside it.
pub fn html(report: &Report, charts: &[String]) -> String {
    let mut out = format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>strata eval: {0}</title>\n<style>\
         body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse;margin:1em 0;font-size:14px}}\
         td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}\
         td:first-child,td:nth-child(2),th{{text-align:left}}\
         img{{max-width:100%}}</style></head><body>\n<h1>strata eval: {0}</h1>\n",
        escape(&report.dataset)
    );
    for line in preamble(report) {
        out.push_str(&format!("<p>{}</p>\n", escape(&line)));
    }
    for chart in charts.iter().filter(|c| c.ends_with(".svg")) {
        out.push_str(&format!("<p><img src=\"{0}\" alt=\"{0}\"></p>\n", escape(chart)));
    }
    for table in tables(report) {
        out.push_str(&table.html());
    }
    let trailer = trailer(report);
    if !trailer.is_empty() {
        out.push_str("<h2>Notes</h2>\n<ul>\n");
        for line in trailer {
            out.push_str(&format!("<li>{}</li>\n", escape(&line)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Each row's per-query metrics, one JSON object a line.
fn per_query(report: &Report) -> String {
    let mut out = String::new();
    for row in &report.rows {
        for (id, metrics) in &row.per_query {
            let line = serde_json::json!({
                "ingest": row.ingest, "strategy": row.strategy, "id": id, "metrics": metrics,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    out
}

/// Writes `report.json`, `report.md`, `report.html`, `queries.jsonl` (one line per row and
/// scored query: `{"ingest", "strategy", "id", "metrics"}` with the metrics at 10, to see
/// which questions a change moved) and the charts into `dir`; returns the paths written.
pub fn write(report: &Report, dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let charts = chart::write(report, dir)?;
    let json = serde_json::to_string_pretty(report).map_err(|e| Error::Internal(e.to_string()))?;
    let mut written = Vec::new();
    for (name, body) in [
        ("report.json", json),
        ("report.md", markdown(report)),
        ("report.html", html(report, &charts)),
        ("queries.jsonl", per_query(report)),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        written.push(path);
    }
    written.extend(charts.iter().map(|c| dir.join(c)));
    Ok(written)
}
