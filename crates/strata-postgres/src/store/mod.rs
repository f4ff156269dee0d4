//! [`PgStore`]: the `Store` traits on PostgreSQL.
//!
//! Reads take a pooled connection each and see the last commit. Writes go through one
//! connection of their own, which holds an advisory lock (one writer per database, as the
//! embedded store allows one per folder) and one open transaction from the first staged
//! write to [`StoreWrite::commit`]. Each `put` runs inside a savepoint, so a document that
//! fails leaves the others of the transaction intact. A server that dies mid-ingest rolls the
//! open transaction back: no partial document is ever visible, and running the ingest again
//! completes it.
//!
//! The code is split by job: this file holds the store, its connections and opening;
//! `legs.rs` answers [`StoreRead`] in SQL; `write.rs` holds the write transaction, its
//! savepoints and [`StoreWrite`].
//!
//! [`StoreRead`]: strata_index::StoreRead
//! [`StoreWrite`]: strata_index::StoreWrite
//! [`StoreWrite::commit`]: strata_index::StoreWrite::commit

mod legs;
mod write;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use postgres::{Client, NoTls};
use r2d2_postgres::r2d2::{Pool, PooledConnection};
use r2d2_postgres::PostgresConnectionManager;
use strata_core::{DocId, Error, Result};
use strata_index::{DenseManifest, Manifest};

use crate::error::pg;
use crate::options::{self, PgOptions};
use crate::schema::{migrate, read_meta, write_manifest};
use crate::tables;

/// The advisory lock the writer holds ("STRATA" in ASCII, truncated).
const WRITER_LOCK: i64 = 0x5354_5241_5441;

type Manager = PostgresConnectionManager<NoTls>;

/// The open write transaction.
struct Writer {
    client: Client,
    /// A transaction is open.
    open: bool,
    /// Ids put since the last commit, so that `remove` also cancels a staged put.
    staged: HashSet<DocId>,
    /// The manifest changed (first vectors) and is written with the next commit.
    manifest_dirty: bool,
    /// The index's model as last committed, restored when a transaction is discarded.
    committed_dense: Option<DenseManifest>,
}

/// The `Store` traits on PostgreSQL with pgvector.
pub struct PgStore {
    label: PathBuf,
    options: PgOptions,
    manifest: Manifest,
    pool: Pool<Manager>,
    /// The write connection (a `Mutex` only to make the store `Sync`: writes take `&mut self`).
    writer: Option<Mutex<Writer>>,
}

impl PgStore {
    /// Opens an existing store for reading.
    pub fn open(options: PgOptions) -> Result<PgStore> {
        let label = PathBuf::from(options::redact(&options.url));
        let mut client = connect(&options.url, &label)?;
        let manifest = read_meta(&mut client, &label)?.ok_or_else(|| Error::Index {
            path: label.clone(),
            reason: "this database holds no strata index; run `strata ingest PATH` with this [store] first"
                .into(),
        })?;
        drop(client);
        let pool = pool(&options, &label)?;
        Ok(PgStore { label, options, manifest, pool, writer: None })
    }

