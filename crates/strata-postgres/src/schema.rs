//! The tables, and the migrations that make them.
//!
//! | table | one row per | holds |
//! |---|---|---|
//! | `strata_meta` | setting | `schema_version`, `manifest` (JSON), `layout` |
//! | `strata_documents` | document | summary and metadata (JSON, text left out), the text, counts and token totals for BM25 |
//! | `strata_chunks` | chunk | filter columns (node, kind, pages, number key, defined terms), the `StoredChunk` (JSON), a weighted `tsvector`, the vector |
//! | `strata_sections` | tree node | `DOC#NODE`, filter columns, a weighted `tsvector`, the profile's vector |
//! | `strata_postings` | (field, term, record) | term frequency, field length (quantized), positions for exact phrases |
//! | `strata_definitions` | definition | normalized term, the `Definition` (JSON) |
//! | `strata_contexts` | cached context | cache key, context text; no document, so it outlives one |
//!
//! Every row but a context carries its document id `doc`: a document's rows are deleted and
//! written in one transaction, and `doc` is the hash-partitioning key when the records are
//! spread over shards (see `shards.rs`). The vector columns get their HNSW indexes when the
//! first vectors arrive (see [`vector_ddl`]).

/// Version of the schema this strata writes. Older databases are migrated on open for
/// writing; newer ones are refused.
pub const SCHEMA_VERSION: i32 = 1;

/// Tables that stay on the coordinator when records are sharded.
pub(crate) const LOCAL_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS strata_documents (
    doc          text PRIMARY KEY,
    path         text NOT NULL,
    content_hash text NOT NULL,
    summary      bytea NOT NULL,
    meta         bytea NOT NULL,
    body         text NOT NULL,
    chunk_count  integer NOT NULL,
    section_count integer NOT NULL,
    tokens       bigint[] NOT NULL
);
CREATE INDEX IF NOT EXISTS strata_documents_path ON strata_documents (path);
CREATE TABLE IF NOT EXISTS strata_contexts (
    key     text PRIMARY KEY,
    context text NOT NULL
);
"#;

/// Tables of records, one set per shard when sharded. `{part}` is empty on one server.
pub(crate) const RECORD_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS strata_chunks (
    doc        text NOT NULL,
    id         text NOT NULL,
    ordinal    integer NOT NULL,
    node       integer NOT NULL,
    kind       text NOT NULL,
    page_first integer NOT NULL,
    page_last  integer NOT NULL,
    number     text,
    terms      text[] NOT NULL,
    payload    bytea NOT NULL,
    tsv        tsvector NOT NULL,
    embedding  vector,
    PRIMARY KEY (doc, id)
);
CREATE INDEX IF NOT EXISTS strata_chunks_id ON strata_chunks (id);
CREATE INDEX IF NOT EXISTS strata_chunks_number ON strata_chunks (number) WHERE number IS NOT NULL;
CREATE INDEX IF NOT EXISTS strata_chunks_terms ON strata_chunks USING gin (terms);
CREATE INDEX IF NOT EXISTS strata_chunks_tsv ON strata_chunks USING gin (tsv);
CREATE TABLE IF NOT EXISTS strata_sections (
    doc        text NOT NULL,
    node       integer NOT NULL,
    id         text NOT NULL,
    page_first integer NOT NULL,
    page_last  integer NOT NULL,
    tsv        tsvector NOT NULL,
    embedding  vector,
    PRIMARY KEY (doc, node)
);
CREATE INDEX IF NOT EXISTS strata_sections_tsv ON strata_sections USING gin (tsv);
CREATE TABLE IF NOT EXISTS strata_postings (
    doc       text NOT NULL,
    key       text NOT NULL,
    target    text NOT NULL,
    tf        integer NOT NULL,
    len       integer NOT NULL,
    positions integer[]
);
CREATE INDEX IF NOT EXISTS strata_postings_key ON strata_postings (key) INCLUDE (doc, target, tf, len);
CREATE INDEX IF NOT EXISTS strata_postings_doc ON strata_postings (doc);
CREATE TABLE IF NOT EXISTS strata_definitions (
    doc     text NOT NULL,
    ordinal integer NOT NULL,
    term    text NOT NULL,
    payload bytea NOT NULL,
    PRIMARY KEY (doc, ordinal)
);
CREATE INDEX IF NOT EXISTS strata_definitions_term ON strata_definitions (term);
"#;

/// The record tables, for the coordinator's partitioned parents and for cleaning up.
pub(crate) const RECORD_TABLES: [&str; 4] =
    ["strata_chunks", "strata_sections", "strata_postings", "strata_definitions"];

/// The metadata table and the extension, before anything else.
pub(crate) const META_DDL: &str = r#"
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS strata_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
"#;

/// HNSW indexes (inner product, the measure strata's vectors are searched by) on the vector
/// columns, once their dimension is known. The columns stay `vector` without a dimension and
/// the indexes are on `embedding::vector(DIM)`, which the dense queries order by: changing the
/// column's type would lock readers out until the writer commits, while building an index
/// only holds back other writers.
pub(crate) fn vector_ddl(dim: usize) -> String {
    format!(
        "CREATE INDEX IF NOT EXISTS strata_chunks_embedding ON strata_chunks
             USING hnsw ((embedding::vector({dim})) vector_ip_ops) WITH (m = 16, ef_construction = 64);
         CREATE INDEX IF NOT EXISTS strata_sections_embedding ON strata_sections
             USING hnsw ((embedding::vector({dim})) vector_ip_ops) WITH (m = 16, ef_construction = 64);"
    )
}
