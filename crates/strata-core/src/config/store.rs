//! `[store]`: where the index lives.

use serde::{Deserialize, Serialize};

use super::names::named;
use crate::{Error, Result};

/// Store kinds.
pub const STORE_KINDS: &[&str] = StoreKind::NAMES;

named! {
    /// Where the index lives (`[store] kind`).
    pub enum StoreKind in "[store] kind" {
        /// Tantivy and vector files in the `--index` folder (the default).
        Embedded = "embedded",
        /// Everything in PostgreSQL with pgvector at `url`.
        Postgres = "postgres",
        /// Vectors in Milvus at `url`, records and the keyword legs in the `--index` folder.
        Milvus = "milvus",
    }
}

named! {
    /// How the keyword legs rank on PostgreSQL (`[store] keyword`).
    #[derive(Default)]
    pub enum KeywordRanking in "[store] keyword" {
        /// BM25 over strata's own postings table, computed as tantivy computes it (the default:
        /// the same ranking as the embedded store).
        #[default]
        Bm25 = "bm25",
        /// PostgreSQL full-text search: a weighted `tsvector` ranked by `ts_rank` (no IDF).
        TsRank = "ts_rank",
    }
}

/// `[store]`
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreConfig {
    /// `embedded` (the default: tantivy and vector files in the `--index` folder),
    /// `postgres` (everything in PostgreSQL with pgvector at `url`) or `milvus` (vectors in
    /// Milvus at `url`, records and the keyword legs in the `--index` folder).
    pub kind: StoreKind,
    /// The server: `postgres://USER@HOST:PORT/DATABASE` or `http://HOST:PORT` (Milvus).
    /// `STRATA_STORE_URL` overrides it. A PostgreSQL password comes from the URL,
    /// `STRATA_STORE_URL` or `PGPASSWORD`, a Milvus token from `STRATA_STORE_TOKEN`, never from
    /// a file you commit. Never printed with its password.
    pub url: Option<String>,
    /// Milvus: the name the collections of a new index start with (`NAME_chunks`,
    /// `NAME_sections`; `STRATA_STORE_COLLECTION`); by default one is made up. The folder
    /// remembers it: an existing index is opened with its own name or none.
    pub collection: Option<String>,
    /// A hot standby that answers searches and navigation (`STRATA_STORE_READ_URL`).
    pub read_url: Option<String>,
    /// Servers to hash-partition the records over, by document, through `postgres_fdw` on
    /// `url`. Fixed when the index is created.
    pub shards: Vec<String>,
    /// How the keyword legs rank on PostgreSQL: `bm25` (the default: the embedded store's
    /// BM25, computed in SQL) or `ts_rank` (PostgreSQL full-text search, no IDF; measured
    /// against BM25 in `bench/results/eval-backends.md`).
    pub keyword: KeywordRanking,
    /// Connections kept for reads. Default 8.
    pub pool_size: u32,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            kind: StoreKind::Embedded,
            url: None,
            collection: None,
            read_url: None,
            shards: Vec::new(),
            keyword: KeywordRanking::Bm25,
            pool_size: 8,
        }
    }
}

/// A URL without its password (in the user part or in the query string).
fn redact(url: &str) -> String {
    let url = match url.split_once('?') {
        Some((base, _)) => format!("{base}?…"),
        None => url.to_string(),
    };
    match url.split_once("://").and_then(|(scheme, rest)| Some((scheme, rest.split_once('@')?))) {
        Some((scheme, (user, host))) if user.contains(':') => {
            format!("{scheme}://{}:***@{host}", user.split(':').next().unwrap_or_default())
        }
        _ => url,
    }
}

// Passwords in URLs never reach a log through `{:?}`.
impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreConfig")
            .field("kind", &self.kind)
            .field("url", &self.url.as_deref().map(redact))
            .field("collection", &self.collection)
            .field("read_url", &self.read_url.as_deref().map(redact))
            .field("shards", &self.shards.iter().map(|s| redact(s)).collect::<Vec<_>>())
            .field("keyword", &self.keyword)
            .field("pool_size", &self.pool_size)
            .finish()
    }
}

impl StoreConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |key: &str, rule: &str, got: String| {
            Err(Error::user(format!("store.{key} {rule}, got {got} ({origin})")))
        };
        if self.kind == StoreKind::Postgres {
            if self.url.is_none() {
                return bad(
                    "url",
                    "is needed with kind = \"postgres\" (postgres://USER@HOST:PORT/DATABASE, or set STRATA_STORE_URL)",
                    "none".into(),
                );
            }
            let urls = self.url.iter().map(|u| ("url", u));
            let urls = urls.chain(self.read_url.iter().map(|u| ("read_url", u)));
            for (key, url) in urls.chain(self.shards.iter().map(|u| ("shards", u))) {
                if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
                    return bad(key, "must be a URL starting with postgres://", format!("{:?}", redact(url)));
                }
            }
        }
        if self.kind == StoreKind::Milvus {
            match &self.url {
                None => {
                    return bad(
                        "url",
                        "is needed with kind = \"milvus\" (http://HOST:PORT, or set STRATA_STORE_URL)",
                        "none".into(),
                    )
                }
                Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                    return bad(
                        "url",
                        "must be a Milvus URL starting with http:// or https://",
                        format!("{:?}", redact(url)),
                    )
                }
                Some(_) => {}
            }
        }
        if !(1..=256).contains(&self.pool_size) {
            return bad("pool_size", "must be between 1 and 256", self.pool_size.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_passwords() {
        let c = StoreConfig {
            kind: StoreKind::Postgres,
            url: Some("postgres://u:hunter2@db:5432/strata".into()),
            ..StoreConfig::default()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2") && shown.contains("u:***@db"), "{shown}");
        let c = StoreConfig { read_url: Some("postgres://u@db/s?password=hunter2".into()), ..c };
        assert!(!format!("{c:?}").contains("hunter2"));
    }

    #[test]
    fn postgres_needs_a_url_and_kinds_are_named() {
        let c = StoreConfig { kind: StoreKind::Postgres, ..StoreConfig::default() };
        let e = c.validate("t").unwrap_err().to_string();
        assert!(e.contains("store.url") && e.contains("STRATA_STORE_URL"), "{e}");
        let e = "qdrant".parse::<StoreKind>().unwrap_err().to_string();
        assert!(e.contains("embedded, postgres, milvus"), "{e}");
        let c = StoreConfig {
            kind: StoreKind::Milvus,
            url: Some("localhost:19530".into()),
            ..StoreConfig::default()
        };
        let e = c.validate("t").unwrap_err().to_string();
        assert!(e.contains("store.url") && e.contains("http://"), "{e}");
    }

    #[test]
    fn names_round_trip() {
        use crate::config::names::tests::round_trips;
        round_trips(StoreKind::ALL, &["embedded", "postgres", "milvus"], "[store] kind", StoreKind::name);
        round_trips(KeywordRanking::ALL, &["bm25", "ts_rank"], "[store] keyword", KeywordRanking::name);
    }
}
