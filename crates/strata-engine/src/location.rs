//! Where an index lives (`[store]`): a folder (the embedded store), PostgreSQL, or a folder
//! with its vectors in Milvus.
//!
//! Every front-end opens its store through a [`Location`], so the CLI, the server and the
//! eval harness work unchanged on any backend: they only see [`StoreRead`] and
//! [`StoreWrite`].

use std::path::{Path, PathBuf};

use strata_core::config::StoreKind;
use strata_core::{Config, Error, Result};
use strata_index::{EmbeddedStore, Manifest, StoreRead, StoreWrite};
#[cfg(feature = "milvus")]
use strata_milvus::{MilvusOptions, MilvusStore};
#[cfg(feature = "postgres")]
use strata_postgres::{PgOptions, PgStore};

/// Where an index lives.
#[derive(Debug, Clone)]
pub enum Location {
    /// The embedded store in this folder.
    Embedded(PathBuf),
    /// PostgreSQL with pgvector.
    #[cfg(feature = "postgres")]
    Postgres(PgOptions),
    /// Records and keyword legs in this folder, vectors in Milvus.
    #[cfg(feature = "milvus")]
    Milvus(PathBuf, MilvusOptions),
}

impl Location {
    /// The location `[store]` names; `index` is the folder of the embedded store.
    pub fn of(config: &Config, index: &Path) -> Result<Location> {
        let store = &config.store;
        match store.kind {
            #[cfg(feature = "postgres")]
            StoreKind::Postgres => {
                let url = store.url.as_deref().ok_or_else(|| {
                    Error::user("[store] kind = \"postgres\" needs url (or STRATA_STORE_URL)")
                })?;
                Ok(Location::Postgres(Location::postgres_options(config, url)?))
            }
            #[cfg(feature = "milvus")]
            StoreKind::Milvus => {
                let url = store.url.as_deref().ok_or_else(|| {
                    Error::user("[store] kind = \"milvus\" needs url (or STRATA_STORE_URL)")
                })?;
                Ok(Location::Milvus(folder(index)?, Location::milvus_options(config, url)))
            }
            #[cfg(not(feature = "postgres"))]
            StoreKind::Postgres => Err(Error::user(
                "[store] kind = \"postgres\": this strata was built without it; build it with `--features postgres`",
            )),
            #[cfg(not(feature = "milvus"))]
            StoreKind::Milvus => Err(Error::user(
                "[store] kind = \"milvus\": this strata was built without it; build it with `--features milvus`",
            )),
            StoreKind::Embedded => Ok(Location::Embedded(folder(index)?)),
        }
    }

    #[cfg(feature = "postgres")]
    /// A PostgreSQL store at `url` with the rest of `[store]` (and `[dense] ann_threshold`).
    pub fn postgres_options(config: &Config, url: &str) -> Result<PgOptions> {
        let store = &config.store;
        Ok(PgOptions {
            read_url: store.read_url.clone(),
            shards: store.shards.clone(),
            pool_size: store.pool_size,
            ann_threshold: config.dense.ann_threshold,
            keyword: store.keyword,
            ..PgOptions::new(url)
        })
    }

    #[cfg(feature = "milvus")]
    /// Milvus at `url` with the rest of `[store]`, and the token from `STRATA_STORE_TOKEN`.
    pub fn milvus_options(config: &Config, url: &str) -> MilvusOptions {
        MilvusOptions {
            token: std::env::var("STRATA_STORE_TOKEN").ok().filter(|t| !t.is_empty()),
            collection: config.store.collection.clone().filter(|c| !c.is_empty()),
            ..MilvusOptions::new(url)
        }
    }

    /// The folder or the URL (without password), for messages.
    pub fn describe(&self) -> String {
        match self {
            Location::Embedded(dir) => dir.display().to_string(),
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => strata_postgres::redact(&options.url),
            #[cfg(feature = "milvus")]
            Location::Milvus(dir, options) => {
                format!("{} (vectors in Milvus at {})", dir.display(), strata_milvus::redact(&options.url))
            }
        }
    }

    /// The folder of the index's local files, when it has one.
    pub fn dir(&self) -> Option<&Path> {
        match self {
            Location::Embedded(dir) => Some(dir),
            #[cfg(feature = "milvus")]
            Location::Milvus(dir, _) => Some(dir),
            #[cfg(feature = "postgres")]
            Location::Postgres(_) => None,
        }
    }

    /// Documents an ingest writes between two commits: `[ingest] commit_every`, except on
    /// PostgreSQL, where each document is its own transaction.
    pub fn commit_every(&self, config: &Config) -> usize {
        match self {
            #[cfg(feature = "postgres")]
            Location::Postgres(_) => 1,
            _ => config.ingest.commit_every,
        }
    }

