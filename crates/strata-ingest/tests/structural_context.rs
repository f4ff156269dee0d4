//! Snapshots of the structural context on corpus documents, one of each kind of structure:
//! a statute (US Code Title 35, HTML: chapters, numbered sections, defined terms), an RFC
//! (plain text, numbered sections), a standard with an outline (NIST SP 800-207, PDF) and a
//! Word document (USLM review guide, DOCX). For each, the contexts of the first four chunks
//! and of every 40th after, with the chunk's id and its first words.
//!
//! What to check when a snapshot changes: the heading path is the chunk's own (top, `…`, and
//! the last two levels when deep); a section number appears only when the heading does not
//! print it; the lead is the section's first sentence and is absent from a chunk that holds
//! it; terms are defined terms the chunk uses; nothing is longer than `MAX_CONTEXT` bytes
//! plus `…`.
//! Skips when the corpus is absent.

use std::fmt::Write;

use strata_core::Config;
use strata_ingest::context::structural;
use strata_ingest::pipeline::Pipeline;

fn snapshot(relative: &str) -> Option<String> {
    let path = strata_core::testdata::shared(&format!("corpus/{relative}"))?;
    // cl100k_base counting and 512-token chunks: the snapshot does not depend on the model.
    let pipeline = Pipeline::new(&Config::default()).unwrap();
    let ing = pipeline.ingest_file(&path).unwrap();
    let mut out = String::new();
    for (i, chunk) in ing.chunks.iter().enumerate() {
        if i >= 4 && i % 40 != 0 {
            continue;
        }
        let context = structural(&ing.document, chunk);
        let max = strata_ingest::context::MAX_CONTEXT + '…'.len_utf8();
        assert!(context.len() <= max, "{}: {} bytes", chunk.id, context.len());
        let words: Vec<&str> = chunk.span.slice(&ing.document.text).split_whitespace().take(8).collect();
        writeln!(
            out,
            "{} [{}]\n  text: {}\n  context: {}\n",
            chunk.ordinal,
            chunk.node,
            words.join(" "),
            context
        )
        .unwrap();
    }
    Some(out)
}

#[test]
fn statute_contexts() {
    if let Some(s) = snapshot("html/usc-title35-patents.htm") {
        insta::assert_snapshot!(s);
    }
}

#[test]
fn rfc_contexts() {
    if let Some(s) = snapshot("txt/rfc7231-http11-semantics.txt") {
        insta::assert_snapshot!(s);
    }
}

#[test]
fn pdf_standard_contexts() {
    if let Some(s) = snapshot("pdf/nist-sp-800-207-zero-trust-architecture.pdf") {
        insta::assert_snapshot!(s);
    }
}

#[test]
fn docx_contexts() {
    if let Some(s) = snapshot("docx/uslm-2.0-review-guide.docx") {
        insta::assert_snapshot!(s);
    }
}
