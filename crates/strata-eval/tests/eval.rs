//! The harness end to end on small data sets written here (JSONL and BEIR layouts), and the
//! adapters of the two shared evaluation sets (skipped with a message when absent).

use std::path::{Path, PathBuf};

use strata_core::Config;
use strata_eval::dataset::Target;
use strata_eval::{Chunking, ContextMode, Grid, IngestConfig, LoadOptions, Quiet, Report, Strategy};
use tempfile::TempDir;

const GUIDE: &str = "\
# Storage guide

Intro text about the storage engine and how it keeps data.

## 1. Retention

Records are kept for seven years. The retention period starts when the record is closed.

### 1.1 Deletion

After the retention period, records shall be deleted within thirty days.

## 2. Encryption

All data at rest is encrypted with AES-256. Keys rotate every ninety days.

## 3. Backups

Backups run nightly and are copied to a second region. A restore is tested every quarter.
";

const FAQ: &str = "\
# Café FAQ

## Opening hours

The café opens at seven and closes at nineteen. Crème brûlée is served after noon.

## Payment

We take cards and cash. Tips are shared by the whole team.
";

fn write_set(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("guide.md"), GUIDE).unwrap();
    std::fs::write(dir.join("faq.md"), FAQ).unwrap();
    // Code points, not bytes: "Crème brûlée" sits after multibyte characters.
    let creme = FAQ.find("Crème").unwrap();
    let creme_chars = FAQ[..creme].chars().count();
    let lines = [
        r#"{"id": "sec", "query": "how long are records kept before deletion", "gold": [{"doc": "guide.md", "section": "1"}]}"#.to_string(),
        r#"{"id": "path", "query": "encryption of data at rest and key rotation", "gold": [{"doc": "guide", "path": ["Encryption"]}]}"#.to_string(),
        format!(
            r#"{{"id": "span", "query": "when is crème brûlée served", "gold": [{{"doc": "faq.md", "start": {}, "end": {}}}]}}"#,
            creme_chars,
            creme_chars + "Crème brûlée is served after noon.".chars().count()
        ),
        r#"{"id": "doc", "query": "backups nightly restore tested", "gold": [{"doc": "guide.md", "grade": 2}]}"#.to_string(),
        r#"{"id": "nogold", "query": "something nobody labelled"}"#.to_string(),
    ];
    let path = dir.join("queries.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

fn strategies(names: &[&str]) -> Vec<Strategy> {
    names.iter().map(|n| Strategy::parse(n).unwrap()).collect()
}

fn run(set: &Path, index: &Path, chunkings: &[Chunking], names: &[&str]) -> Report {
    let dataset = strata_eval::load(set, None, &LoadOptions::default()).unwrap();
    let ingests =
        chunkings.iter().map(|&chunking| IngestConfig { chunking, context: ContextMode::None }).collect();
    let grid = Grid {
        ingests,
        strategies: strategies(names),
        limit: None,
        index_dir: index.to_path_buf(),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet).unwrap()
}

fn metric(report: &Report, ingest: &str, strategy: &str, name: &str) -> f64 {
    let row = report.rows.iter().find(|r| r.ingest == ingest && r.strategy == strategy).unwrap();
    *row.metrics.get(name).unwrap_or_else(|| panic!("{name} missing from {:?}", row.metrics.keys()))
}

#[test]
fn jsonl_gold_of_every_kind_resolves_and_scores() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let dataset = strata_eval::load(&set, None, &LoadOptions::default()).unwrap();
    assert_eq!(dataset.documents.len(), 2);
    let span = &dataset.queries[2].gold[0].target;
    let Target::Span { span, .. } = span else { panic!("{span:?}") };
    assert_eq!(&FAQ[span.start..span.end], "Crème brûlée is served after noon.");
    assert!(matches!(dataset.queries[1].gold[0].target, Target::Path { ref doc, .. } if doc == "guide.md"));

    let report = run(&set, &tmp.path().join("index"), &[Chunking::Tokens(32)], &["keyword", "hybrid"]);
    assert_eq!(report.queries, 5);
    assert_eq!(report.queries_without_gold, 1);
    assert_eq!(report.unresolved_gold["32"], 0, "{report:#?}");
    let row = &report.rows[0];
    assert_eq!(row.scored, 4);
    // Every query is easy for BM25 at k = 20; the numbers are means over the four.
    assert_eq!(metric(&report, "32", "keyword", "recall@20"), 1.0);
    assert_eq!(metric(&report, "32", "keyword", "hit@20"), 1.0);
    // The span query is the only one with span metrics; its chunk holds the whole sentence.
    assert_eq!(metric(&report, "32", "keyword", "span_recall@20"), 1.0);
    let iou = metric(&report, "32", "keyword", "span_iou@1");
    assert!(iou > 0.0 && iou < 1.0, "{iou}");
    assert!(metric(&report, "32", "keyword", "section_recall@5") > 0.0);
    // Chroma's "minimal" count: as many results as chunks that overlap the gold.
    let at_min = metric(&report, "32", "keyword", "span_iou@min");
    assert!(at_min >= iou, "{at_min} < {iou}");
    assert!(row.latency_ms.contains_key("keyword") && row.latency_ms.contains_key("total"));
    // Ingest cost is reported.
    let stats = &report.ingests["32"];
    assert_eq!((stats.documents, stats.failed.len()), (2, 0));
    assert!(stats.chunks >= 6 && stats.index_bytes > 0, "{stats:?}");
}

