//! The OpenAI-compatible chat completions wire format (OpenAI, Azure OpenAI, vLLM, Ollama).
//!
//! Request: `{"model", "max_tokens", "temperature": 0, "messages": [{"role": "user",
//! "content": SHARED + "\n\n" + TEXT}]}`: the shared part first, so that prefix caching
//! (OpenAI's automatic one, vLLM's) can reuse it. `max_tokens` rather than
//! `max_completion_tokens`, which vLLM, Ollama and Azure's older API versions do not read.
//! Answer: `{"choices": [{"message": {"content"}}], "usage": {"prompt_tokens",
//! "completion_tokens", "prompt_tokens_details": {"cached_tokens"}}}`.

use serde_json::{json, Value};
use strata_ingest::context::Usage;

use super::Prompt;

/// The request body of `prompt`.
pub fn request(model: &str, max_tokens: u32, prompt: &Prompt<'_>) -> Value {
    let content = match prompt.shared {
        Some(shared) => format!("{shared}\n\n{}", prompt.text),
        None => prompt.text.to_string(),
    };
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [{"role": "user", "content": content}],
    })
}

/// The text and usage of an answer.
pub fn response(json: &Value) -> Result<(String, Usage), String> {
    let text = json
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("message"))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .ok_or("no choices[0].message.content")?;
    let usage = json.get("usage");
    let n = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_u64).unwrap_or(0);
    let cached = usage
        .and_then(|u| u.get("prompt_tokens_details"))
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    Ok((
        text.trim().to_string(),
        Usage {
            calls: 1,
            input: n("prompt_tokens").saturating_sub(cached),
            cache_write: 0,
            cache_read: cached,
            output: n("completion_tokens"),
        },
    ))
}
