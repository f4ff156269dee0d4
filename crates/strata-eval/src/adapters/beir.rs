//! The BEIR layout: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`,
//! `text`) and `qrels/SPLIT.tsv` (`query-id`, `corpus-id`, `score`, with a header line).
//!
//! Each corpus entry is a document read as plain text; gold is documents with their graded
//! relevance (scores ≤ 0 are not relevant). Only queries that the split's qrels judge are
//! evaluated, as BEIR does.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use strata_core::{Error, Format, Result};

use super::{parse_line, read_to_string};
use crate::dataset::{Content, Dataset, DocInput, Gold, Query, Target};

#[derive(Deserialize)]
struct CorpusLine {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    title: String,
    text: String,
}

#[derive(Deserialize)]
struct QueryLine {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

/// Loads a BEIR folder with the qrels of `split`.
pub fn load(dir: &Path, split: &str) -> Result<Dataset> {
    let corpus_path = dir.join("corpus.jsonl");
    let mut documents = Vec::new();
    for (n, line) in read_to_string(&corpus_path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: CorpusLine = parse_line(&corpus_path, n, line)?;
        let title = (!entry.title.trim().is_empty()).then(|| entry.title.clone());
        let text = match &title {
            Some(t) => format!("{t}\n\n{}", entry.text),
            None => entry.text,
        };
        documents.push(DocInput {
            name: entry.id,
            content: Content::Text { title, text, format: Format::Text },
            given_chunks: None,
        });
    }
    let qrels_path = dir.join("qrels").join(format!("{split}.tsv"));
    let mut qrels: BTreeMap<String, Vec<Gold>> = BTreeMap::new();
    let mut judged: HashSet<String> = HashSet::new();
    for (n, line) in read_to_string(&qrels_path)?.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        if n == 0 && fields.first().is_some_and(|f| f.eq_ignore_ascii_case("query-id")) {
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let [query, doc, score] = fields[..] else {
            return Err(Error::user(format!(
                "{}:{}: expected query-id, corpus-id and score separated by tabs",
                qrels_path.display(),
                n + 1
            )));
        };
        let score: f64 = score.parse().map_err(|_| {
            Error::user(format!("{}:{}: score {score:?} is not a number", qrels_path.display(), n + 1))
        })?;
        judged.insert(query.to_string());
        if score > 0.0 {
            qrels
                .entry(query.to_string())
                .or_default()
                .push(Gold { target: Target::Doc(doc.to_string()), grade: score });
        }
    }
    let queries_path = dir.join("queries.jsonl");
    let mut queries = Vec::new();
    for (n, line) in read_to_string(&queries_path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: QueryLine = parse_line(&queries_path, n, line)?;
        if judged.contains(&q.id) {
            let gold = qrels.remove(&q.id).unwrap_or_default();
            queries.push(Query { id: q.id, text: q.text, gold });
        }
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "beir".into());
    Ok(Dataset {
        name,
        documents,
        queries,
        published: Vec::new(),
        notes: vec![format!(
            "BEIR layout, qrels/{split}.tsv; documents are judged whole (a document's best chunk is its rank)"
        )],
    })
}
