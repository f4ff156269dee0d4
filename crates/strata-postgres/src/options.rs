//! How to reach the servers, and how to rank.

use std::str::FromStr;

use strata_core::{Error, Result};

/// How the keyword legs rank (`[store] keyword`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeywordRanking {
    /// BM25 over strata's own postings table, computed as tantivy computes it (the default:
    /// the same ranking as the embedded store).
    #[default]
    Bm25,
    /// PostgreSQL full-text search: a weighted `tsvector` ranked by `ts_rank` (no IDF).
    TsRank,
}

impl FromStr for KeywordRanking {
    type Err = Error;

    fn from_str(s: &str) -> Result<KeywordRanking> {
        match s {
            "bm25" => Ok(KeywordRanking::Bm25),
            "ts_rank" => Ok(KeywordRanking::TsRank),
            other => Err(Error::User(format!(
                "[store] keyword = {other:?} is not a ranking; use \"bm25\" (the default) or \"ts_rank\""
            ))),
        }
    }
}

/// Where a PostgreSQL store lives.
#[derive(Debug, Clone)]
pub struct PgOptions {
    /// The primary, or the coordinator when sharded: `postgres://user@host:port/db`. A
    /// password comes from the URL or from `PGPASSWORD`.
    pub url: String,
    /// A hot standby that answers reads (searches, navigation); writes go to `url`. Reads
    /// there see a commit once the standby has replayed it.
    pub read_url: Option<String>,
    /// Servers to hash-partition the records over by document, through `postgres_fdw` on
    /// `url` (see `shards.rs`). Empty: every table on `url`.
    pub shards: Vec<String>,
    /// Connections kept for reads.
    pub pool_size: u32,
    /// Below this many vectors the dense legs scan exactly; above, they use the HNSW index.
    pub ann_threshold: usize,
    /// How the keyword legs rank.
    pub keyword: KeywordRanking,
}

impl PgOptions {
    /// Options for one server at `url`, with the defaults.
    pub fn new(url: &str) -> PgOptions {
        PgOptions {
            url: url.to_string(),
            read_url: None,
            shards: Vec::new(),
            pool_size: 8,
            ann_threshold: strata_index::DEFAULT_ANN_THRESHOLD,
            keyword: KeywordRanking::Bm25,
        }
    }
}

/// Parses a connection URL, taking a missing password from `PGPASSWORD`.
pub(crate) fn config(url: &str) -> Result<postgres::Config> {
    let mut config = postgres::Config::from_str(url).map_err(|e| {
        Error::User(format!(
            "[store] url {:?} is not a PostgreSQL URL ({e}); write postgres://USER@HOST:PORT/DATABASE",
            redact(url)
        ))
    })?;
    if config.get_password().is_none() {
        if let Ok(password) = std::env::var("PGPASSWORD") {
            config.password(password);
        }
    }
    Ok(config)
}

/// A URL without its password, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    match rest.split_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}")
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(redact("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        let e = config("postgres://u:secret@h:notaport/db").unwrap_err().to_string();
        assert!(!e.contains("secret"), "{e}");
    }

    #[test]
    fn keyword_rankings_parse_and_name_the_choices() {
        assert_eq!("ts_rank".parse::<KeywordRanking>().unwrap(), KeywordRanking::TsRank);
        let e = "bm26".parse::<KeywordRanking>().unwrap_err().to_string();
        assert!(e.contains("bm25") && e.contains("ts_rank"), "{e}");
    }
}
