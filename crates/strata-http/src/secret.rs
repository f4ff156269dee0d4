//! API keys: read from the environment, never printed. Shared by every HTTP client of
//! strata (the embedder of `strata-embed`, the chat models and `/rerank` APIs of
//! `strata-providers`).

use std::fmt;

use strata_core::{Error, Result};

/// An API key. `Debug` prints `***` and there is no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(pub(crate) String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl ApiKey {
    /// The key in environment variable `var`; `None` when it is unset or blank (local
    /// servers need none). A key an HTTP header cannot carry is an error naming the variable.
    pub fn from_env(var: &str) -> Result<Option<ApiKey>> {
        match std::env::var(var) {
            Ok(key) if !key.trim().is_empty() => {
                let key = key.trim().to_string();
                if !key.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(Error::user(format!(
                        "the API key in environment variable {var} has characters an HTTP header cannot carry"
                    )));
                }
                Ok(Some(ApiKey(key)))
            }
            _ => Ok(None),
        }
    }

    /// The key itself, for a header; never for a message.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        text.replace(self.0.as_str(), "***")
    }
}

/// `text` with `key` cut out, when there is one.
pub fn redact(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(key) => key.redact(text),
        None => text.to_string(),
    }
}
