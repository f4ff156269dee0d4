//! The embedded store: one folder, one tantivy index, one manifest.
//!
//! ```text
//! .strata/
//!   manifest.json     format version, tokenizer, chunking parameters
//!   tantivy/          every record (see `schema.rs`); tantivy's commit is the transaction
//!   vectors/          dense vectors in segments (see `vectors.rs`); `vectors/sections/`
//!                     holds the section profiles' vectors alike; both are published by the same
//!                     commit through its payload
//! ```
//!
//! All records of a document are written between two commits, and tantivy publishes a commit
//! by atomically replacing its `meta.json`; a crash (even `kill -9`) mid-ingest therefore
//! leaves the last committed state readable, and re-running ingest completes the job. A commit
//! that fails (a full disk) is rolled back and its files removed, and opening for writing
//! removes those of a process that died, so neither keeps the space a later write needs.
//! Readers take no lock, so many processes can search one folder while one writes.
//!
//! The code is split by job: this file opens the folder and holds the store and its commit
//! payload; `query.rs` builds and runs tantivy queries; `read.rs` answers [`StoreRead`];
//! `write.rs` stages and commits for [`StoreWrite`]; `recover.rs` undoes a failed write and
//! removes the files no commit references; `check.rs` verifies checksums and vectors
//! (`strata check`).
//!
//! [`StoreRead`]: crate::StoreRead
//! [`StoreWrite`]: crate::StoreWrite

mod check;
mod query;
mod read;
mod recover;
mod top;
mod write;

pub use check::Check;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_core::{Definition, DocId, Document, Error, Reference, Result};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy};

use crate::schema::Fields;
use crate::vectors::{VectorState, Vectors};
use crate::{DenseManifest, Manifest};

/// What a tantivy commit carries besides the records: the vector state it publishes.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CommitPayload {
    #[serde(default)]
    vectors: VectorState,
    /// The vectors of section profiles (the dense section leg).
    #[serde(default)]
    sections: VectorState,
    /// The state of an external vector engine that holds this index's vectors instead
    /// (`strata-milvus`), published by the same commit as the records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    external: Option<String>,
}

/// Default number of vectors above which a segment gets an HNSW graph.
pub const DEFAULT_ANN_THRESHOLD: usize = 20_000;

/// Memory budget of the tantivy writer.
const WRITER_HEAP: usize = 128 * 1024 * 1024;

/// The `doc` record payload: the document without its text.
#[derive(Serialize, Deserialize)]
struct DocMeta {
    document: Document,
    definitions: Vec<Definition>,
    references: Vec<Reference>,
    chunks: usize,
}

/// The default store: tantivy in a local folder.
pub struct EmbeddedStore {
    dir: PathBuf,
    manifest: Manifest,
    index: Index,
    reader: IndexReader,
    writer: Option<IndexWriter>,
    /// Ids put since the last commit, so that `remove` also cancels a staged put.
    staged: std::collections::HashSet<DocId>,
    f: Fields,
    vectors: Vectors,
    /// Vectors of section profiles, beside the chunks' and published with them.
    section_vectors: Vectors,
    /// The manifest changed (first vectors) and must be written with the next commit.
    manifest_dirty: bool,
    /// [`CommitPayload::external`] of the last commit.
    external: Option<String>,
    /// Something was staged since the last commit.
    pending: bool,
    /// Why writes staged since the last commit were undone, reported by every write until
    /// the next commit (`recover.rs`).
    failed: Option<String>,
}

/// A tantivy error as an index error; a full disk names the fix, and a damaged or unreadable
/// file the repair.
fn tv(dir: &Path) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
    use tantivy::TantivyError::{DataCorruption, IoError};
    move |e| {
        let reason = match e {
            e if recover::out_of_space(&format!("{e:?}")) => {
                format!("no space left on device ({e}); {}", recover::NO_SPACE_FIX)
            }
            DataCorruption(_) | IoError(_) => {
                format!("{e}; the index may be damaged: run `strata check` on it, and if it names damaged files, ingest the same documents into a new index")
            }
            e => e.to_string(),
        };
        Error::Index { path: dir.to_path_buf(), reason }
    }
}

