//! Structural context: a short, deterministic text that situates a chunk in its document,
//! contextual retrieval without a language model.
//!
//! It holds, on one line each part that says something:
//! - the document title and the heading path (its top and its last two levels when deep);
//! - the section number, when the headings do not print it;
//! - for a chunk that starts inside a table, the table's header rows and its title (the
//!   short paragraphs just above it), since its rows' numbers mean nothing without them;
//! - else the section's lead: its summary, else its first sentence (sentences until
//!   [`LEAD_MIN_WORDS`] words, at most [`LEAD_WORDS`]), unless the chunk itself holds it;
//! - the defined terms the chunk uses.
//!
//! e.g. `Title 35—Patents › Chapter 10 › §102. Conditions for patentability | lead: A person
//! shall be entitled to a patent unless— | terms: invention`. For a file without headings
//! the lead is the file's first sentence (a module comment, an abstract), which is what
//! tells its chunks apart from those of its neighbours.

use strata_core::{floor_char_boundary, BlockKind, Chunk, Document, Result, Span};

use strata_model::context::{ContextSource, Contextualizer, Situated};

/// Longest context, in bytes (about 64 tokens of English). The dense leg embeds the context
/// in place of the chunk's overlap, whose 64 tokens the chunk size leaves room for in the
/// embedding model's window; a longer context would push the chunk's tail out of it.
pub const MAX_CONTEXT: usize = 256;
/// Defined terms named at most.
const MAX_TERMS: usize = 5;
/// Words of the lead kept at most.
pub const LEAD_WORDS: usize = 24;
/// Words the lead takes at least, sentence by sentence: a first "sentence" cut short by an
/// abbreviation the splitter does not know (`Pub. L.`) says nothing alone.
const LEAD_MIN_WORDS: usize = 8;
/// Bytes of a section read to find its first sentence.
const LEAD_SCAN: usize = 2048;
/// Words of a table's title kept at most, and of each paragraph taken into it.
const TITLE_WORDS: usize = 16;
/// Bytes of a table's header rows kept at most.
const HEADER_BYTES: usize = 160;
/// Bytes of a table's header and title kept at most (the rest of the context gets the
/// other [`MAX_CONTEXT`] bytes).
const TABLE_BYTES: usize = 200;

/// The offline [`Contextualizer`]: [`structural`] for every chunk.
#[derive(Debug, Clone, Copy, Default)]
pub struct Structural;

impl Contextualizer for Structural {
    fn id(&self) -> &str {
        "structural@2"
    }

    fn cacheable(&self) -> bool {
        false
    }

    fn contextualize(&self, doc: &Document, chunks: &[&Chunk]) -> Result<Vec<Situated>> {
        Ok(chunks
            .iter()
            .map(|c| Situated {
                context: structural(doc, c),
                source: ContextSource::Structural,
                truncated: false,
            })
            .collect())
    }
}

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
    let node = doc.tree.get(chunk.node);
    if let Some(number) = node.and_then(|n| n.number.as_ref()) {
        let printed = chunk.heading_path.last().is_some_and(|t| t.contains(number.number.as_str()));
        if !printed {
            context.push_str(" | ");
            match &number.unit {
                Some(unit) => context.push_str(&format!("{unit} {}", number.number)),
                None => context.push_str(&format!("§ {}", number.number)),
            }
        }
    }
    if let Some(table) = table(doc, chunk.span) {
        // The header must survive the cut below: the path gives way to it.
        let room = MAX_CONTEXT.saturating_sub(table.len() + " | table: ".len() + '…'.len_utf8());
        if context.len() > room {
            context.truncate(floor_char_boundary(&context, room));
            context.push('…');
        }
        context.push_str(" | table: ");
        context.push_str(&table);
    } else if let Some(lead) = node.and_then(|n| lead(doc, n, chunk.span)) {
        context.push_str(" | lead: ");
        context.push_str(&lead);
    }
    if !chunk.uses.is_empty() {
        let terms: Vec<&str> = chunk.uses.iter().take(MAX_TERMS).map(String::as_str).collect();
        context.push_str(" | terms: ");
        context.push_str(&terms.join(", "));
    }
    if context.len() > MAX_CONTEXT {
        context.truncate(floor_char_boundary(&context, MAX_CONTEXT));
        context.push('…');
    }
    context
}

