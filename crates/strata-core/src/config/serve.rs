//! `[serve]`: the HTTP API and MCP server of `strata serve`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// `[serve]`
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeConfig {
    /// Address to listen on. Default `127.0.0.1:7700`.
    pub addr: String,
    /// API keys accepted as `Authorization: Bearer KEY`; `STRATA_API_KEYS` (comma-separated)
    /// adds more. Each entry is `KEY` or `write:KEY` (full rights) or `read:KEY` (search and
    /// navigate only; see [`ApiKey::parse`]). Without any, the server only listens on loopback
    /// unless `public` is true. Never serialized.
    #[serde(skip_serializing)]
    pub api_keys: Vec<String>,
    /// Listen on a non-loopback address without API keys. Default false.
    pub public: bool,
    /// Folders path-based ingest may read from; none turns path ingest off. Uploads are
    /// always accepted (they are written under the index folder).
    pub roots: Vec<PathBuf>,
    /// Largest request body (an upload), in bytes. Default 64 MiB.
    pub max_body_bytes: usize,
    /// Longest query, in characters. Default 2000.
    pub max_query_chars: usize,
    /// Seconds a request may take before it is answered 408. Default 30.
    pub request_timeout_secs: u64,
    /// Seconds a client has to send a request's line and headers, counted from when the
    /// server starts waiting for them (so an idle kept-alive connection is closed after as
    /// long); a client that trickles its headers is disconnected. Default 10.
    pub header_timeout_secs: u64,
    /// Searches computed at once; more wait their turn (the wait counts toward the request
    /// timeout). 0, the default, means two per core: on two cores that served 116 searches/s
    /// at p99 0.73 s to 64 clients, against 85/s at one per core and 100/s at p99 2.3 s
    /// unbounded (`bench/results/serve-load.md`).
    pub max_concurrent_searches: usize,
    /// Ingest jobs queued or running at once; more are refused with 429. Default 4.
    pub max_ingest_jobs: usize,
    /// Finished ingest jobs whose status is kept. Default 100.
    pub keep_jobs: usize,
    /// Seconds a shutdown (Ctrl-C, SIGTERM) waits for the requests in flight and for the
    /// running ingest job to finish the file it is on; then the server exits whatever is
    /// left. Default 10.
    pub shutdown_grace_secs: u64,
    /// MCP sessions open at once on `/mcp`, all clients together; an `initialize` past it
    /// is refused with a JSON-RPC error. Default 256.
    pub max_mcp_sessions: usize,
    /// MCP sessions open at once for one API key (or, without keys, for everyone). Default 32.
    pub max_mcp_sessions_per_key: usize,
    /// Seconds an MCP session may go without a request before it is closed and its memory
    /// freed. Default 300.
    pub mcp_idle_secs: u64,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            addr: "127.0.0.1:7700".into(),
            api_keys: Vec::new(),
            public: false,
            roots: Vec::new(),
            max_body_bytes: 64 << 20,
            max_query_chars: 2000,
            request_timeout_secs: 30,
            header_timeout_secs: 10,
            max_concurrent_searches: 0,
            max_ingest_jobs: 4,
            keep_jobs: 100,
            shutdown_grace_secs: 10,
            max_mcp_sessions: 256,
            max_mcp_sessions_per_key: 32,
            mcp_idle_secs: 300,
        }
    }
}

// Keys never reach a log through `{:?}`.
impl std::fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeConfig")
            .field("addr", &self.addr)
            .field("api_keys", &format_args!("[{} keys]", self.api_keys.len()))
            .field("public", &self.public)
            .field("roots", &self.roots)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_query_chars", &self.max_query_chars)
            .field("request_timeout_secs", &self.request_timeout_secs)
            .field("header_timeout_secs", &self.header_timeout_secs)
            .field("max_concurrent_searches", &self.max_concurrent_searches)
            .field("max_ingest_jobs", &self.max_ingest_jobs)
            .field("keep_jobs", &self.keep_jobs)
            .field("shutdown_grace_secs", &self.shutdown_grace_secs)
            .field("max_mcp_sessions", &self.max_mcp_sessions)
            .field("max_mcp_sessions_per_key", &self.max_mcp_sessions_per_key)
            .field("mcp_idle_secs", &self.mcp_idle_secs)
            .finish()
    }
}