impl EmbeddedStore {
    /// Opens an existing index for reading.
    pub fn open(dir: &Path) -> Result<EmbeddedStore> {
        let manifest = Manifest::read(dir)?.ok_or_else(|| Error::Index {
            path: dir.to_path_buf(),
            reason: "no strata index here; run `strata ingest PATH` first, or pass --index DIR".into(),
        })?;
        Self::open_with(dir, manifest)
    }

    /// Opens an index for writing, creating it when the folder has none. An existing index
    /// must have been built with the same settings as `wanted`, and keep its vectors here: a
    /// folder whose vectors an external engine keeps is refused (writing it as an embedded
    /// index would leave that engine's vectors of replaced documents live).
    pub fn open_or_create(dir: &Path, wanted: Manifest) -> Result<EmbeddedStore> {
        let store = Self::open_or_create_external(dir, wanted)?;
        if store.external.is_some() {
            return Err(Self::vectors_elsewhere(dir));
        }
        Ok(store)
    }

    /// [`EmbeddedStore::open_or_create`] for a store that keeps this index's vectors in an
    /// external engine and the rest here, as its side index (`strata-milvus`).
    pub fn open_or_create_external(dir: &Path, wanted: Manifest) -> Result<EmbeddedStore> {
        let manifest = match Manifest::read(dir)? {
            Some(existing) => {
                existing.check_compatible(&wanted, dir)?;
                existing
            }
            None => {
                let tdir = dir.join("tantivy");
                std::fs::create_dir_all(&tdir)
                    .map_err(|e| Error::io(format!("creating {}", tdir.display()), e))?;
                let (schema, _) = Fields::build();
                if Index::open_in_dir(&tdir).is_err() {
                    Index::create_in_dir(&tdir, schema).map_err(tv(dir))?;
                }
                wanted.write(dir)?;
                wanted
            }
        };
        let mut store = Self::open_with(dir, manifest)?;
        let writer = store.index.writer(WRITER_HEAP).map_err(|e| match e {
            tantivy::TantivyError::LockFailure(..) => Error::Index {
                path: dir.to_path_buf(),
                reason: "another process is writing to this index; wait for it to finish".into(),
            },
            e => tv(dir)(e),
        })?;
        store.writer = Some(writer);
        // A process that died mid-commit, or a commit that failed, may have left files.
        let _ = store.collect_orphans();
        Ok(store)
    }

    fn open_with(dir: &Path, manifest: Manifest) -> Result<EmbeddedStore> {
        let index = Index::open_in_dir(dir.join("tantivy")).map_err(tv(dir))?;
        let f = match (Fields::build(), Fields::build_v1()) {
            ((schema, f), _) if index.schema() == schema => f,
            (_, (schema, f)) if index.schema() == schema => f,
            _ => {
                return Err(Error::Index {
                    path: dir.to_path_buf(),
                    reason: "its tantivy schema differs from this strata's; re-create the index".into(),
                })
            }
        };
        let (reader, committed) = Self::reader_and_payload(&index, dir)?;
        let vectors = Vectors::open(dir, None, committed.vectors, DEFAULT_ANN_THRESHOLD)?;
        let section_vectors =
            Vectors::open(dir, Some("sections"), committed.sections, DEFAULT_ANN_THRESHOLD)?;
        Ok(EmbeddedStore {
            dir: dir.to_path_buf(),
            manifest,
            index,
            reader,
            writer: None,
            staged: Default::default(),
            f,
            vectors,
            section_vectors,
            manifest_dirty: false,
            external: committed.external,
            pending: false,
            failed: None,
        })
    }

