//! What calls cost: list prices of known models and the arithmetic.
//!
//! Prices are USD per million tokens as the providers list them (Anthropic: cache writes at
//! 1.25× and cache reads at 0.1× the input price; OpenAI: cached input at half or a quarter
//! of it). They change; `[context.llm.price]` overrides them, and a model not listed here
//! gets no cost, only token counts.

use strata_core::config::Price;
use strata_model::context::Usage;

/// List prices by model id prefix (a dated id such as `claude-3-haiku-20240307` matches
/// `claude-3-haiku`). Longer prefixes come first.
const PRICES: &[(&str, f64, f64, f64, f64)] = &[
    // (model prefix, input, output, cache write, cache read)
    ("claude-haiku-4-5", 1.0, 5.0, 1.25, 0.10),
    ("claude-3-5-haiku", 0.80, 4.0, 1.0, 0.08),
    ("claude-3-haiku", 0.25, 1.25, 0.30, 0.03),
    ("claude-sonnet-4", 3.0, 15.0, 3.75, 0.30),
    ("claude-3-7-sonnet", 3.0, 15.0, 3.75, 0.30),
    ("claude-opus-4-5", 5.0, 25.0, 6.25, 0.50),
    ("claude-opus-4", 15.0, 75.0, 18.75, 1.50),
    ("gpt-4o-mini", 0.15, 0.60, 0.15, 0.075),
    ("gpt-4o", 2.50, 10.0, 2.50, 1.25),
    ("gpt-4.1-nano", 0.10, 0.40, 0.10, 0.025),
    ("gpt-4.1-mini", 0.40, 1.60, 0.40, 0.10),
    ("gpt-4.1", 2.0, 8.0, 2.0, 0.50),
];

/// The list price of `model`, when strata knows it.
pub fn known_price(model: &str) -> Option<Price> {
    PRICES.iter().find(|(prefix, ..)| model.starts_with(prefix)).map(|&(_, input, output, write, read)| {
        Price { input, output, cache_write: Some(write), cache_read: Some(read) }
    })
}

/// The cost of `usage` at `price`, in USD.
pub fn cost(usage: &Usage, price: &Price) -> f64 {
    let per = |tokens: u64, usd: f64| tokens as f64 * usd / 1e6;
    per(usage.input, price.input)
        + per(usage.cache_write, price.cache_write.unwrap_or(price.input))
        + per(usage.cache_read, price.cache_read.unwrap_or(price.input))
        + per(usage.output, price.output)
}

/// `usage` and its cost in one line: `412 calls, 1,203,311 input tokens (…), $0.84`.
pub fn describe(usage: &Usage, cost_usd: Option<f64>) -> String {
    let mut line = format!(
        "{} calls, {} input tokens ({} written to and {} read from the prompt cache), {} output tokens",
        thousands(usage.calls),
        thousands(usage.input + usage.cache_write + usage.cache_read),
        thousands(usage.cache_write),
        thousands(usage.cache_read),
        thousands(usage.output)
    );
    match cost_usd {
        Some(usd) => line.push_str(&format!(", ${usd:.2}")),
        None => line.push_str(", cost unknown for this model (set [context.llm.price] input and output, USD per million tokens)"),
    }
    line
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_ids_find_their_price_and_costs_add_up() {
        let p = known_price("claude-3-haiku-20240307").unwrap();
        assert_eq!(p.input, 0.25);
        let usage = Usage {
            calls: 2,
            input: 1_000_000,
            cache_write: 1_000_000,
            cache_read: 1_000_000,
            output: 1_000_000,
        };
        assert!((cost(&usage, &p) - (0.25 + 0.30 + 0.03 + 1.25)).abs() < 1e-12);
        assert_eq!(known_price("gpt-4.1-mini-2025-04-14").unwrap().input, 0.40);
        assert!(known_price("llama3.1:8b").is_none());
        assert!(describe(&usage, None).contains("cost unknown"));
        let line = describe(&usage, Some(cost(&usage, &p)));
        assert!(line.ends_with("$1.83"), "{line}");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