#[test]
fn the_same_data_and_config_give_the_same_numbers() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let chunkings = [Chunking::Auto, Chunking::Tokens(24)];
    let a = run(&set, &tmp.path().join("a"), &chunkings, &["keyword", "exact", "hybrid"]);
    let b = run(&set, &tmp.path().join("b"), &chunkings, &["keyword", "exact", "hybrid"]);
    let metrics = |r: &Report| -> Vec<_> {
        r.rows.iter().map(|row| (row.ingest.clone(), row.strategy.clone(), row.metrics.clone())).collect()
    };
    assert_eq!(metrics(&a), metrics(&b));
    assert_eq!(a.rows.len(), 6);
    // Different chunkings are different ingests.
    assert_ne!(a.ingests["auto"].chunks, a.ingests["24"].chunks);
}

#[test]
fn strategies_that_cannot_run_are_reported_not_fatal() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let report =
        run(&set, &tmp.path().join("index"), &[Chunking::Auto], &["dense", "hierarchical", "keyword"]);
    let refused: Vec<(&str, &str)> =
        report.rows.iter().filter_map(|r| Some((r.strategy.as_str(), r.refused.as_deref()?))).collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].1.contains("no vectors"), "{}", refused[0].1);
    // Hierarchical runs on the lexical legs alone; keyword too.
    assert!(report.rows[1..].iter().all(|r| r.refused.is_none() && r.scored == 4));
    assert!(report.rows[1].latency_ms.contains_key("hierarchy"));
    let md = strata_eval::report::markdown(&report);
    assert!(md.contains("dense · auto: not run"), "{md}");
}

#[test]
fn structural_context_is_an_ingest_of_its_own() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let dataset = strata_eval::load(&set, None, &LoadOptions::default()).unwrap();
    let ingests = [ContextMode::None, ContextMode::Structural]
        .map(|context| IngestConfig { chunking: Chunking::Tokens(32), context })
        .to_vec();
    let grid = Grid {
        ingests,
        strategies: strategies(&["keyword"]),
        limit: None,
        index_dir: tmp.path().join("i"),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    let report = strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet).unwrap();
    assert_eq!(report.rows.iter().map(|r| r.ingest.as_str()).collect::<Vec<_>>(), ["32", "32+structural"]);
    let (plain, with) = (&report.ingests["32"], &report.ingests["32+structural"]);
    assert_eq!(plain.chunks, with.chunks);
    assert_eq!(metric(&report, "32+structural", "keyword", "recall@20"), 1.0);
    // The context is stored with every chunk, apart from its text.
    let config = IngestConfig { chunking: Chunking::Tokens(32), context: ContextMode::Structural };
    let set = strata_eval::ingest::ingest(
        &dataset,
        config,
        &Config::default(),
        None,
        &tmp.path().join("s"),
        &strata_engine::Location::Embedded(tmp.path().join("s")),
        None,
        &mut |_| {},
    )
    .unwrap();
    let guide = &set.docs["guide.md"];
    let ids: Vec<_> = (0..3).map(|i| strata_core::Chunk::make_id(&guide.id, i)).collect();
    let chunks = set.store.chunks(&ids).unwrap();
    assert_eq!(chunks.len(), 3);
    for c in chunks {
        let context = c.chunk.context.as_deref().unwrap();
        assert!(context.starts_with("Storage guide"), "{context}");
        assert_eq!(c.text, c.chunk.span.slice(&guide.text));
    }
}

