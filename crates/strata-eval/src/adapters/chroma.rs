//! Chroma's general chunking evaluation: five corpora (`corpora/*.md`) and 472 questions
//! whose gold is character spans (`questions_df.csv`: `question, references, corpus_id`,
//! references a JSON list of `{content, start_index, end_index}`). Offsets count Unicode
//! code points of the corpus text; they are converted to bytes here and checked against the
//! reference's own content.

use std::path::Path;

use serde::Deserialize;
use strata_core::{Error, Result};

use super::{char_span, read_to_string};
use crate::align::CharIndex;
use crate::dataset::{Content, Dataset, DocInput, Gold, Published, Query, Target};

#[derive(Deserialize)]
struct Row {
    question: String,
    references: String,
    corpus_id: String,
}

#[derive(Deserialize)]
struct Reference {
    content: String,
    start_index: usize,
    end_index: usize,
}

/// Loads the folder.
pub fn load(dir: &Path) -> Result<Dataset> {
    let csv_path = dir.join("questions_df.csv");
    let mut reader =
        csv::Reader::from_path(&csv_path).map_err(|e| Error::user(format!("{}: {e}", csv_path.display())))?;
    let mut documents: Vec<DocInput> = Vec::new();
    let mut texts: Vec<(String, CharIndex)> = Vec::new();
    let mut queries = Vec::new();
    let mut mismatched = 0usize;
    for (n, row) in reader.deserialize::<Row>().enumerate() {
        let row = row.map_err(|e| Error::user(format!("{}: row {}: {e}", csv_path.display(), n + 1)))?;
        let at = match documents.iter().position(|d| d.name == row.corpus_id) {
            Some(at) => at,
            None => {
                let path = dir.join("corpora").join(format!("{}.md", row.corpus_id));
                let text = read_to_string(&path)?;
                let chars = CharIndex::new(&text);
                texts.push((text, chars));
                documents.push(DocInput {
                    name: row.corpus_id.clone(),
                    content: Content::File(path),
                    given_chunks: None,
                });
                documents.len() - 1
            }
        };
        let (text, chars) = &texts[at];
        let references: Vec<Reference> = serde_json::from_str(&row.references)
            .map_err(|e| Error::user(format!("{}: row {}: references: {e}", csv_path.display(), n + 1)))?;
        let mut gold = Vec::new();
        for r in references {
            let what = format!("{} row {}", csv_path.display(), n + 1);
            let span = char_span(text, chars, r.start_index, r.end_index, &what)?;
            if span.slice(text) != r.content {
                mismatched += 1;
            }
            gold.push(Gold { target: Target::Span { doc: row.corpus_id.clone(), span }, grade: 1.0 });
        }
        queries.push(Query { id: format!("{}", n + 1), text: row.question, gold });
    }
    let mut notes = vec![
        "Gold spans are code points of the corpus text, converted to bytes; span metrics count characters, \
         as Chroma does, with retrieved lengths summed and gold lengths summed per reference."
            .to_string(),
    ];
    if mismatched > 0 {
        notes.push(format!("{mismatched} reference spans do not hold their stated content exactly"));
    }
    Ok(Dataset { name: "chroma-chunking".into(), documents, queries, published: published(), notes })
}

fn published() -> Vec<Published> {
    let system = "text-embedding-3-large, 1,200-character fixed chunks, 5 retrieved";
    let source = "Chroma, \"Evaluating Chunking Strategies for Retrieval\" (../shared/data/eval/README.md)";
    vec![
        Published {
            system: system.into(),
            metric: "span_recall@5".into(),
            value: 0.809,
            source: source.into(),
        },
        Published { system: system.into(), metric: "span_iou@5".into(), value: 0.177, source: source.into() },
    ]
}
