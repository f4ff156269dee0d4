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
//! | `strata_vector_cache` | (document, vector cache entry) | key, `CachedVector::encode`'s bytes; replaced and removed with its document |
//!
//! Every row but a context carries its document id `doc`: a document's rows are deleted and
//! written in one transaction, and `doc` is the hash-partitioning key when the records are
//! spread over shards (see `shards.rs`). The vector columns get their HNSW indexes when the
//! first vectors arrive (see [`vector_ddl`]).

use std::path::Path;

use postgres::Client;
use strata_core::{Error, Result};
use strata_index::Manifest;

use crate::error::pg;
use crate::options::PgOptions;
use crate::shards;

/// Version of the schema this strata writes. Older databases are migrated on open for
/// writing; newer ones are refused.
///
/// - 1: documents, records, contexts.
/// - 2: also `strata_vector_cache` ([`VECTOR_CACHE_DDL`]), added to version 1 databases.
pub const SCHEMA_VERSION: i32 = 2;

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

pub(crate) fn read_meta(client: &mut Client, label: &Path) -> Result<Option<Manifest>> {
    let exists: bool = client
        .query_one("SELECT to_regclass('strata_meta') IS NOT NULL", &[])
        .map_err(pg(label, "reading the schema"))?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let rows = client
        .query("SELECT key, value FROM strata_meta WHERE key IN ('schema_version', 'manifest')", &[])
        .map_err(pg(label, "reading the manifest"))?;
    let get = |k: &str| rows.iter().find(|r| r.get::<_, String>(0) == k).map(|r| r.get::<_, String>(1));
    if let Some(version) = get("schema_version") {
        let version: i32 = version.parse().unwrap_or(i32::MAX);
        if version > SCHEMA_VERSION {
            return Err(Error::Index {
                path: label.to_path_buf(),
                reason: format!(
                    "its schema version {version} is newer than this strata's ({}); upgrade strata",
                    SCHEMA_VERSION
                ),
            });
        }
    }
    let Some(text) = get("manifest") else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| Error::Index {
        path: label.to_path_buf(),
        reason: format!("its manifest is damaged ({e}); re-create the index"),
    })
}

pub(crate) fn write_manifest(client: &mut Client, manifest: &Manifest, label: &Path) -> Result<()> {
    let text = serde_json::to_string(manifest).map_err(|e| Error::Internal(e.to_string()))?;
    client
        .execute(
            "INSERT INTO strata_meta (key, value) VALUES ('manifest', $1)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&text],
        )
        .map_err(pg(label, "writing the manifest"))?;
    Ok(())
}

/// Brings the schema to [`SCHEMA_VERSION`], in one transaction.
pub(crate) fn migrate(client: &mut Client, options: &PgOptions, label: &Path) -> Result<()> {
    let mut tx = client.transaction().map_err(pg(label, "starting the migration"))?;
    tx.batch_execute(META_DDL).map_err(pg(
        label,
        "creating the schema (is pgvector installed? `CREATE EXTENSION vector` must work)",
    ))?;
    let version: Option<i32> = tx
        .query_opt("SELECT value::int FROM strata_meta WHERE key = 'schema_version'", &[])
        .map_err(pg(label, "reading the schema version"))?
        .map(|r| r.get(0));
    let layout = shards::layout_name(&options.shards);
    match version {
        Some(v) if v == SCHEMA_VERSION => {
            let stored: Option<String> = tx
                .query_opt("SELECT value FROM strata_meta WHERE key = 'layout'", &[])
                .map_err(pg(label, "reading the layout"))?
                .map(|r| r.get(0));
            if stored.as_deref() != Some(layout.as_str()) {
                return Err(Error::Index {
                    path: label.to_path_buf(),
                    reason: format!(
                        "it was created with layout {}, the config asks for {layout}; use the same [store] shards, or a new database",
                        stored.unwrap_or_default()
                    ),
                });
            }
        }
        Some(v) if v > SCHEMA_VERSION => {
            return Err(Error::Index {
                path: label.to_path_buf(),
                reason: format!("its schema version {v} is newer than this strata's; upgrade strata"),
            })
        }
        Some(1) => {
            tx.batch_execute(VECTOR_CACHE_DDL).map_err(pg(label, "adding the vector cache table"))?;
            tx.execute(
                "UPDATE strata_meta SET value = $1 WHERE key = 'schema_version'",
                &[&SCHEMA_VERSION.to_string()],
            )
            .map_err(pg(label, "recording the schema version"))?;
        }
        _ => {
            tx.batch_execute(LOCAL_DDL).map_err(pg(label, "creating the tables"))?;
            tx.batch_execute(VECTOR_CACHE_DDL).map_err(pg(label, "creating the tables"))?;
            if options.shards.is_empty() {
                tx.batch_execute(RECORD_DDL).map_err(pg(label, "creating the tables"))?;
            } else {
                shards::create(&mut tx, &options.shards, label)?;
            }
            tx.execute(
                "INSERT INTO strata_meta (key, value) VALUES ('schema_version', $1), ('layout', $2), ('commits', '0')
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&SCHEMA_VERSION.to_string(), &layout],
            )
            .map_err(pg(label, "recording the schema version"))?;
        }
    }
    tx.commit().map_err(pg(label, "committing the migration"))
}
