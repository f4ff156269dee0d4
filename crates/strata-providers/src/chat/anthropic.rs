//! The Anthropic Messages API wire format.
//!
//! Request: `{"model", "max_tokens", "temperature": 0, "messages": [{"role": "user",
//! "content": [{"type": "text", "text": SHARED, "cache_control": {"type": "ephemeral"}},
//! {"type": "text", "text": TEXT}]}]}`. Answer: `{"content": [{"type": "text", "text"}],
//! "usage": {"input_tokens", "output_tokens", "cache_creation_input_tokens",
//! "cache_read_input_tokens"}}`.

use serde_json::{json, Value};
use strata_model::context::Usage;

use super::Prompt;

/// The `anthropic-version` header.
pub const VERSION: &str = "2023-06-01";

/// The request body of `prompt`.
pub fn request(model: &str, max_tokens: u32, prompt: &Prompt<'_>) -> Value {
    let mut content = Vec::new();
    if let Some(shared) = prompt.shared {
        content.push(json!({"type": "text", "text": shared, "cache_control": {"type": "ephemeral"}}));
    }
    content.push(json!({"type": "text", "text": prompt.text}));
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [{"role": "user", "content": content}],
    })
}

/// The text and usage of an answer.
pub fn response(json: &Value) -> Result<(String, Usage), String> {
    let blocks = json.get("content").and_then(Value::as_array).ok_or("no \"content\" list")?;
    let text: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() {
        return Err("no text block in \"content\"".into());
    }
    let usage = json.get("usage");
    let n = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_u64).unwrap_or(0);
    Ok((
        text.concat().trim().to_string(),
        Usage {
            calls: 1,
            input: n("input_tokens"),
            cache_write: n("cache_creation_input_tokens"),
            cache_read: n("cache_read_input_tokens"),
            output: n("output_tokens"),
        },
    ))
}