    /// The manifest, or `None` when there is no index yet.
    pub fn manifest(&self) -> Result<Option<Manifest>> {
        match self {
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => PgStore::read_manifest(options),
            _ => Manifest::read(self.dir().expect("a folder")),
        }
    }

    /// Opens the index for reading.
    pub fn open(&self) -> Result<Box<dyn StoreRead>> {
        Ok(match self {
            Location::Embedded(dir) => Box::new(EmbeddedStore::open(dir)?),
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => Box::new(PgStore::open(options.clone())?),
            #[cfg(feature = "milvus")]
            Location::Milvus(dir, options) => Box::new(MilvusStore::open(dir, options)?),
        })
    }

    /// Opens the index for writing, creating it when there is none. An existing index must
    /// have been built with `wanted`'s settings.
    pub fn open_or_create(&self, wanted: Manifest, ann_threshold: usize) -> Result<Box<dyn StoreWrite>> {
        Ok(match self {
            Location::Embedded(dir) => {
                let mut store = EmbeddedStore::open_or_create(dir, wanted)?;
                store.set_ann_threshold(ann_threshold);
                Box::new(store)
            }
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => {
                let options = PgOptions { ann_threshold, ..options.clone() };
                Box::new(PgStore::open_or_create(options, wanted)?)
            }
            // Milvus searches its FLAT index exactly; there is no threshold to set.
            #[cfg(feature = "milvus")]
            Location::Milvus(dir, options) => Box::new(MilvusStore::open_or_create(dir, options, wanted)?),
        })
    }

    /// Drops what an index keeps outside its folder: PostgreSQL's strata tables, Milvus's
    /// collections (eval, which builds each index anew). An embedded index has nothing there.
    pub fn destroy(&self) -> Result<()> {
        match self {
            Location::Embedded(_) => Ok(()),
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => PgStore::destroy(options),
            #[cfg(feature = "milvus")]
            Location::Milvus(dir, options) => MilvusStore::destroy(dir, options),
        }
    }

    /// The index's size: its folder's (a Milvus-backed index counts its folder only: the
    /// vectors' size is the engine's), or PostgreSQL's tables.
    pub fn size_on_disk(&self) -> Result<u64> {
        match self {
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => PgStore::open(options.clone())?.size_on_disk(),
            _ => Ok(EmbeddedStore::open(self.dir().expect("a folder"))?.size_on_disk()),
        }
    }

    /// What identifies the last commit without opening the index (the embedded store's
    /// `meta.json`, also for Milvus, whose generation it publishes; PostgreSQL's commit
    /// counter), so that a server notices another process's
    /// commits. `None` when it cannot be read.
    pub fn stamp(&self) -> Option<String> {
        match self {
            #[cfg(feature = "postgres")]
            Location::Postgres(options) => PgStore::commit_stamp(options).ok().flatten(),
            _ => {
                let meta = std::fs::metadata(self.dir()?.join("tantivy").join("meta.json")).ok()?;
                Some(format!("{:?}/{}", meta.modified().ok()?, meta.len()))
            }
        }
    }
}

/// `index` as an index folder: refused when it is empty (an ingest would write into the
/// working directory) or names something other than a folder.
fn folder(index: &Path) -> Result<PathBuf> {
    if index.as_os_str().is_empty() || index.to_str().is_some_and(|s| s.trim().is_empty()) {
        return Err(Error::user(format!(
            "the index path {:?} is empty; give the folder of the index, such as .strata",
            index.as_os_str()
        )));
    }
    if index.exists() && !index.is_dir() {
        return Err(Error::user(format!(
            "the index path {} is not a folder; give the folder of the index, such as .strata",
            index.display()
        )));
    }
    Ok(index.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 55: `Index("")` wrote `manifest.json` and `tantivy/` into the working directory.
    /// An empty path, or one that names a file, is a user error naming it, before anything
    /// is written.
    #[test]
    fn regression_an_empty_or_file_index_path_is_refused() {
        let config = Config::default();
        for empty in ["", "  "] {
            let err = Location::of(&config, Path::new(empty)).unwrap_err();
            assert!(matches!(err, Error::User(_)) && err.to_string().contains("is empty"), "{err}");
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        let err = Location::of(&config, file.path()).unwrap_err().to_string();
        assert!(err.contains(&file.path().display().to_string()) && err.contains("not a folder"), "{err}");
        assert!(
            Location::of(&config, Path::new(".strata-not-yet")).is_ok(),
            "an absent folder is created later"
        );
    }
}