    /// A reader of the last commit and that commit's payload. They are read one after the
    /// other, so a commit landing in between would pair the records of one commit with the
    /// vectors of the next; the pair is read again until both are of the same commit.
    fn reader_and_payload(index: &Index, dir: &Path) -> Result<(IndexReader, CommitPayload)> {
        let mut tries = 0;
        loop {
            let metas = index.load_metas().map_err(tv(dir))?;
            let reader: IndexReader =
                index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(tv(dir))?;
            let segments: std::collections::BTreeMap<_, _> =
                metas.segments.iter().map(|s| (s.id(), s.delete_opstamp())).collect();
            tries += 1;
            // A writer committing many times a second could keep them apart forever; after a
            // few tries the commits are so small and close that either pairing serves.
            if reader.searcher().generation().segments() == &segments || tries == 8 {
                return Ok((reader, Self::committed_vectors(&metas, dir)?));
            }
        }
    }

    fn vectors_elsewhere(dir: &Path) -> Error {
        Error::Index {
            path: dir.to_path_buf(),
            reason: "its vectors are kept by an external engine (Milvus), not in this folder; \
                     open it with [store] kind = \"milvus\" and the engine's url"
                .into(),
        }
    }

    /// The vector states of a commit.
    fn committed_vectors(metas: &tantivy::IndexMeta, dir: &Path) -> Result<CommitPayload> {
        match metas.payload.as_deref() {
            None | Some("") => Ok(CommitPayload::default()),
            Some(text) => serde_json::from_str::<CommitPayload>(text).map_err(|e| Error::Index {
                path: dir.to_path_buf(),
                reason: format!("the last commit's vector state is damaged ({e}); re-create the index"),
            }),
        }
    }

    /// Sets the number of vectors above which a vector segment gets an HNSW graph (default
    /// [`DEFAULT_ANN_THRESHOLD`]); below it, dense search scans every vector exactly.
    pub fn set_ann_threshold(&mut self, rows: usize) {
        self.vectors.set_ann_threshold(rows);
        self.section_vectors.set_ann_threshold(rows);
    }

    /// The state of the external vector engine that holds this index's vectors, as the last
    /// commit published it ([`EmbeddedStore::commit_external`]); `None` when the vectors
    /// are local.
    pub fn external(&self) -> Option<&str> {
        self.external.as_deref()
    }

    /// Records that this index's vectors are of `model` (`dim` dimensions) although they are
    /// kept by an external engine, not in this folder: the manifest names the model from the
    /// next commit on, and vectors of another model are refused.
    pub fn adopt_dense(&mut self, model: &str, dim: usize) -> Result<()> {
        self.manifest.check_dense(model, dim, &self.dir)?;
        if self.manifest.dense.is_none() {
            self.manifest.dense = Some(DenseManifest { model: model.to_string(), dim });
            self.manifest_dirty = true;
        }
        Ok(())
    }

    /// Commits like [`StoreWrite::commit`] and publishes `external`, the state of the
    /// external vector engine that holds this index's vectors, atomically with the records.
    /// It is the commit point of a store that writes its vectors elsewhere: what it names
    /// must be durable there before this is called.
    ///
    /// [`StoreWrite::commit`]: crate::StoreWrite::commit
    pub fn commit_external(&mut self, external: &str) -> Result<()> {
        self.commit_payload(Some(external.to_string()))
    }

    /// Live vectors in the last commit.
    pub fn vector_count(&self) -> usize {
        self.vectors.len()
    }

    /// The index folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Total size of the index files in bytes.
    pub fn size_on_disk(&self) -> u64 {
        fn walk(p: &Path) -> u64 {
            std::fs::read_dir(p)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| match e.metadata() {
                            Ok(m) if m.is_dir() => walk(&e.path()),
                            Ok(m) => m.len(),
                            Err(_) => 0,
                        })
                        .sum()
                })
                .unwrap_or(0)
        }
        walk(&self.dir)
    }
}
