//! [`StoreWrite`] on PostgreSQL: the one write transaction (opened by the first staged
//! write), a savepoint per document, and the commit that raises the commit counter.

use std::collections::BTreeMap;

use postgres::Client;
use strata_core::{DocId, DocumentRecord, Error, Result};
use strata_index::{check_vectors, DenseManifest, StoreRead, StoreWrite};

use super::{PgStore, Writer};
use crate::error::pg;
use crate::rows::{delete_document, Rows};
use crate::schema::write_manifest;
use crate::shards;
use crate::tables;

impl PgStore {
    fn writer(&mut self) -> Result<&mut Writer> {
        let label = self.label.clone();
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::Index { path: label.clone(), reason: "opened read-only".into() })?
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !w.open {
            w.client.batch_execute("BEGIN").map_err(pg(&label, "starting a transaction"))?;
            w.open = true;
        }
        Ok(w)
    }

    /// Runs `write` inside a savepoint of the open transaction: when it fails, only what it
    /// did is undone and the transaction goes on. A failure of the savepoint itself (the
    /// connection is gone) discards the whole transaction.
    fn in_savepoint(
        &mut self,
        what: &'static str,
        write: impl FnOnce(&mut Client) -> Result<()>,
    ) -> Result<()> {
        let label = self.label.clone();
        let w = self.writer()?;
        if let Err(e) = w.client.batch_execute("SAVEPOINT strata_write") {
            let e = pg(&label, what)(e);
            self.abort();
            return Err(e);
        }
        match write(&mut w.client) {
            Ok(()) => match w.client.batch_execute("RELEASE SAVEPOINT strata_write") {
                Ok(()) => Ok(()),
                Err(e) => {
                    let e = pg(&label, what)(e);
                    self.abort();
                    Err(e)
                }
            },
            Err(e) => {
                let undone = w
                    .client
                    .batch_execute("ROLLBACK TO SAVEPOINT strata_write; RELEASE SAVEPOINT strata_write");
                if undone.is_err() {
                    self.abort();
                }
                Err(e)
            }
        }
    }

    /// Discards the open transaction (after a failure it cannot survive): nothing staged
    /// since the last commit is kept, and the manifest is the committed one again.
    fn abort(&mut self) {
        if let Some(w) = self.writer.as_mut() {
            let w = w.get_mut().unwrap_or_else(|p| p.into_inner());
            if w.open {
                let _ = w.client.batch_execute("ROLLBACK");
            }
            w.open = false;
            w.staged.clear();
            w.manifest_dirty = false;
            self.manifest.dense = w.committed_dense.clone();
        }
    }
}

impl StoreWrite for PgStore {
    fn put(&mut self, record: &DocumentRecord) -> Result<()> {
        let doc = &record.document;
        let id = doc.id.as_str().to_string();
        check_vectors(record)?;
        // The index's model, as it will be once this document is in; set on the manifest
        // only when the document is.
        let mut dense = self.manifest.clone();
        if let Some(v) = &record.vectors {
            dense.check_dense(&v.model, v.dim, &self.label)?;
            if dense.dense.is_none() {
                dense.dense = Some(DenseManifest { model: v.model.clone(), dim: v.dim });
            }
        }
        if let Some(sv) = &record.section_vectors {
            dense.check_dense(&sv.vectors.model, sv.vectors.dim, &self.label)?;
        }
        let new_dim = match (&self.manifest.dense, &dense.dense) {
            (None, Some(d)) => Some(d.dim),
            _ => None,
        };
        let rows = Rows::of(record)?;
        let label = self.label.clone();
        let shards = self.options.shards.clone();
        if let Some(dim) = new_dim {
            // Sharded: the shards' own indexes first, outside this transaction (DDL on
            // foreign servers is not part of it; repeating it is harmless).
            shards::vector_ddl(&shards, dim, &label)?;
        }
        self.in_savepoint("writing a document", |client| {
            if let (Some(dim), true) = (new_dim, shards.is_empty()) {
                client
                    .batch_execute(&tables::vector_ddl(dim))
                    .map_err(pg(&label, "creating the vector indexes"))?;
            }
            delete_document(client, &id, &label)?;
            rows.write(client, &label)
        })?;
        let w = self.writer()?;
        w.staged.insert(doc.id.clone());
        if new_dim.is_some() {
            w.manifest_dirty = true;
            self.manifest = dense;
        }
        Ok(())
    }

    fn remove(&mut self, id: &DocId) -> Result<bool> {
        let staged = self
            .writer
            .as_mut()
            .is_some_and(|w| w.get_mut().unwrap_or_else(|p| p.into_inner()).staged.contains(id));
        if !staged && self.content_hash(id)?.is_none() {
            return Ok(false);
        }
        let label = self.label.clone();
        self.in_savepoint("removing a document", |client| delete_document(client, id.as_str(), &label))?;
        self.writer()?.staged.remove(id);
        Ok(true)
    }

    fn cache_contexts(&mut self, entries: &[(String, String)]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        // One row per key, the last context winning (two chunks of one document with the
        // same text share a key; one INSERT may not touch a row twice).
        let unique: BTreeMap<&str, &str> = entries.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let keys: Vec<&str> = unique.keys().copied().collect();
        let contexts: Vec<&str> = unique.values().copied().collect();
        let label = self.label.clone();
        self.in_savepoint("caching contexts", |client| {
            client
                .execute(
                    "INSERT INTO strata_contexts (key, context) SELECT * FROM unnest($1::text[], $2::text[])
                     ON CONFLICT (key) DO UPDATE SET context = EXCLUDED.context",
                    &[&keys, &contexts],
                )
                .map_err(pg(&label, "caching contexts"))?;
            Ok(())
        })
    }

    fn commit(&mut self) -> Result<()> {
        let label = self.label.clone();
        let manifest = self.manifest.clone();
        let w = self.writer()?;
        let committed = (|| {
            if w.manifest_dirty {
                write_manifest(&mut w.client, &manifest, &label)?;
            }
            w.client
                .batch_execute(
                    "UPDATE strata_meta SET value = (value::bigint + 1)::text WHERE key = 'commits';
                     COMMIT",
                )
                .map_err(pg(&label, "committing"))
        })();
        match committed {
            Ok(()) => {
                w.open = false;
                w.manifest_dirty = false;
                w.staged.clear();
                w.committed_dense = manifest.dense;
                Ok(())
            }
            Err(e) => {
                // Whatever the server did with it, this transaction is over.
                self.abort();
                Err(e)
            }
        }
    }
}