/// The lead of `node`: its summary, else the first sentence of its text after the heading
/// (whitespace collapsed; sentences until [`LEAD_MIN_WORDS`] words, at most [`LEAD_WORDS`]);
/// `None` when `chunk` already holds its start or there is none.
fn lead(doc: &Document, node: &strata_core::Node, chunk: Span) -> Option<String> {
    if let Some(summary) = &node.summary {
        return Some(words(summary, LEAD_WORDS)).filter(|s| !s.is_empty());
    }
    let body = Span::new(node.heading.end.max(node.own.start), node.own.end);
    let text = body.slice(&doc.text);
    let skipped = text.len() - text.trim_start().len();
    let start = body.start + skipped;
    if start >= body.end || (chunk.start <= start && start < chunk.end) {
        return None;
    }
    let scan = floor_char_boundary(&doc.text, (start + LEAD_SCAN).min(body.end));
    let window = &doc.text[start..scan];
    let starts = strata_text::sentence::sentence_starts(window);
    let end = starts
        .iter()
        .copied()
        .find(|&s| window[..s].split_whitespace().count() >= LEAD_MIN_WORDS)
        .unwrap_or(window.len());
    Some(words(&window[..end], LEAD_WORDS)).filter(|s| !s.is_empty())
}

/// What situates a chunk that starts inside a table, after the table's first row: its header
/// rows, lines joined by ` / ` (`(in millions) / 2022 | 2021 | 2020`), then its title in
/// parentheses: the one or two short paragraphs right above the table that are neither
/// sentences nor headings (which the heading path names already).
pub fn table(doc: &Document, chunk: Span) -> Option<String> {
    let i = doc.blocks.partition_point(|b| b.span.end <= chunk.start);
    let block = doc.blocks.get(i).filter(|b| {
        b.kind == BlockKind::Table
            && b.span.start < chunk.start
            && !doc.text[b.span.start..chunk.start].trim().is_empty()
    })?;
    let mut out =
        block.header.filter(|h| h.end <= chunk.start).map(|h| header_rows(doc, h)).unwrap_or_default();
    if let Some(mut title) = title_above(doc, i).filter(|_| out.len() < TABLE_BYTES) {
        let room = TABLE_BYTES - out.len();
        if title.len() > room {
            title.truncate(floor_char_boundary(&title, room));
            title.push('…');
        }
        out = if out.is_empty() { title } else { format!("{out} ({title})") };
    }
    (!out.is_empty()).then_some(out)
}

/// A table's header rows, whitespace collapsed, joined by ` / `, at most [`HEADER_BYTES`]:
/// the rows nearest the numbers (the years) are kept first.
fn header_rows(doc: &Document, header: Span) -> String {
    let rows: Vec<String> =
        header.slice(&doc.text).lines().map(|l| words(l, usize::MAX)).filter(|l| !l.is_empty()).collect();
    let mut from = 0;
    while from + 1 < rows.len() && rows[from..].iter().map(|r| r.len() + 3).sum::<usize>() > HEADER_BYTES {
        from += 1;
    }
    let rows = rows[from..].join(" / ");
    rows[..floor_char_boundary(&rows, HEADER_BYTES)].to_string()
}

/// The title of the table that is block `table` of `doc`: the one or two paragraphs right
/// above it that are short and no sentence (a note above a table ends with a period), and
/// no heading or table.
fn title_above(doc: &Document, table: usize) -> Option<String> {
    let mut title: Vec<String> = Vec::new();
    let mut end = doc.blocks[table].span.start;
    for b in doc.blocks[..table].iter().rev().take(2) {
        let between = &doc.text[b.span.end.min(end)..end];
        let text = b.span.slice(&doc.text).trim_end();
        let sentence = text.ends_with(['.', ';']) || text.ends_with(".)");
        let short = text.split_whitespace().count() <= TITLE_WORDS && !sentence;
        if !between.trim().is_empty() || !short || matches!(b.kind, BlockKind::Heading | BlockKind::Table) {
            break;
        }
        title.push(words(text, TITLE_WORDS));
        end = b.span.start;
    }
    title.reverse();
    (!title.is_empty()).then(|| words(&title.join(" "), TITLE_WORDS))
}

