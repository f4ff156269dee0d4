//! How to reach the servers, and how to rank.

use std::str::FromStr;

use strata_core::{Error, Result};

/// How the keyword legs rank (`[store] keyword`): defined with the configuration.
pub use strata_core::config::KeywordRanking;

/// Where a PostgreSQL store lives.
#[derive(Clone)]
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

/// A URL without its password, for messages: `postgres://USER@HOST:PORT/DATABASE` as the
/// driver parses it (a password in the user part or in `?password=` never shows), or the
/// scheme alone when it does not parse.
pub fn redact(url: &str) -> String {
    use postgres::config::Host;
    let Ok(config) = postgres::Config::from_str(url) else {
        let scheme = url.split_once("://").map_or("postgres", |(s, _)| s);
        return format!("{scheme}://(a URL that does not parse)");
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(h, port)| match h {
            Host::Tcp(h) => format!("{h}:{port}"),
            Host::Unix(p) => p.display().to_string(),
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or(""),
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

// URLs carry passwords: `{:?}` shows them redacted.
impl std::fmt::Debug for PgOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgOptions")
            .field("url", &redact(&self.url))
            .field("read_url", &self.read_url.as_deref().map(redact))
            .field("shards", &self.shards.iter().map(|s| redact(s)).collect::<Vec<_>>())
            .field("pool_size", &self.pool_size)
            .field("ann_threshold", &self.ann_threshold)
            .field("keyword", &self.keyword)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(redact("postgres://u:secret@h:5433/db"), "postgres://u@h:5433/db");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h:5432/db");
        assert_eq!(redact("postgres://u@h/db?password=secret"), "postgres://u@h:5432/db");
        let shown = format!(
            "{:?}",
            PgOptions {
                shards: vec!["postgres://u:secret@s/db".into()],
                ..PgOptions::new("postgres://u:secret@h/db")
            }
        );
        assert!(!shown.contains("secret"), "{shown}");
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
