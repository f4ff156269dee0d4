//! The configuration an `Index` opens with: a strata.toml (the one named, else
//! `./strata.toml` when there is one, as for the CLI), then the `STRATA_*` environment, then
//! the settings given in Python, which win. `tests/test_index.py` checks each layer.

use std::path::Path;

use serde_json::Value;
use strata_core::{Config, Error, Result};

/// Loads `file` (or `./strata.toml`, or the defaults) with the environment, and applies
/// `overrides`: a JSON object of sections spelled as in strata.toml (`{"search": {"k": 5}}`).
/// An unknown key or a bad value is a user error naming it.
pub fn build(file: Option<&Path>, overrides: &str) -> Result<Config> {
    let config = Config::load(file)?;
    let overrides: Value = serde_json::from_str(overrides)
        .map_err(|e| Error::Internal(format!("the settings did not arrive as JSON: {e}")))?;
    if overrides.as_object().is_none_or(|o| o.is_empty()) {
        return Ok(config);
    }
    let mut merged = serde_json::to_value(&config)
        .map_err(|e| Error::Internal(format!("the configuration does not serialize: {e}")))?;
    merge(&mut merged, overrides.clone());
    let mut out: Config =
        serde_json::from_value(merged).map_err(|e| Error::user(format!("Index settings: {e}")))?;
    // API keys are never serialized; keep the loaded ones unless the settings give some.
    if overrides.pointer("/serve/api_keys").is_none() {
        out.serve.api_keys = config.serve.api_keys;
    }
    out.validate("the Index settings")?;
    Ok(out)
}

/// Merges `over` into `base`: objects key by key, anything else replaced.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (slot, value) => *slot = value,
    }
}