/// The first `n` whitespace-separated words of `text`, joined by single spaces, with `…`
/// when more followed.
fn words(text: &str, n: usize) -> String {
    let mut it = text.split_whitespace();
    let mut out = it.by_ref().take(n).collect::<Vec<_>>().join(" ");
    if it.next().is_some() {
        out.push('…');
    }
    out
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
    use crate::pipeline::{Cut, Pipeline};

    fn read(text: &str) -> (Pipeline, Document) {
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let source = Source {
            path: "/tmp/guide.md".into(),
            format: Format::Markdown,
            content_hash: String::new(),
            size: text.len() as u64,
            mtime: None,
        };
        let doc = pipeline.document(source, text.as_bytes()).unwrap();
        (pipeline, doc)
    }

    const TEXT: &str = "# Guide\n\nIntro.\n\n## Setup\n\nInstall it. Then run it.\n\n### Linux\n\nUse apt.\n";

    #[test]
    fn context_names_title_and_path_and_leaves_the_text_alone() {
        let (pipeline, doc) = read(TEXT);
        let mut record = pipeline.process(doc, &Cut::Chunker).unwrap();
        add_structural(&record.document, &mut record.chunks);
        let linux =
            record.chunks.iter().find(|c| c.span.slice(&record.document.text).contains("apt")).unwrap();
        assert_eq!(linux.context.as_deref(), Some("Guide › Setup › Linux"));
        let indexed = linux.indexed_text(&record.document.text);
        assert!(indexed.starts_with("Guide › Setup › Linux\n"), "{indexed}");
        assert!(!linux.span.slice(&record.document.text).contains('›'));
    }

    #[test]
    fn lead_situates_later_chunks_of_a_section_but_not_its_first() {
        let body: String =
            (0..60).map(|i| format!("Filler sentence number {i} about nothing much. ")).collect();
        let text = format!(
            "# Act

## Sec. 4. Powers

Pub. L. 101 gives the board its powers over all ports. {body}
"
        );
        let pipeline = Pipeline::new(&Config {
            chunk: strata_core::config::ChunkConfig { max_tokens: 64, overlap: 8 },
            ..Config::default()
        })
        .unwrap();
        let source = Source {
            path: "/tmp/act.md".into(),
            format: Format::Markdown,
            content_hash: String::new(),
            size: 0,
            mtime: None,
        };
        let doc = pipeline.document(source, text.as_bytes()).unwrap();
        let record = pipeline.process(doc, &Cut::Chunker).unwrap();
        let in_section: Vec<&Chunk> = record.chunks.iter().filter(|c| c.heading_path.len() == 2).collect();
        assert!(in_section.len() >= 3, "{}", in_section.len());
        let first = structural(&record.document, in_section[0]);
        assert!(!first.contains("lead:"), "the first chunk holds the lead itself: {first}");
        let later = structural(&record.document, in_section[2]);
        // "Pub." does not end the lead: sentences are taken until it has 8 words.
        assert!(later.contains("| lead: Pub. L. 101 gives the board its powers over all ports."), "{later}");
        assert!(later.len() <= MAX_CONTEXT + '…'.len_utf8());
    }

    #[test]
    fn the_dense_text_cuts_the_context_never_the_chunk() {
        let (pipeline, doc) = read(TEXT);
        let mut record = pipeline.process(doc, &Cut::Chunker).unwrap();
        add_structural(&record.document, &mut record.chunks);
        let tok = pipeline.tokenizer().as_ref();
        let text = &record.document.text;
        let linux = record.chunks.iter().find(|c| c.span.slice(text).contains("apt")).unwrap();
        let own = linux.span.slice(text);
        let roomy = crate::context::embedded_text(linux, text, tok, 512);
        assert_eq!(roomy, format!("Guide › Setup › Linux\n{own}"));
        let tight = crate::context::embedded_text(linux, text, tok, linux.tokens as usize + 3 + 4);
        assert!(tight.ends_with(&format!("…\n{own}")) && tight.starts_with("Guide"), "{tight}");
        assert_eq!(crate::context::embedded_text(linux, text, tok, linux.tokens as usize), own);
        let mut bare = linux.clone();
        bare.context = None;
        assert_eq!(crate::context::embedded_text(&bare, text, tok, 512), bare.indexed_span().slice(text));
    }

    #[test]
    fn given_spans_become_chunks_of_the_section_they_start_in() {
        let (pipeline, doc) = read(TEXT);
        let setup = TEXT.find("## Setup").unwrap();
        let spans = [Span::new(0, setup), Span::new(setup, TEXT.len())];
        let record = pipeline.process(doc.clone(), &Cut::Spans(spans.to_vec())).unwrap();
        assert_eq!(record.chunks.len(), 2);
        assert_eq!(record.chunks[1].span, spans[1]);
        assert_eq!(record.chunks[1].heading_path, ["Guide", "Setup"]);
        assert_eq!(record.chunks[1].overlap_start, setup);
        assert!(record.chunks[1].tokens > 5);
        let overlapping = [Span::new(0, 10), Span::new(5, 20)];
        let err = pipeline.process(doc.clone(), &Cut::Spans(overlapping.to_vec())).unwrap_err().to_string();
        assert!(err.contains("overlap"), "{err}");
        let outside = [Span::new(0, TEXT.len() + 1)];
        let err = pipeline.process(doc, &Cut::Spans(outside.to_vec())).unwrap_err().to_string();
        assert!(err.contains("outside the text"), "{err}");
    }
}
