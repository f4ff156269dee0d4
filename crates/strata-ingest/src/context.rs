//! Structural context: a short, deterministic line that situates a chunk in its document,
//! contextual retrieval without a language model. It is stored apart from the chunk
//! (`Chunk::context`) and prepended to what every retrieval leg indexes
//! (`Chunk::indexed_text`), never to the chunk's own text.
//!
//! The line holds the document title, the heading path (its top and its last two levels
//! when it is deep) and the defined terms the chunk uses, e.g.
//! `Title 35—Patents › Chapter 10 › §102. Conditions for patentability | terms: invention`.

use strata_core::{Chunk, Document};

/// Longest context, in bytes; it shares the embedding model's window with the chunk.
const MAX_CONTEXT: usize = 320;
/// Defined terms named at most.
const MAX_TERMS: usize = 5;

/// The structural context of `chunk` in `doc`.
pub fn structural(doc: &Document, chunk: &Chunk) -> String {
    let mut parts: Vec<&str> = vec![doc.title.trim()];
    let path = &chunk.heading_path;
    if path.len() > 3 {
        parts.push(&path[0]);
        parts.push("…");
        parts.extend(path[path.len() - 2..].iter().map(String::as_str));
    } else {
        parts.extend(path.iter().map(String::as_str));
    }
    parts.dedup();
    let mut context = parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" › ");
    if !chunk.uses.is_empty() {
        let terms: Vec<&str> = chunk.uses.iter().take(MAX_TERMS).map(String::as_str).collect();
        context.push_str(" | terms: ");
        context.push_str(&terms.join(", "));
    }
    if context.len() > MAX_CONTEXT {
        let mut end = MAX_CONTEXT;
        while !context.is_char_boundary(end) {
            end -= 1;
        }
        context.truncate(end);
        context.push('…');
    }
    context
}

/// Sets the structural context of every chunk of a document.
pub fn add_structural(doc: &Document, chunks: &mut [Chunk]) {
    for chunk in chunks {
        chunk.context = Some(structural(doc, chunk));
    }
}

#[cfg(test)]
mod tests {
    use strata_core::{Config, Format, Source, Span};

    use super::*;
    use crate::pipeline::Pipeline;

    fn read(text: &str) -> (Pipeline, Document) {
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let source = Source {
            path: "/tmp/guide.md".into(),
            format: Format::Markdown,
            content_hash: String::new(),
            size: text.len() as u64,
            mtime: None,
        };
        let doc = pipeline.read_bytes(source, text.as_bytes()).unwrap();
        (pipeline, doc)
    }

    const TEXT: &str = "# Guide\n\nIntro.\n\n## Setup\n\nInstall it. Then run it.\n\n### Linux\n\nUse apt.\n";

    #[test]
    fn context_names_title_and_path_and_leaves_the_text_alone() {
        let (pipeline, doc) = read(TEXT);
        let mut record = pipeline.process(doc);
        add_structural(&record.document, &mut record.chunks);
        let linux =
            record.chunks.iter().find(|c| c.span.slice(&record.document.text).contains("apt")).unwrap();
        assert_eq!(linux.context.as_deref(), Some("Guide › Setup › Linux"));
        let indexed = linux.indexed_text(&record.document.text);
        assert!(indexed.starts_with("Guide › Setup › Linux\n"), "{indexed}");
        assert!(!linux.span.slice(&record.document.text).contains('›'));
    }

    #[test]
    fn given_spans_become_chunks_of_the_section_they_start_in() {
        let (pipeline, doc) = read(TEXT);
        let setup = TEXT.find("## Setup").unwrap();
        let spans = [Span::new(0, setup), Span::new(setup, TEXT.len())];
        let record = pipeline.process_at(doc.clone(), &spans).unwrap();
        assert_eq!(record.chunks.len(), 2);
        assert_eq!(record.chunks[1].span, spans[1]);
        assert_eq!(record.chunks[1].heading_path, ["Guide", "Setup"]);
        assert_eq!(record.chunks[1].overlap_start, setup);
        assert!(record.chunks[1].tokens > 5);
        let overlapping = [Span::new(0, 10), Span::new(5, 20)];
        let err = pipeline.process_at(doc.clone(), &overlapping).unwrap_err().to_string();
        assert!(err.contains("overlap"), "{err}");
        let outside = [Span::new(0, TEXT.len() + 1)];
        let err = pipeline.process_at(doc, &outside).unwrap_err().to_string();
        assert!(err.contains("outside the text"), "{err}");
    }
}