impl ServeConfig {
    /// Checks every value; the error names the key, the value and `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let bad = |key: &str, rule: &str, got: String| {
            Err(Error::user(format!("serve.{key} {rule}, got {got} ({origin})")))
        };
        if self.addr.parse::<std::net::SocketAddr>().is_err() {
            return bad("addr", "must be IP:PORT (127.0.0.1:7700, [::1]:7700)", format!("{:?}", self.addr));
        }
        self.keys().map_err(|e| Error::user(format!("{e} ({origin})")))?;
        if self.max_body_bytes < 1024 {
            return bad("max_body_bytes", "must be at least 1024", self.max_body_bytes.to_string());
        }
        if !(1..=100_000).contains(&self.max_query_chars) {
            return bad("max_query_chars", "must be between 1 and 100000", self.max_query_chars.to_string());
        }
        if !(1..=3600).contains(&self.request_timeout_secs) {
            return bad(
                "request_timeout_secs",
                "must be between 1 and 3600",
                self.request_timeout_secs.to_string(),
            );
        }
        if !(1..=3600).contains(&self.header_timeout_secs) {
            return bad(
                "header_timeout_secs",
                "must be between 1 and 3600",
                self.header_timeout_secs.to_string(),
            );
        }
        if !(1..=600).contains(&self.shutdown_grace_secs) {
            return bad(
                "shutdown_grace_secs",
                "must be between 1 and 600",
                self.shutdown_grace_secs.to_string(),
            );
        }
        if !(1..=100_000).contains(&self.max_mcp_sessions) {
            return bad(
                "max_mcp_sessions",
                "must be between 1 and 100000",
                self.max_mcp_sessions.to_string(),
            );
        }
        if !(1..=self.max_mcp_sessions).contains(&self.max_mcp_sessions_per_key) {
            return bad(
                "max_mcp_sessions_per_key",
                &format!("must be between 1 and max_mcp_sessions ({})", self.max_mcp_sessions),
                self.max_mcp_sessions_per_key.to_string(),
            );
        }
        if !(1..=86_400).contains(&self.mcp_idle_secs) {
            return bad("mcp_idle_secs", "must be between 1 and 86400", self.mcp_idle_secs.to_string());
        }
        if !(1..=64).contains(&self.max_ingest_jobs) {
            return bad("max_ingest_jobs", "must be between 1 and 64", self.max_ingest_jobs.to_string());
        }
        Ok(())
    }

    /// Searches computed at once: `max_concurrent_searches`, or two per core when 0.
    pub fn search_slots(&self) -> usize {
        match self.max_concurrent_searches {
            0 => 2 * std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2),
            n => n,
        }
    }

    /// Adds the keys of `STRATA_API_KEYS` (comma-separated, blanks ignored; each entry as in
    /// `api_keys`, an error naming its place in the variable). A value that is not blank but
    /// holds no key (`","`) is an error: it means keys were meant, and starting without any
    /// would be silent.
    pub fn add_env_keys(&mut self, value: &str) -> Result<()> {
        let keys: Vec<String> =
            value.split(',').map(str::trim).filter(|k| !k.is_empty()).map(String::from).collect();
        if keys.is_empty() && !value.trim().is_empty() {
            // Only commas and blanks: nothing secret to hide.
            return Err(Error::user(format!(
                "STRATA_API_KEYS = {value:?} holds no key: give keys separated by commas (KEY1,KEY2), \
                 or unset it to use only [serve] api_keys"
            )));
        }
        for (i, entry) in keys.iter().enumerate() {
            ApiKey::parse(entry, &format!("STRATA_API_KEYS entry {}", i + 1))?;
        }
        self.api_keys.extend(keys);
        Ok(())
    }

    /// The keys of `api_keys` with their scopes. An entry whose scope is neither `read` nor
    /// `write`, a key under 16 characters, or one key given twice with two scopes is an error
    /// naming the entry by its place (never its text: it is a secret).
    pub fn keys(&self) -> Result<Vec<ApiKey>> {
        let mut keys: Vec<ApiKey> = Vec::with_capacity(self.api_keys.len());
        for (i, entry) in self.api_keys.iter().enumerate() {
            let key = ApiKey::parse(entry, &format!("serve.api_keys entry {}", i + 1))?;
            if let Some(j) = keys.iter().position(|k| k.key == key.key && k.scope != key.scope) {
                return Err(Error::user(format!(
                    "serve.api_keys entries {} and {} (STRATA_API_KEYS adds its keys after those of \
                     the file) hold the same key with two scopes: keep one of them",
                    j + 1,
                    i + 1
                )));
            }
            keys.push(key);
        }
        Ok(keys)
    }
}

/// What an API key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyScope {
    /// Search and navigate: every `GET`, `POST /v1/search` and `/mcp` (whose tools only
    /// read). Ingest, upload and removal are refused with 403.
    Read,
    /// Everything, as a key without a scope.
    Write,
}

/// One entry of `[serve] api_keys` or `STRATA_API_KEYS`: the key and its scope.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// What the key may do.
    pub scope: KeyScope,
    /// The key, as sent in `Authorization: Bearer KEY`.
    pub key: String,
}

// The key never reaches a log through `{:?}`.
impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({:?}, {} characters)", self.scope, self.key.len())
    }
}