#[test]
fn beir_layout_with_graded_qrels() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("tiny-beir");
    std::fs::create_dir_all(dir.join("qrels")).unwrap();
    let corpus = [
        r#"{"_id": "d1", "title": "Aspirin", "text": "Aspirin reduces fever and relieves mild pain."}"#,
        r#"{"_id": "d2", "title": "Ibuprofen", "text": "Ibuprofen is an anti-inflammatory drug that also reduces fever."}"#,
        r#"{"_id": "d3", "title": "Gardening", "text": "Tomatoes need full sun and regular watering."}"#,
    ];
    std::fs::write(dir.join("corpus.jsonl"), corpus.join("\n")).unwrap();
    let queries = [
        r#"{"_id": "q1", "text": "which drug reduces fever"}"#,
        r#"{"_id": "q2", "text": "watering tomatoes"}"#,
        r#"{"_id": "q3", "text": "not judged"}"#,
    ];
    std::fs::write(dir.join("queries.jsonl"), queries.join("\n")).unwrap();
    std::fs::write(
        dir.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\nq2\td1\t0\n",
    )
    .unwrap();
    let dataset = strata_eval::load(&dir, None, &LoadOptions::default()).unwrap();
    assert_eq!(dataset.name, "tiny-beir");
    // q3 has no qrels and is not evaluated; q2's only judgement is not relevant.
    assert_eq!(dataset.queries.len(), 2);
    assert!(dataset.queries[1].gold.is_empty());
    assert_eq!(dataset.queries[0].gold.len(), 2);
    let grid = Grid {
        ingests: vec![IngestConfig { chunking: Chunking::Auto, context: ContextMode::None }],
        strategies: strategies(&["keyword"]),
        limit: None,
        index_dir: tmp.path().join("index"),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    let report = strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet).unwrap();
    assert_eq!(report.queries_without_gold, 1);
    assert_eq!(metric(&report, "auto", "keyword", "recall@3"), 1.0);
    // Documents are judged whole: two relevant documents in the top 3 of 3 documents.
    assert!((metric(&report, "auto", "keyword", "precision@3") - 2.0 / 3.0).abs() < 1e-9);
    assert!(metric(&report, "auto", "keyword", "ndcg@3") > 0.5);
}

