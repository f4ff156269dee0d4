//! A listwise reranker: a chat model is shown the query and the numbered candidates and
//! answers with their numbers, most relevant first (as Anthropic's RAG guide reranks with
//! Claude).
//!
//! The answer is read leniently: every number in it, in order, each once, within range.
//! Candidates it ranks come first, in its order; the rest keep their fused order below them.
//! An answer with no usable number is an error, and the search keeps its fused order.

use strata_core::{Error, Result};
use strata_model::rerank::Reranker;

use crate::chat::{ChatClient, Prompt};

/// Version of [`PROMPT`], for reports.
pub const PROMPT_VERSION: u32 = 1;

/// The instruction before the candidates.
pub const PROMPT: &str =
    "Here is a search query and {n} numbered passages. Rank the passages by how well they answer the query.";

/// The instruction after them.
pub const ANSWER: &str = "Answer only with the numbers of the relevant passages, most relevant first, separated by commas (for example: 3, 1, 2).";

/// Words of each passage shown at most, so that 50 candidates fit a small window.
pub const PASSAGE_WORDS: usize = 200;

/// A [`Reranker`] over a chat model.
#[derive(Debug)]
pub struct ListwiseReranker {
    client: ChatClient,
    id: String,
}

impl ListwiseReranker {
    /// A reranker over `client`.
    pub fn new(client: ChatClient) -> ListwiseReranker {
        let id = format!("listwise:{}@{PROMPT_VERSION}", client.id());
        ListwiseReranker { client, id }
    }
}

/// The prompt for `query` and `passages`.
pub fn prompt(query: &str, passages: &[&str]) -> String {
    let mut out = PROMPT.replace("{n}", &passages.len().to_string());
    out.push_str("\n\n<query>");
    out.push_str(query.trim());
    out.push_str("</query>\n");
    for (i, p) in passages.iter().enumerate() {
        let words: Vec<&str> = p.split_whitespace().take(PASSAGE_WORDS).collect();
        out.push_str(&format!("<passage id=\"{}\">{}</passage>\n", i + 1, words.join(" ")));
    }
    out.push('\n');
    out.push_str(ANSWER);
    out
}

/// The candidate order an answer gives: 0-based indexes, each once, in its order.
pub fn parse(answer: &str, n: usize) -> Vec<usize> {
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for token in answer.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty()) {
        if let Ok(k) = token.parse::<usize>() {
            if (1..=n).contains(&k) && !seen[k - 1] {
                seen[k - 1] = true;
                out.push(k - 1);
            }
        }
    }
    out
}

impl Reranker for ListwiseReranker {
    fn id(&self) -> &str {
        &self.id
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let n = passages.len();
        let text = prompt(query, passages);
        // Room for every number, a comma and a space.
        let max_tokens = self.client.max_tokens().max(4 * n as u32 + 16);
        let reply =
            self.client.complete(&Prompt { shared: None, text: &text, max_tokens: Some(max_tokens) })?;
        let ranked = parse(&reply.text, n);
        if ranked.is_empty() {
            return Err(Error::Remote {
                service: self.client.service().to_string(),
                reason: format!(
                    "the ranking answer names no passage between 1 and {n}: {:?}",
                    reply.text.chars().take(200).collect::<String>()
                ),
            });
        }
        // Ranked ones score in (n, 2n], the rest in [0, 1) by their fused order.
        let mut scores: Vec<f32> = (0..n).map(|i| (n - i) as f32 / (n + 1) as f32).collect();
        for (rank, &i) in ranked.iter().enumerate() {
            scores[i] = (2 * n - rank) as f32;
        }
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_leniently() {
        assert_eq!(parse("3, 1, 2", 3), vec![2, 0, 1]);
        assert_eq!(parse("[2] > [2] > [9] > [1]", 3), vec![1, 0], "duplicates and out of range dropped");
        assert_eq!(parse("Passage 4 is best, then 10.", 10), vec![3, 9]);
        assert!(parse("none of them", 5).is_empty());
    }

    #[test]
    fn prompt_numbers_passages_and_bounds_them() {
        let long = "w ".repeat(1000);
        let p = prompt(" what? ", &["alpha", &long]);
        assert!(p.contains("<query>what?</query>") && p.contains("<passage id=\"1\">alpha</passage>"));
        assert!(p.contains("2 numbered passages"));
        let second = p.split("<passage id=\"2\">").nth(1).unwrap().split("</passage>").next().unwrap();
        assert_eq!(second.split_whitespace().count(), PASSAGE_WORDS);
    }
}