    /// Opens a store for writing, creating its tables (and, with shards, the partitions on
    /// them) when the database has none. An existing store must have been built with the same
    /// settings as `wanted`.
    pub fn open_or_create(options: PgOptions, wanted: Manifest) -> Result<PgStore> {
        let label = PathBuf::from(options::redact(&options.url));
        let mut client = connect(&options.url, &label)?;
        let locked: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK])
            .map_err(pg(&label, "taking the writer lock"))?
            .get(0);
        if !locked {
            return Err(Error::Index {
                path: label,
                reason: "another process is writing to this index; wait for it to finish".into(),
            });
        }
        migrate(&mut client, &options, &label)?;
        let manifest = match read_meta(&mut client, &label)? {
            Some(existing) => {
                existing.check_compatible(&wanted, &label)?;
                existing
            }
            None => {
                write_manifest(&mut client, &wanted, &label)?;
                wanted
            }
        };
        // The writer reads what it wrote: from the primary, never from a lagging standby.
        let pool = pool(&PgOptions { read_url: None, ..options.clone() }, &label)?;
        let writer = Writer {
            client,
            open: false,
            staged: HashSet::new(),
            manifest_dirty: false,
            committed_dense: manifest.dense.clone(),
        };
        Ok(PgStore { label, options, manifest, pool, writer: Some(Mutex::new(writer)) })
    }

    /// The manifest of the store at `options`, or `None` when the database holds no index.
    pub fn read_manifest(options: &PgOptions) -> Result<Option<Manifest>> {
        let label = PathBuf::from(options::redact(&options.url));
        read_meta(&mut connect(&options.url, &label)?, &label)
    }

    /// What identifies the last commit without opening the store: a counter every commit
    /// raises. `None` when the database holds no index.
    pub fn commit_stamp(options: &PgOptions) -> Result<Option<String>> {
        let label = PathBuf::from(options::redact(&options.url));
        let url = options.read_url.as_deref().unwrap_or(&options.url);
        let mut client = connect(url, &label)?;
        let exists: bool = client
            .query_one("SELECT to_regclass('strata_meta') IS NOT NULL", &[])
            .map_err(pg(&label, "reading the schema"))?
            .get(0);
        if !exists {
            return Ok(None);
        }
        Ok(client
            .query_opt("SELECT value FROM strata_meta WHERE key = 'commits'", &[])
            .map_err(pg(&label, "reading the commit counter"))?
            .map(|r| r.get(0)))
    }

    /// Drops every table of a strata index (and, when sharded, the shards' tables and the
    /// foreign servers) from the database at `options`. `strata eval` starts each run
    /// empty with it; nothing else of the database is touched.
    pub fn destroy(options: &PgOptions) -> Result<()> {
        let label = PathBuf::from(options::redact(&options.url));
        let mut client = connect(&options.url, &label)?;
        let mut drop = String::new();
        for table in tables::RECORD_TABLES.iter().chain(&[
            "strata_documents",
            "strata_contexts",
            "strata_vector_cache",
            "strata_meta",
        ]) {
            drop.push_str(&format!("DROP TABLE IF EXISTS {table} CASCADE;"));
        }
        for i in 0..options.shards.len() {
            drop.push_str(&format!("DROP SERVER IF EXISTS strata_shard_{i} CASCADE;"));
        }
        client.batch_execute(&drop).map_err(pg(&label, "dropping the index's tables"))?;
        for url in &options.shards {
            let shard = PathBuf::from(options::redact(url));
            let mut c = connect(url, &shard)?;
            let drop: String =
                tables::RECORD_TABLES.iter().map(|t| format!("DROP TABLE IF EXISTS {t} CASCADE;")).collect();
            c.batch_execute(&drop).map_err(pg(&shard, "dropping a shard's tables"))?;
        }
        Ok(())
    }

    /// Bytes the database takes on its server (tables, indexes, TOAST), without the shards'.
    pub fn size_on_disk(&self) -> Result<u64> {
        let size: i64 = self
            .conn()?
            .query_one("SELECT pg_database_size(current_database())", &[])
            .map_err(self.err("reading the database size"))?
            .get(0);
        Ok(size.max(0) as u64)
    }

    /// The URL of the store without its password, as messages name it.
    pub fn label(&self) -> &Path {
        &self.label
    }

    fn conn(&self) -> Result<PooledConnection<Manager>> {
        self.pool.get().map_err(|e| Error::Index {
            path: self.label.clone(),
            reason: format!(
                "no connection to the server ({e}); check that it runs and that [store] url is right"
            ),
        })
    }

    fn err(&self, what: &'static str) -> impl Fn(postgres::Error) -> Error + '_ {
        pg(&self.label, what)
    }

    fn damaged(&self, e: serde_json::Error) -> Error {
        Error::Index {
            path: self.label.clone(),
            reason: format!("a stored record is damaged ({e}); re-ingest the affected document"),
        }
    }
}

fn connect(url: &str, label: &Path) -> Result<Client> {
    options::config(url)?.connect(NoTls).map_err(|e| Error::Index {
        path: label.to_path_buf(),
        reason: format!("cannot connect ({e}); check that the server runs and that [store] url is right"),
    })
}

fn pool(options: &PgOptions, label: &Path) -> Result<Pool<Manager>> {
    let url = options.read_url.as_deref().unwrap_or(&options.url);
    let manager = PostgresConnectionManager::new(options::config(url)?, NoTls);
    Pool::builder()
        .max_size(options.pool_size.max(1))
        .min_idle(Some(1))
        .connection_timeout(std::time::Duration::from_secs(10))
        .build(manager)
        .map_err(|e| Error::Index {
            path: PathBuf::from(options::redact(url)),
            reason: format!(
                "cannot open a pool of {} connections ({e}); check that the server runs and accepts them",
                options.pool_size
            ),
        })
        .inspect(|_| tracing::debug!(store = %label.display(), "connection pool ready"))
}