#[test]
fn reports_are_written_with_charts() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let mut report = run(&set, &tmp.path().join("index"), &[Chunking::Auto], &["keyword", "hybrid"]);
    report.command = "strata eval queries.jsonl".into();
    let out = tmp.path().join("report");
    let written = strata_eval::report::write(&report, &out).unwrap();
    let names: Vec<String> =
        written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for name in [
        "report.json",
        "report.md",
        "report.html",
        "queries.jsonl",
        "recall.svg",
        "recall.png",
        "latency.svg",
        "latency.png",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let png = std::fs::read(out.join("recall.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let svg = std::fs::read_to_string(out.join("recall.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("keyword"), "the legend names the rows");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<img src=\"recall.svg\"") && html.contains("<table>"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Command: `strata eval queries.jsonl`"));
    assert!(md.contains("| chunking | strategy | recall@1 |"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["rows"][0]["strategy"], "keyword");
    assert!(json["rows"][0].get("per_query").is_none(), "the per-query metrics stay out of report.json");
    // One line per row and scored query, its metrics at 10 only; their means are the row's.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(out.join("queries.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let scored: usize = report.rows.iter().map(|r| r.scored).sum();
    assert_eq!(lines.len(), scored);
    let keyword: Vec<&serde_json::Value> = lines.iter().filter(|l| l["strategy"] == "keyword").collect();
    assert!(keyword.iter().all(|l| l["metrics"].as_object().unwrap().keys().all(|k| k.ends_with("@10"))));
    let mean =
        keyword.iter().map(|l| l["metrics"]["mrr@10"].as_f64().unwrap()).sum::<f64>() / keyword.len() as f64;
    assert!((mean - metric(&report, "auto", "keyword", "mrr@10")).abs() < 1e-9);
}

#[test]
fn bad_gold_is_a_clear_error() {
    let tmp = TempDir::new().unwrap();
    write_set(tmp.path());
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(&bad, r#"{"query": "x", "gold": [{"doc": "missing.md"}]}"#).unwrap();
    let err = strata_eval::load(&bad, None, &LoadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("missing.md") && err.contains("bad.jsonl:1"), "{err}");
    std::fs::write(&bad, r#"{"query": "x", "gold": [{"doc": "faq.md", "start": 5, "end": 100000}]}"#)
        .unwrap();
    let err = strata_eval::load(&bad, None, &LoadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("outside the text"), "{err}");
    // A byte offset inside "é" of "Café".
    let e = FAQ.find('é').unwrap() + 1;
    std::fs::write(
        &bad,
        format!(
            r#"{{"query": "x", "gold": [{{"doc": "faq.md", "start": {e}, "end": 40, "unit": "byte"}}]}}"#
        ),
    )
    .unwrap();
    let err = strata_eval::load(&bad, None, &LoadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("splits a character"), "{err}");
    // Half a span, or two targets in one entry, are errors, not whole-document gold.
    for (line, says) in [
        (r#"{"query": "x", "gold": [{"doc": "faq.md", "start": 5}]}"#, "both"),
        (r#"{"query": "x", "gold": [{"doc": "faq.md", "page": 1, "section": "2"}]}"#, "not several"),
        (r#"{"query": "x", "gold": [{"doc": "faq.md", "chunk": "faq:0"}]}"#, "drop"),
        (r#"{"query": "x", "gold": [{"doc": "faq.md", "unit": "byte"}]}"#, "unit"),
    ] {
        std::fs::write(&bad, line).unwrap();
        let err = strata_eval::load(&bad, None, &LoadOptions::default()).unwrap_err().to_string();
        assert!(err.contains(says), "{line}: {err}");
    }
    std::fs::write(&bad, r#"{"query": "x", "golden": []}"#).unwrap();
    let err = strata_eval::load(&bad, None, &LoadOptions::default()).unwrap_err().to_string();
    assert!(err.contains("golden"), "{err}");
}

fn shared(name: &str) -> Option<PathBuf> {
    strata_core::testdata::shared(&format!("eval/{name}"))
}

#[test]
fn anthropic_adapter_keeps_every_gold_chunk_as_a_span() {
    let Some(dir) = shared("anthropic-codebase") else { return };
    let dataset = strata_eval::load(&dir, None, &LoadOptions::default()).unwrap();
    assert_eq!(dataset.documents.len(), 90);
    let chunks: usize = dataset.documents.iter().map(|d| d.given_chunks.as_ref().unwrap().len()).sum();
    assert_eq!(chunks, 737);
    assert_eq!(dataset.queries.len(), 248);
    let gold: Vec<_> = dataset.queries.iter().flat_map(|q| &q.gold).collect();
    assert_eq!(gold.len(), 306);
    // Each gold span is exactly one given chunk of its file.
    for g in gold {
        let Target::Span { doc, span } = &g.target else { panic!("{g:?}") };
        let d = dataset.documents.iter().find(|d| &d.name == doc).unwrap();
        assert!(d.given_chunks.as_ref().unwrap().contains(span), "{doc} {span:?}");
    }
    assert!(dataset.published.iter().any(|p| p.metric == "recall@5" && p.value == 0.8092));
}

#[test]
fn chroma_adapter_converts_code_points_to_bytes() {
    let Some(dir) = shared("chroma-chunking") else { return };
    let dataset = strata_eval::load(&dir, None, &LoadOptions::default()).unwrap();
    assert_eq!(dataset.documents.len(), 5);
    assert_eq!(dataset.queries.len(), 472);
    assert_eq!(dataset.queries.iter().map(|q| q.gold.len()).sum::<usize>(), 790);
    // Every reference's stated content is what its converted span holds.
    assert!(!dataset.notes.iter().any(|n| n.contains("do not hold")), "{:?}", dataset.notes);
    // And the conversion mattered: some span starts past a multibyte character.
    let mut shifted = 0;
    for q in &dataset.queries {
        for g in &q.gold {
            let Target::Span { doc, span } = &g.target else { panic!() };
            let text = std::fs::read_to_string(dir.join("corpora").join(format!("{doc}.md"))).unwrap();
            if text[..span.start].chars().count() != span.start {
                shifted += 1;
            }
        }
    }
    assert!(shifted > 0);
}

#[test]
fn page_and_section_gold_on_a_paginated_rfc() {
    let Some(corpus) = strata_core::testdata::shared("corpus/txt") else { return };
    let name = "rfc7231-http11-semantics.txt";
    let text = std::fs::read_to_string(corpus.join(name)).unwrap();
    // The physical page of the OPTIONS section's heading: form feeds before it, plus one.
    let heading = text.find("\n4.3.7.  OPTIONS").unwrap();
    let page = text[..heading].matches('\u{c}').count() + 1;
    let tmp = TempDir::new().unwrap();
    let set = tmp.path().join("rfc.jsonl");
    let lines = [
        format!(r#"{{"query": "OPTIONS method communication options for the target resource", "gold": [{{"doc": "{name}", "page": {page}}}]}}"#),
        r#"{"query": "OPTIONS method communication options for the target resource", "gold": [{"doc": "rfc7231-http11-semantics", "section": "4.3.7"}]}"#.to_string(),
    ];
    std::fs::write(&set, lines.join("\n")).unwrap();
    let options = LoadOptions { docs: Some(corpus), ..LoadOptions::default() };
    let dataset = strata_eval::load(&set, None, &options).unwrap();
    let grid = Grid {
        ingests: vec![IngestConfig { chunking: Chunking::Auto, context: ContextMode::None }],
        strategies: strategies(&["hybrid"]),
        limit: None,
        index_dir: tmp.path().join("index"),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    let report = strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet).unwrap();
    assert_eq!(report.unresolved_gold["auto"], 0);
    assert_eq!(metric(&report, "auto", "hybrid", "recall@5"), 1.0, "{:#?}", report.rows[0].metrics);
    assert_eq!(metric(&report, "auto", "hybrid", "page_recall@5"), 1.0);
    assert_eq!(metric(&report, "auto", "hybrid", "section_recall@5"), 1.0);
}

#[test]
fn sections_by_number_node_id_and_path_resolve_strictly() {
    let tmp = TempDir::new().unwrap();
    let text = "# Manual\n\n## 1. Setup\n\nInstall.\n\n## 2. Data Encryption\n\nKeys rotate.\n\n## 3. Encryption at rest\n\nAES.\n";
    std::fs::write(tmp.path().join("m.md"), text).unwrap();
    let lines = [
        // "2" is a section number, not node 0002.
        r#"{"id": "number", "query": "keys rotate", "gold": [{"doc": "m.md", "section": "2"}]}"#,
        r##"{"id": "node", "query": "install", "gold": [{"doc": "m.md", "section": "#0002"}]}"##,
        // "Encryption" is no heading's title once the number is dropped: unresolved.
        r#"{"id": "path", "query": "aes", "gold": [{"doc": "m.md", "path": ["Encryption"]}]}"#,
        r#"{"id": "path2", "query": "aes", "gold": [{"doc": "m.md", "path": ["Encryption at rest"]}]}"#,
        r#"{"id": "chunk", "query": "aes", "gold": [{"chunk": "m:999"}]}"#,
    ];
    std::fs::write(tmp.path().join("q.jsonl"), lines.join("\n")).unwrap();
    let report = run(&tmp.path().join("q.jsonl"), &tmp.path().join("i"), &[Chunking::Auto], &["keyword"]);
    // The bad path and the unknown chunk do not resolve; the rest do.
    assert_eq!(report.unresolved_gold["auto"], 2, "{report:#?}");
    assert_eq!(report.rows[0].scored, 5);
}

#[test]
fn eval_never_wipes_a_folder_that_is_not_an_index() {
    let tmp = TempDir::new().unwrap();
    let set = write_set(tmp.path());
    let index = tmp.path().join("mine");
    std::fs::create_dir_all(index.join("auto")).unwrap();
    std::fs::write(index.join("auto/notes.txt"), "precious").unwrap();
    let dataset = strata_eval::load(&set, None, &LoadOptions::default()).unwrap();
    let grid = Grid {
        ingests: vec![IngestConfig { chunking: Chunking::Auto, context: ContextMode::None }],
        strategies: strategies(&["keyword"]),
        limit: None,
        index_dir: index.clone(),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    let err = strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a strata index"), "{err}");
    assert_eq!(std::fs::read_to_string(index.join("auto/notes.txt")).unwrap(), "precious");
    // Given chunks on a set that has none is refused up front.
    let grid = Grid {
        ingests: vec![IngestConfig { chunking: Chunking::Given, context: ContextMode::None }],
        ..grid
    };
    let err = strata_eval::run::run(&dataset, &grid, &Config::default(), None, None, &Quiet)
        .unwrap_err()
        .to_string();
    assert!(err.contains("without chunks of its own"), "{err}");
}
