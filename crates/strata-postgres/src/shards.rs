//! Records hash-partitioned over several PostgreSQL servers through `postgres_fdw`.
//!
//! The server at `[store] url` is the coordinator. It keeps `strata_meta`,
//! `strata_documents` and `strata_contexts` itself; each record table (`strata_chunks`,
//! `strata_sections`, `strata_postings`, `strata_definitions`) is a parent
//! `PARTITION BY HASH (doc)` whose partitions are foreign tables on the shards, one per
//! shard. Each shard holds ordinary tables with their own indexes (B-tree, GIN, HNSW).
//!
//! What follows from it:
//! - Every row of a document lives on one shard, so a query filtered by document is pruned to
//!   that shard's partition, and a document's delete and insert touch one shard.
//! - Queries join postings to records on `doc`, the partition key, and group by it, so
//!   `enable_partitionwise_join` and `enable_partitionwise_aggregate` (set on the coordinator's
//!   database) let each shard join and sum its own postings.
//! - A vector query sorted by `<#>` becomes a Merge Append of one remote, sorted scan per
//!   shard (`extensions 'vector'` lets postgres_fdw ship pgvector's operator). Each shard's
//!   database runs HNSW with `hnsw.iterative_scan = strict_order`, so a shard keeps returning
//!   candidates in order for as long as the merge asks, and never stops at `ef_search` rows.
//! - Writes go through the coordinator in one local transaction; postgres_fdw commits the
//!   shards' remote transactions when it commits. That is not two-phase commit: a coordinator
//!   that dies between the shards' commits can leave one shard's part of a batch.
//!
//! The same tables move to Citus by making the four record tables distributed tables on
//! `doc` (`SELECT create_distributed_table('strata_chunks', 'doc')`, colocated) and the
//! three others reference or local tables; strata's queries need no change, since they only
//! join and group on `doc`.

use std::path::{Path, PathBuf};

use postgres::config::Host;
use postgres::Transaction;
use strata_core::{Error, Result};

use crate::error::pg;
use crate::options;
use crate::tables;

/// The coordinator's record tables: the columns of `RECORD_DDL`, partitioned by document.
const PARENT_DDL: &str = r#"
CREATE TABLE strata_chunks (
    doc text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, ordinal integer NOT NULL, node integer NOT NULL,
    kind text NOT NULL, page_first integer NOT NULL, page_last integer NOT NULL, number text COLLATE "C",
    terms text[] NOT NULL, payload bytea NOT NULL, tsv tsvector NOT NULL, embedding vector
) PARTITION BY HASH (doc);
CREATE TABLE strata_sections (
    doc text COLLATE "C" NOT NULL, node integer NOT NULL, id text COLLATE "C" NOT NULL, page_first integer NOT NULL,
    page_last integer NOT NULL, tsv tsvector NOT NULL, embedding vector
) PARTITION BY HASH (doc);
CREATE TABLE strata_postings (
    doc text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, target text COLLATE "C" NOT NULL, tf integer NOT NULL,
    len integer NOT NULL, positions integer[]
) PARTITION BY HASH (doc);
CREATE TABLE strata_definitions (
    doc text COLLATE "C" NOT NULL, ordinal integer NOT NULL, term text COLLATE "C" NOT NULL, payload bytea NOT NULL
) PARTITION BY HASH (doc);
"#;

/// What `strata_meta.layout` records, so a database is always opened as it was made.
pub(crate) fn layout_name(shards: &[String]) -> String {
    if shards.is_empty() {
        "single".to_string()
    } else {
        format!("hash({})", shards.iter().map(|s| options::redact(s)).collect::<Vec<_>>().join(", "))
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Creates the shards' tables and the coordinator's partitions over them.
pub(crate) fn create(tx: &mut Transaction<'_>, shards: &[String], label: &Path) -> Result<()> {
    for url in shards {
        let shard_label = PathBuf::from(options::redact(url));
        let mut client = options::config(url)?.connect(postgres::NoTls).map_err(|e| Error::Index {
            path: label.to_path_buf(),
            reason: format!("cannot connect to shard {} ({e}); check [store] shards", options::redact(url)),
        })?;
        client
            .batch_execute(&format!(
                "{}{}
                 DO $$ BEGIN
                   EXECUTE format('ALTER DATABASE %I SET hnsw.iterative_scan = %L', current_database(), 'strict_order');
                 END $$;",
                tables::META_DDL,
                tables::RECORD_DDL
            ))
            .map_err(pg(&shard_label, "creating a shard's tables"))?;
    }
    tx.batch_execute("CREATE EXTENSION IF NOT EXISTS postgres_fdw;")
        .map_err(pg(label, "enabling postgres_fdw (is it installed? it ships with PostgreSQL's contrib)"))?;
    tx.batch_execute(PARENT_DDL).map_err(pg(label, "creating the partitioned tables"))?;
    for (i, url) in shards.iter().enumerate() {
        let config = options::config(url)?;
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            _ => {
                return Err(Error::User(format!(
                    "[store] shards: {} names no TCP host; write postgres://USER@HOST:PORT/DATABASE",
                    options::redact(url)
                )))
            }
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let dbname = config.get_dbname().unwrap_or("postgres");
        let user = config.get_user().unwrap_or("postgres");
        let password = config
            .get_password()
            .map(|p| format!(", password {}", quote(&String::from_utf8_lossy(p))))
            .unwrap_or_default();
        let server = format!("strata_shard_{i}");
        let mut ddl = format!(
            "CREATE SERVER {server} FOREIGN DATA WRAPPER postgres_fdw
                 OPTIONS (host {}, port {}, dbname {}, extensions 'vector', async_capable 'true', fetch_size '1000');
             CREATE USER MAPPING FOR CURRENT_USER SERVER {server} OPTIONS (user {}{password});",
            quote(&host),
            quote(&port.to_string()),
            quote(dbname),
            quote(user),
        );
        for table in tables::RECORD_TABLES {
            ddl.push_str(&format!(
                "CREATE FOREIGN TABLE {table}_s{i} PARTITION OF {table}
                     FOR VALUES WITH (MODULUS {n}, REMAINDER {i}) SERVER {server} OPTIONS (table_name {q});",
                n = shards.len(),
                q = quote(table),
            ));
        }
        tx.batch_execute(&ddl).map_err(pg(label, "creating the foreign partitions"))?;
    }
    tx.batch_execute(
        "DO $$ BEGIN
           EXECUTE format('ALTER DATABASE %I SET enable_partitionwise_join = on', current_database());
           EXECUTE format('ALTER DATABASE %I SET enable_partitionwise_aggregate = on', current_database());
         END $$;",
    )
    .map_err(pg(label, "enabling partitionwise plans"))?;
    Ok(())
}

/// Gives each shard's vector columns their dimension and HNSW indexes.
pub(crate) fn vector_ddl(shards: &[String], dim: usize, label: &Path) -> Result<()> {
    for url in shards {
        let mut client = options::config(url)?.connect(postgres::NoTls).map_err(|e| Error::Index {
            path: label.to_path_buf(),
            reason: format!("cannot connect to shard {} ({e}); check [store] shards", options::redact(url)),
        })?;
        // An index build waits for the shard's open writes; this transaction's own (through
        // postgres_fdw) would never end, so a wait is an error instead of a hang.
        client
            .batch_execute(&format!("SET lock_timeout = '10s'; {}", tables::vector_ddl(dim)))
            .map_err(pg(
            Path::new(&options::redact(url)),
            "creating a shard's vector indexes (if it timed out, commit the documents without vectors first)",
        ))?;
    }
    Ok(())
}
