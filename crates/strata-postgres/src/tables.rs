//! The tables: their DDL, and the vector indexes added once a dimension is known. The
//! migrations that create them are `schema.rs`'s.
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
//! | `strata_vector_cache` | (document, vector cache entry) | key, `CachedVector::encode`'s bytes; replaced and removed with its document |
//!
//! Every row but a context carries its document id `doc`: a document's rows are deleted and
//! written in one transaction, and `doc` is the hash-partitioning key when the records are
//! spread over shards (see `shards.rs`). The vector columns get their HNSW indexes when the
//! first vectors arrive (see [`vector_ddl`]).

/// The vector cache: on the coordinator, like the contexts, but with its document, whose
/// put and removal delete its rows.
pub(crate) const VECTOR_CACHE_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS strata_vector_cache (
    doc text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    payload bytea NOT NULL,
    PRIMARY KEY (doc, key)
);
CREATE INDEX IF NOT EXISTS strata_vector_cache_key ON strata_vector_cache (key);
"#;

/// Tables that stay on the coordinator when records are sharded.
pub(crate) const LOCAL_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS strata_documents (
    doc text COLLATE "C" PRIMARY KEY,
    path text COLLATE "C" NOT NULL,
    content_hash text COLLATE "C" NOT NULL,
    summary      bytea NOT NULL,
    meta         bytea NOT NULL,
    body         text NOT NULL,
    chunk_count  integer NOT NULL,
    section_count integer NOT NULL,
    tokens       bigint[] NOT NULL  -- tokens per BM25 field (6), then defined-term values
);
CREATE INDEX IF NOT EXISTS strata_documents_path ON strata_documents (path);
CREATE TABLE IF NOT EXISTS strata_contexts (
    key text COLLATE "C" PRIMARY KEY,
    context text NOT NULL
);
"#;

/// Tables of records, one set per shard when sharded. `{part}` is empty on one server.
pub(crate) const RECORD_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS strata_chunks (
    doc text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    ordinal    integer NOT NULL,
    node       integer NOT NULL,
    kind       text NOT NULL,
    page_first integer NOT NULL,
    page_last  integer NOT NULL,
    number text COLLATE "C",
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
    doc text COLLATE "C" NOT NULL,
    node       integer NOT NULL,
    id text COLLATE "C" NOT NULL,
    page_first integer NOT NULL,
    page_last  integer NOT NULL,
    tsv        tsvector NOT NULL,
    embedding  vector,
    PRIMARY KEY (doc, node)
);
CREATE INDEX IF NOT EXISTS strata_sections_tsv ON strata_sections USING gin (tsv);
CREATE TABLE IF NOT EXISTS strata_postings (
    doc text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    target text COLLATE "C" NOT NULL,
    tf        integer NOT NULL,
    len       integer NOT NULL,
    positions integer[]
);
CREATE INDEX IF NOT EXISTS strata_postings_key ON strata_postings (key) INCLUDE (doc, target, tf, len);
CREATE INDEX IF NOT EXISTS strata_postings_doc ON strata_postings (doc);
CREATE TABLE IF NOT EXISTS strata_definitions (
    doc text COLLATE "C" NOT NULL,
    ordinal integer NOT NULL,
    term text COLLATE "C" NOT NULL,
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
    key text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
);
"#;

/// What the HNSW indexes are built on, as `(type, operator class)`: pgvector indexes `vector`
/// up to 2,000 dimensions and `halfvec` up to 4,000. Above, there is no index and the dense
/// legs always scan exactly.
pub(crate) fn indexed_type(dim: usize) -> Option<(String, &'static str)> {
    match dim {
        0..=2000 => Some((format!("vector({dim})"), "vector_ip_ops")),
        2001..=4000 => Some((format!("halfvec({dim})"), "halfvec_ip_ops")),
        _ => None,
    }
}

/// HNSW indexes (inner product, the measure strata's vectors are searched by) on the vector
/// columns, once their dimension is known. The columns stay `vector` without a dimension and
/// the indexes are on `embedding::TYPE` ([`indexed_type`]), which the dense queries order by:
/// changing the column's type would lock readers out until the writer commits, while building
/// an index only holds back other writers.
pub(crate) fn vector_ddl(dim: usize) -> String {
    let Some((ty, ops)) = indexed_type(dim) else { return String::new() };
    format!(
        "CREATE INDEX IF NOT EXISTS strata_chunks_embedding ON strata_chunks
             USING hnsw ((embedding::{ty}) {ops}) WITH (m = 16, ef_construction = 64);
         CREATE INDEX IF NOT EXISTS strata_sections_embedding ON strata_sections
             USING hnsw ((embedding::{ty}) {ops}) WITH (m = 16, ef_construction = 64);"
    )
}
