//! The Anthropic cookbook's contextual-retrieval set: 90 source files pre-split into 737
//! chunks (`codebase_chunks.json`) and 248 queries whose gold is chunks
//! (`evaluation_set.jsonl`).
//!
//! A file's content is exactly its chunks concatenated, so each gold chunk is also a byte span
//! of the file. Gold is given as those spans: with the given chunks ingested, a hit overlaps
//! a gold span exactly when it is that chunk, which is the cookbook's own scoring; with
//! strata's chunking, any chunk that overlaps a gold span hits it.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use strata_core::{Error, Format, Result, Span};

use super::{parse_line, read_to_string};
use crate::dataset::{Content, Dataset, DocInput, Gold, Published, Query, Target};

#[derive(Deserialize)]
struct File {
    doc_id: String,
    original_uuid: String,
    content: String,
    chunks: Vec<FileChunk>,
}

#[derive(Deserialize)]
struct FileChunk {
    original_index: usize,
    content: String,
}

#[derive(Deserialize)]
struct Line {
    query: String,
    golden_chunk_uuids: Vec<(String, usize)>,
}

const SOURCE: &str = "Anthropic cookbook, skills/contextual-embeddings (../shared/data/eval/README.md)";

/// Loads the folder.
pub fn load(dir: &Path) -> Result<Dataset> {
    let chunks_path = dir.join("codebase_chunks.json");
    let files: Vec<File> = serde_json::from_str(&read_to_string(&chunks_path)?)
        .map_err(|e| Error::user(format!("{}: {e}", chunks_path.display())))?;
    let mut documents = Vec::with_capacity(files.len());
    // (file uuid, chunk index) → (doc name, byte span)
    let mut spans: HashMap<(String, usize), (String, Span)> = HashMap::new();
    for mut file in files {
        file.chunks.sort_by_key(|c| c.original_index);
        let mut at = 0;
        let mut given = Vec::with_capacity(file.chunks.len());
        for chunk in &file.chunks {
            let span = Span::new(at, at + chunk.content.len());
            if file.content.get(span.start..span.end) != Some(chunk.content.as_str()) {
                return Err(Error::user(format!(
                    "{}: chunk {} of {} is not the file's text at {}..{}; the adapter needs the \
                     file to be its chunks concatenated",
                    chunks_path.display(),
                    chunk.original_index,
                    file.doc_id,
                    span.start,
                    span.end
                )));
            }
            spans.insert((file.original_uuid.clone(), chunk.original_index), (file.doc_id.clone(), span));
            given.push(span);
            at = span.end;
        }
        documents.push(DocInput {
            name: file.doc_id.clone(),
            content: Content::Text { title: Some(file.doc_id), text: file.content, format: Format::Text },
            given_chunks: Some(given),
        });
    }
    let queries_path = dir.join("evaluation_set.jsonl");
    let mut queries = Vec::new();
    for (n, line) in read_to_string(&queries_path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Line = parse_line(&queries_path, n, line)?;
        let mut gold = Vec::new();
        for (uuid, index) in line.golden_chunk_uuids {
            let (doc, span) = spans.get(&(uuid.clone(), index)).cloned().ok_or_else(|| {
                Error::user(format!(
                    "{}:{}: gold chunk ({uuid}, {index}) is not in codebase_chunks.json",
                    queries_path.display(),
                    n + 1
                ))
            })?;
            gold.push(Gold { target: Target::Span { doc, span }, grade: 1.0 });
        }
        queries.push(Query { id: format!("{}", n + 1), text: line.query, gold });
    }
    Ok(Dataset {
        name: "anthropic-codebase".into(),
        documents,
        queries,
        published: published(),
        notes: vec![
            "Gold chunks are byte spans of their files; a hit is a retrieved chunk that overlaps one. With the \
             given chunks this is the cookbook's own scoring (its \"Pass@k\" is recall@k)."
                .into(),
        ],
    })
}

fn published() -> Vec<Published> {
    let table = [
        ("voyage-2 embeddings", [0.8092, 0.8715, 0.9006]),
        ("voyage-2 + contextual embeddings (claude-3-haiku)", [0.8637, 0.9281, 0.9378]),
        ("contextual embeddings + contextual BM25 (Elasticsearch, 0.8/0.2)", [0.8643, 0.9321, 0.9499]),
        ("contextual embeddings + BM25 + Cohere rerank-english-v3.0", [0.9124, 0.9479, 0.9630]),
        ("plain BM25 over the given chunks", [0.643, 0.713, 0.778]),
    ];
    let mut rows = Vec::new();
    for (system, values) in table {
        for (k, value) in [5, 10, 20].into_iter().zip(values) {
            rows.push(Published {
                system: system.into(),
                metric: format!("recall@{k}"),
                value,
                source: SOURCE.into(),
            });
        }
    }
    rows.push(Published {
        system: "plain BM25 over the given chunks".into(),
        metric: "mrr@10".into(),
        value: 0.506,
        source: SOURCE.into(),
    });
    rows
}
