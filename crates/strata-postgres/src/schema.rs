//! The schema's version, and the migrations that bring a database to it: the tables of
//! `tables.rs`, on one server or with the records spread over shards (`shards.rs`), and the
//! manifest kept in `strata_meta`.

use std::path::Path;

use postgres::Client;
use strata_core::{Error, Result};
use strata_index::Manifest;

use crate::error::pg;
use crate::options::PgOptions;
use crate::shards;
use crate::tables::{LOCAL_DDL, META_DDL, RECORD_DDL, VECTOR_CACHE_DDL};

/// Version of the schema this strata writes. Older databases are migrated on open for
/// writing; newer ones are refused.
///
/// - 1: documents, records, contexts.
/// - 2: also `strata_vector_cache` (`tables::VECTOR_CACHE_DDL`), added to version 1 databases.
pub const SCHEMA_VERSION: i32 = 2;

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
