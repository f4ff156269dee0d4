//! `--context anthropic` in the harness, against a scripted local server speaking the
//! Anthropic Messages wire format (the server of `strata-providers/tests/support`).
//!
//! Properties:
//! 1. Every chunk of every document gets the model's context, and the ingest reports the
//!    calls and tokens the provider counted.
//! 2. The contexts are kept beside the indexes (`contexts.jsonl`): a second run, whose
//!    indexes are made anew, calls nothing and scores the same.
//! 3. A context is indexed: a word only the model's context holds finds its chunk.

#[path = "../../strata-providers/tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use serde_json::json;
use strata_core::Config;
use strata_eval::{Chunking, ContextMode, Grid, IngestConfig, LoadOptions, Quiet, Report, Strategy};
use support::{Reply, Server};

const GUIDE: &str = "# Storage guide\n\nIntro text about the storage engine.\n\n## 1. Retention\n\n\
Records are kept for seven years. The retention period starts when the record is closed.\n\n\
## 2. Encryption\n\nAll data at rest is encrypted with AES-256. Keys rotate every ninety days.\n";

fn run(dir: &std::path::Path, index: &str, url: &str) -> Report {
    let dataset = strata_eval::load(&dir.join("queries.jsonl"), None, &LoadOptions::default()).unwrap();
    let mut config = Config::default();
    config.context.llm.base_url = url.to_string();
    config.context.llm.api_key_env = "STRATA_EVAL_TEST_NO_KEY".into();
    config.context.llm.backoff_ms = 10;
    let grid = Grid {
        ingests: vec![IngestConfig { chunking: Chunking::Tokens(32), context: ContextMode::Anthropic }],
        strategies: vec![Strategy::parse("keyword").unwrap()],
        limit: None,
        index_dir: dir.join(index),
        vector_cache: None,
        postgres: None,
        milvus: None,
    };
    strata_eval::run::run(&dataset, &grid, &config, None, None, &Quiet).unwrap()
}

#[test]
fn model_contexts_are_indexed_counted_and_kept_between_runs() {
    let server = Server::start(|_, seen| {
        let chunk = seen.chunk().unwrap_or_default();
        let text = if chunk.contains("AES-256") {
            "Cryptography policy: the zanzibar cipher rules."
        } else {
            "Storage policy."
        };
        Reply::Json(
            200,
            vec![],
            json!({
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 30, "output_tokens": 6, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
            }),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guide.md"), GUIDE).unwrap();
    std::fs::write(
        dir.path().join("queries.jsonl"),
        [
            r#"{"id": "cipher", "query": "zanzibar", "gold": [{"doc": "guide.md", "section": "2"}]}"#,
            r#"{"id": "keep", "query": "how long are records kept", "gold": [{"doc": "guide.md", "section": "1"}]}"#,
        ]
        .join("\n"),
    )
    .unwrap();

    let first = run(dir.path(), "index", &server.url);
    let contexts = first.ingests["32+anthropic"].contexts.clone().unwrap();
    let stats = &contexts.tally;
    let chunks = first.ingests["32+anthropic"].chunks;
    assert_eq!(contexts.contextualizer, "anthropic:claude-haiku-4-5@1");
    assert_eq!((stats.written, stats.cached, stats.fallbacks), (chunks, 0, 0), "{stats:?}");
    // One call per chunk, and one for the document's summary.
    assert_eq!(stats.usage.calls as usize, chunks + 1);
    assert_eq!(server.count(), chunks + 1);
    let recall = |r: &Report| r.rows[0].metrics["recall@1"];
    assert_eq!(recall(&first), 1.0, "the context's word finds its chunk: {:?}", first.rows[0].metrics);
    assert!(dir.path().join("index").join(strata_eval::ingest::CONTEXT_CACHE_FILE).is_file());

    let second = run(dir.path(), "index", &server.url);
    let again = second.ingests["32+anthropic"].contexts.clone().unwrap().tally;
    assert_eq!((again.written, again.cached, again.usage.calls), (0, chunks, 0), "{again:?}");
    assert_eq!(server.count(), chunks + 1, "a second run calls nothing, the summary included");
    assert_eq!(second.rows[0].metrics, first.rows[0].metrics);
    assert!(
        second.notes.iter().any(|n| n.contains("contexts by anthropic:claude-haiku-4-5@1")),
        "{:?}",
        second.notes
    );
}
