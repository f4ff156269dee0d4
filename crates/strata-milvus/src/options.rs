//! How to reach the engine and what to call this index's collections there.

use std::time::Duration;

use strata_core::{Error, Result};

/// Where a Milvus-backed index keeps its vectors.
#[derive(Clone)]
pub struct MilvusOptions {
    /// The server: `http://HOST:PORT` (Milvus, Milvus Lite's server, or Zilliz Cloud).
    pub url: String,
    /// `USER:PASSWORD` or an API key (`STRATA_STORE_TOKEN`); a server without authentication
    /// ignores it. Never printed.
    pub token: Option<String>,
    /// The name the collections of a *new* index start with (`NAME_chunks`, `NAME_sections`);
    /// `None` makes one up. The folder remembers it: an existing index is opened with its own
    /// name or none, another is refused.
    pub collection: Option<String>,
    /// How long one call may take before it is an error.
    pub timeout: Duration,
}

impl MilvusOptions {
    /// Options for the server at `url`, no token, a made-up collection name.
    pub fn new(url: &str) -> MilvusOptions {
        MilvusOptions {
            url: url.to_string(),
            token: None,
            collection: None,
            timeout: Duration::from_secs(60),
        }
    }
}

// The token never reaches a log through `{:?}`.
impl std::fmt::Debug for MilvusOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MilvusOptions")
            .field("url", &redact(&self.url))
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("collection", &self.collection)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// `url` without a password in its user part, for messages.
pub fn redact(url: &str) -> String {
    match url.split_once("://").and_then(|(scheme, rest)| Some((scheme, rest.split_once('@')?))) {
        Some((scheme, (_, host))) => format!("{scheme}://***@{host}"),
        None => url.to_string(),
    }
}

/// The longest collection-name prefix: Milvus allows 255 characters, and `_sections` is added.
const MAX_NAME: usize = 200;

/// Checks a collection-name prefix against Milvus's rule: a letter or `_` first, then letters,
/// digits and `_`.
pub fn check_collection_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && name.len() <= MAX_NAME && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Ok(());
    }
    Err(Error::user(format!(
        "store.collection must start with a letter or _ and hold only letters, digits and _ \
         (at most {MAX_NAME} characters), got {name:?}"
    )))
}

/// A fresh collection-name prefix for a new index: `strata_` and 12 hex digits from the clock
/// and the process id.
pub(crate) fn made_up_name() -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::time::SystemTime::now().hash(&mut h);
    std::process::id().hash(&mut h);
    format!("strata_{:012x}", h.finish() & 0xffff_ffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collection_names_follow_milvus_rules() {
        for good in ["strata", "_x", "contracts_2026"] {
            check_collection_name(good).unwrap();
        }
        for bad in ["", "2026", "my-index", "naïve", &"x".repeat(201)] {
            let e = check_collection_name(bad).unwrap_err().to_string();
            assert!(e.contains("store.collection"), "{e}");
        }
        check_collection_name(&made_up_name()).unwrap();
    }

    #[test]
    fn debug_never_prints_the_token() {
        let o = MilvusOptions { token: Some("root:hunter2".into()), ..MilvusOptions::new("http://h:1") };
        assert!(!format!("{o:?}").contains("hunter2"));
        let o = MilvusOptions::new("https://root:hunter2@milvus.example:19530");
        assert!(!format!("{o:?}").contains("hunter2"));
        assert_eq!(redact("http://127.0.0.1:19530"), "http://127.0.0.1:19530");
    }
}
