//! The tantivy schema of the embedded store.
//!
//! One tantivy index holds eight record kinds, told apart by the `kind` field, so that one
//! tantivy commit makes a whole document (its text, tree, chunks and definitions) visible at
//! once, or none of it:
//!
//! | kind | one per | payload |
//! |---|---|---|
//! | `doc` | document | tree, pages, references (JSON, text left out) |
//! | `summary` | document | [`crate::DocSummary`] (JSON): what listing documents reads |
//! | `text` | document | the normalized text (UTF-8) |
//! | `chunk` | chunk | [`crate::StoredChunk`] (JSON) |
//! | `def` | definition | [`strata_core::Definition`] (JSON) |
//! | `section` | tree node | none: `chunk_id` holds `DOC#NODE`; BM25 over the node's
//! [`strata_core::SectionProfile`] (lead and children's titles in `section_text`, heading
//! path in `section_heading`), its number key in `numbers` |
//!
//! | `context` | cached chunk context, or OCR'd page | the context text (a page's glyphs as
//! JSON); `chunk_id` holds its cache key (`strata_ingest::context::cache_key`, or the OCR
//! page key), no `doc_id`, so it outlives its document |
//! | `vector` | vector cache entry of a document | [`strata_core::CachedVector::encode`];
//! `chunk_id` holds its key, `doc_id` the document that served it, so it is replaced and
//! removed with that document |
//!
//! Sections have BM25 fields of their own, so that their statistics (document frequencies,
//! average lengths) never change how chunks score. Format 1 indexes, made before sections
//! were indexed, have no such fields: they open and answer as before, and their section leg
//! finds nothing until they are re-created.

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, STORED, STRING,
};

/// Record kinds.
pub(crate) const KIND_DOC: &str = "doc";
pub(crate) const KIND_TEXT: &str = "text";
pub(crate) const KIND_CHUNK: &str = "chunk";
pub(crate) const KIND_DEF: &str = "def";
pub(crate) const KIND_SECTION: &str = "section";
pub(crate) const KIND_CONTEXT: &str = "context";
/// A vector cache entry ([`strata_core::CachedVector`]), kept with its document.
pub(crate) const KIND_VECTOR: &str = "vector";
/// A document's [`crate::DocSummary`], so that listing documents reads no tree. Indexes
/// made before it have none; their documents are summarized from the `doc` record.
pub(crate) const KIND_SUMMARY: &str = "summary";

/// Handles to the schema's fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub kind: Field,
    pub doc_id: Field,
    pub chunk_id: Field,
    pub ordinal: Field,
    pub node: Field,
    pub chunk_kind: Field,
    /// BM25: context + overlap + chunk text, English stemming.
    pub text: Field,
    /// BM25: heading path.
    pub heading: Field,
    /// BM25: document title.
    pub title: Field,
    /// Exact phrases: chunk text, lowercased, not stemmed, with positions.
    pub exact_text: Field,
    /// Exact: normalized section-number keys of the chunk's node.
    pub numbers: Field,
    /// Exact: normalized terms a chunk or definition defines.
    pub terms: Field,
    /// Content hash of the source, on `doc` records.
    pub hash: Field,
    pub payload: Field,
    /// BM25 on `section` records: lead text and children's titles. `None` in format 1.
    pub section_text: Option<Field>,
    /// BM25 on `section` records: heading path. `None` in format 1.
    pub section_heading: Option<Field>,
    /// First and last page of a chunk or section, for page filters. `None` in format 1.
    pub pages: Option<(Field, Field)>,
}

impl Fields {
    /// The current schema (format 2: section fields and page fields).
    pub(crate) fn build() -> (Schema, Fields) {
        Self::build_with(true)
    }

    /// The schema of format 1: no section or page fields.
    pub(crate) fn build_v1() -> (Schema, Fields) {
        Self::build_with(false)
    }

    fn build_with(sections: bool) -> (Schema, Fields) {
        let mut b = Schema::builder();
        let stemmed = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("en_stem")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let exact = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("default")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let mut fields = Fields {
            kind: b.add_text_field("kind", STRING),
            doc_id: b.add_text_field("doc_id", STRING | STORED),
            chunk_id: b.add_text_field("chunk_id", STRING | STORED),
            ordinal: b.add_u64_field("ordinal", NumericOptions::default().set_fast().set_stored()),
            node: b.add_u64_field("node", NumericOptions::default().set_indexed().set_fast()),
            chunk_kind: b.add_text_field("chunk_kind", STRING),
            text: b.add_text_field("text", stemmed.clone()),
            heading: b.add_text_field("heading", stemmed.clone()),
            title: b.add_text_field("title", stemmed.clone()),
            exact_text: b.add_text_field("exact_text", exact),
            numbers: b.add_text_field("numbers", STRING),
            terms: b.add_text_field("terms", STRING),
            hash: b.add_text_field("hash", STRING | STORED),
            payload: b.add_bytes_field("payload", STORED),
            section_text: None,
            section_heading: None,
            pages: None,
        };
        if sections {
            fields.section_text = Some(b.add_text_field("section_text", stemmed.clone()));
            fields.section_heading = Some(b.add_text_field("section_heading", stemmed));
            let page = || NumericOptions::default().set_indexed().set_fast();
            fields.pages =
                Some((b.add_u64_field("page_first", page()), b.add_u64_field("page_last", page())));
        }
        (b.build(), fields)
    }
}
