//! The OpenAI-compatible chat completions wire format (OpenAI, Azure OpenAI, vLLM, Ollama).
//!
//! Request: `{"model", "max_tokens", "temperature": 0, "messages": [{"role": "user",
//! "content": SHARED + "\n\n" + TEXT}]}`: the shared part first, so that prefix caching
//! (OpenAI's automatic one, vLLM's) can reuse it. `max_tokens` rather than
//! `max_completion_tokens`, which vLLM, Ollama and Azure's older API versions do not read;
//! but OpenAI's reasoning models (`o1`, `o3`, `o4-mini`, `gpt-5`…) refuse `max_tokens` and
//! `temperature`, so for those the request has `max_completion_tokens` (the answer plus
//! [`REASONING_TOKENS`] of hidden reasoning) and `"reasoning_effort": "low"`.
//! Answer: `{"choices": [{"message": {"content"}}], "usage": {"prompt_tokens",
//! "completion_tokens", "prompt_tokens_details": {"cached_tokens"}}}`.

use serde_json::{json, Value};
use strata_model::context::Usage;

use super::Prompt;

/// The request body of `prompt`.
pub fn request(model: &str, max_tokens: u32, prompt: &Prompt<'_>) -> Value {
    let content = match prompt.shared {
        Some(shared) => format!("{shared}\n\n{}", prompt.text),
        None => prompt.text.to_string(),
    };
    if is_reasoning_model(model) {
        return json!({
            "model": model,
            "max_completion_tokens": max_tokens + REASONING_TOKENS,
            "reasoning_effort": "low",
            "messages": [{"role": "user", "content": content}],
        });
    }
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [{"role": "user", "content": content}],
    })
}

/// Tokens a reasoning model may spend thinking before it answers: they count against
/// `max_completion_tokens`, and a budget of the answer alone comes back empty.
pub const REASONING_TOKENS: u32 = 4096;

/// Whether `model` is one of OpenAI's reasoning models (`o1`, `o3-mini`, `o4-mini`,
/// `gpt-5`, `gpt-5-mini`, with or without a `provider/` prefix).
fn is_reasoning_model(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let o_series = name.strip_prefix('o').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    o_series || name.starts_with("gpt-5")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23: o-series and gpt-5 models refuse `max_tokens` and `temperature`, so
    /// contexts and listwise reranking failed with them.
    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        let prompt = Prompt { shared: None, text: "Situate this chunk.", max_tokens: None };
        for model in ["gpt-5-mini", "o3-mini", "o4-mini", "openai/o1", "GPT-5"] {
            let body = request(model, 200, &prompt);
            assert_eq!(body["max_completion_tokens"], 200 + REASONING_TOKENS, "{model}");
            assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none(), "{model}: {body}");
        }
        for model in ["gpt-4o-mini", "gpt-4.1", "llama3.1:8b", "omni-moderation", "qwen2.5"] {
            let body = request(model, 200, &prompt);
            assert_eq!(
                (body["max_tokens"].as_u64(), body["temperature"].as_u64()),
                (Some(200), Some(0)),
                "{model}"
            );
        }
    }
}
