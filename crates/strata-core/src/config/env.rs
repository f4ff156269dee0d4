//! Environment overrides: how the text of a `STRATA_*` variable becomes a value.
//!
//! Each reader takes the variable's name and its text; its error names both.

use std::path::PathBuf;
use std::str::FromStr;

use crate::{Error, Result};

/// What `get` returns for a variable: its text, or `None` when it is unset.
pub(super) type Get<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Sets `slot` from the variable `key`, read by `read`, when the variable is set.
pub(super) fn set<T>(get: Get, key: &str, slot: &mut T, read: fn(&str, String) -> Result<T>) -> Result<()> {
    if let Some(value) = get(key) {
        *slot = read(key, value)?;
    }
    Ok(())
}

/// A number.
pub(super) fn number<T: FromStr>(key: &str, v: String) -> Result<T> {
    v.trim()
        .parse()
        .map_err(|_| Error::user(format!("environment variable {key} must be a number, got {v:?}")))
}

/// `true`, `1`, `yes`, `on` or `false`, `0`, `no`, `off`, in any case.
pub(super) fn flag(key: &str, v: String) -> Result<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(Error::user(format!("environment variable {key} must be true or false, got {v:?}"))),
    }
}

/// One of the names of a config enum, read by its `FromStr` (the one TOML reads with).
pub(super) fn named<T: FromStr<Err = Error>>(key: &str, v: String) -> Result<T> {
    super::parse_in(&v, &format!("environment variable {key}"))
}

/// The text as it is.
pub(super) fn text(_key: &str, v: String) -> Result<String> {
    Ok(v)
}

/// The text, or `None` when it is empty.
pub(super) fn optional(_key: &str, v: String) -> Result<Option<String>> {
    Ok(Some(v).filter(|v| !v.is_empty()))
}

/// A comma-separated list (`auto,sec`), each entry trimmed; the empty text is the empty
/// list.
pub(super) fn list(_key: &str, v: String) -> Result<Vec<String>> {
    Ok(v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect())
}

/// A path, or `None` when the text is empty.
pub(super) fn path(_key: &str, v: String) -> Result<Option<PathBuf>> {
    Ok(Some(v).filter(|v| !v.is_empty()).map(PathBuf::from))
}