impl ApiKey {
    /// Reads `read:KEY`, `write:KEY` or `KEY` (full rights, as before scopes existed). Text
    /// before a first `:` is a scope, so a key that itself holds `:` is written with one
    /// (`write:KEY`). `place` names the entry in errors, which never show its text.
    pub fn parse(entry: &str, place: &str) -> Result<ApiKey> {
        let entry = entry.trim();
        let (scope, key) = match entry.split_once(':') {
            None => (KeyScope::Write, entry),
            Some((scope, key)) => match scope.trim() {
                "read" => (KeyScope::Read, key.trim()),
                "write" => (KeyScope::Write, key.trim()),
                _ => {
                    return Err(Error::user(format!(
                        "{place} has a scope (the text before its first ':', not shown with the key) \
                         that is neither read nor write: write read:KEY for a key that may only search \
                         and navigate, write:KEY or KEY for full rights; a key that itself holds ':' \
                         needs a scope in front (write:KEY)"
                    )))
                }
            },
        };
        if key.len() < 16 {
            return Err(Error::user(format!(
                "{place} is a key of {} characters; keys must be at least 16 characters each \
                 (openssl rand -hex 32 makes one)",
                key.len()
            )));
        }
        Ok(ApiKey { scope, key: key.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_keys() {
        let mut c = ServeConfig::default();
        c.add_env_keys(" k-0123456789abcdef , ,k-fedcba9876543210").unwrap();
        assert_eq!(c.api_keys, ["k-0123456789abcdef", "k-fedcba9876543210"]);
        let shown = format!("{c:?}");
        assert!(!shown.contains("0123456789abcdef"), "{shown}");
        assert!(shown.contains("[2 keys]"), "{shown}");
    }

    #[test]
    fn api_keys_env_of_only_commas_is_an_error_not_zero_keys() {
        let mut c = ServeConfig::default();
        for value in [",", " , ,"] {
            let err = c.add_env_keys(value).unwrap_err().to_string();
            assert!(err.contains("STRATA_API_KEYS") && err.contains(&format!("{value:?}")), "{err}");
        }
        // Blank is the same as unset.
        c.add_env_keys("  ").unwrap();
        assert!(c.api_keys.is_empty());
    }

    #[test]
    fn short_keys_and_bad_addresses_are_refused() {
        let mut c = ServeConfig { api_keys: vec!["short".into()], ..ServeConfig::default() };
        assert!(c.validate("t").unwrap_err().to_string().contains("serve.api_keys"));
        c.api_keys.clear();
        c.addr = "localhost:7700".into();
        assert!(c.validate("t").unwrap_err().to_string().contains("serve.addr"));
    }

    #[test]
    fn api_key_scopes_read_write_and_unprefixed_full_rights() {
        let c = ServeConfig {
            api_keys: vec![
                "k-0123456789abcdef".into(),
                " read:k-1111111111111111 ".into(),
                "write: k-2222222222222222".into(),
                "write:k:with:colons:3333".into(),
            ],
            ..ServeConfig::default()
        };
        c.validate("t").unwrap();
        let keys: Vec<(KeyScope, String)> = c.keys().unwrap().into_iter().map(|k| (k.scope, k.key)).collect();
        assert_eq!(
            keys,
            [
                (KeyScope::Write, "k-0123456789abcdef".to_string()),
                (KeyScope::Read, "k-1111111111111111".to_string()),
                (KeyScope::Write, "k-2222222222222222".to_string()),
                (KeyScope::Write, "k:with:colons:3333".to_string()),
            ]
        );
        let mut env = ServeConfig::default();
        env.add_env_keys("read:k-1111111111111111,k-0123456789abcdef").unwrap();
        assert_eq!(env.keys().unwrap()[0].scope, KeyScope::Read);
        assert!(!format!("{:?}", env.keys().unwrap()).contains("1111"));
    }

    /// A bad scope names the entry and the fix, never the entry's text (it is a secret).
    #[test]
    fn bad_key_scope_is_named_by_entry_without_echoing_the_key() {
        let secret = "k-0123456789abcdef";
        for scope in ["reed", "READ", "admin", ""] {
            let c = ServeConfig {
                api_keys: vec![format!("read:{secret}"), format!("{scope}:{secret}")],
                ..ServeConfig::default()
            };
            let err = c.validate("strata.toml").unwrap_err().to_string();
            assert!(err.contains("serve.api_keys entry 2") && err.contains("strata.toml"), "{err}");
            assert!(err.contains("read:KEY") && err.contains("write:KEY"), "{err}");
            assert!(!err.contains(secret) && (scope.is_empty() || !err.contains(scope)), "{err}");

            let mut env = ServeConfig::default();
            let err = env.add_env_keys(&format!("write:{secret},{scope}:{secret}")).unwrap_err().to_string();
            assert!(err.contains("STRATA_API_KEYS entry 2") && !err.contains(secret), "{err}");
        }
        let short = ServeConfig { api_keys: vec!["read:short".into()], ..ServeConfig::default() };
        let err = short.validate("t").unwrap_err().to_string();
        assert!(err.contains("serve.api_keys entry 1 is a key of 5 characters"), "{err}");
        let twice = ServeConfig {
            api_keys: vec![format!("read:{secret}"), format!("write:{secret}")],
            ..ServeConfig::default()
        };
        let err = twice.validate("t").unwrap_err().to_string();
        assert!(err.contains("entries 1 and 2") && !err.contains(secret), "{err}");
    }
}
