//! Contextual retrieval with a language model: for each chunk, the model is shown the whole
//! document and the chunk, and asked for a short context that situates the chunk
//! (Anthropic's prompt, [`DOCUMENT_PROMPT`] and [`CHUNK_PROMPT`]).
//!
//! - **The document is paid for once.** It is the prompt's shared part, marked for caching
//!   ([`crate::chat`]). The first chunk of a document is sent alone, so that its call writes
//!   the cache before the others read it; the rest then go out together, as many at once as
//!   the shared [`crate::limiter::Limiter`] allows (default 10, halved on 429s).
//! - **A document longer than the window** is cut, keeping its beginning and its end (the
//!   middle is replaced by a marker saying how many tokens were left out). Its chunks are
//!   flagged ([`Situated::truncated`]) and the cut is logged.
//! - **A failed chunk** (its retries spent, or an empty answer) falls back to its structural
//!   context, with a warning naming the chunk. Fallbacks are not cached, so the next ingest
//!   asks again. A refusal no retry can mend (401, 403, 404, 400: a bad key, model or URL)
//!   stops the calls: it is reported once, and every chunk after it gets its structural
//!   context without a call.
//! - **Cost.** [`LlmContextualizer::usage`] adds up what the provider reported;
//!   [`Contextualizer::estimate`] predicts it with the index tokenizer, without a call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use strata_core::{Chunk, Document, Result};
use strata_model::context::{ContextSource, Contextualizer, Situated, Usage};
use strata_text::tokenize::Tokenizer;

use crate::chat::{ChatClient, Prompt, Provider};

/// Version of the prompts below; part of every cache key, so changing them re-asks.
pub const PROMPT_VERSION: u32 = 1;

/// The shared part: the document (Anthropic's `DOCUMENT_CONTEXT_PROMPT`).
pub const DOCUMENT_PROMPT: &str = "<document>\n{document}\n</document>";

/// The part of each call (Anthropic's `CHUNK_CONTEXT_PROMPT`).
pub const CHUNK_PROMPT: &str = "Here is the chunk we want to situate within the whole document\n<chunk>\n{chunk}\n</chunk>\n\nPlease give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk.\nAnswer only with the succinct context and nothing else.";

/// The part of the one call per document that summarizes it for its profile.
pub const SUMMARY_PROMPT: &str = "Please give a short summary of the whole document above for the purposes of finding it among other documents: who wrote it or whom it concerns (company, issuer, parties), what kind of document it is, the period or date it covers, and its main subjects.\nAnswer only with the summary and nothing else.";

/// Tokens kept free of the window for the prompt's own words and the tokenizer's error:
/// the index tokenizer is not the model's, so counts differ by a few percent.
const MARGIN: f64 = 0.9;

/// The shortest prompt `model` caches: Anthropic's minimum is 4,096 tokens for Claude Haiku
/// 4.5 and Opus 4.5, 2,048 for the Haiku 3 models, 1,024 for the others; OpenAI's is 1,024.
/// A shorter document is billed in full on every call, and the estimate says so.
fn min_cached_tokens(provider: Provider, model: &str) -> usize {
    match provider {
        Provider::Anthropic
            if model.starts_with("claude-haiku-4-5") || model.starts_with("claude-opus-4-5") =>
        {
            4096
        }
        Provider::Anthropic
            if model.starts_with("claude-3-haiku") || model.starts_with("claude-3-5-haiku") =>
        {
            2048
        }
        _ => 1024,
    }
}

/// Most characters of a model's context kept; a longer answer is cut at a word.
const MAX_CONTEXT_CHARS: usize = 1200;

/// What a chunk gets when the model gave it no context: the structural context
/// (`strata_ingest::context::structural`), which the caller hands in.
pub type Fallback = fn(&Document, &Chunk) -> String;

/// A [`Contextualizer`] that asks a chat model.
pub struct LlmContextualizer {
    client: ChatClient,
    tokenizer: Arc<dyn Tokenizer>,
    fallback: Fallback,
    id: String,
    usage: Mutex<Usage>,
    /// The refusal that stopped the calls, when one did.
    stopped: OnceLock<String>,
}

impl std::fmt::Debug for LlmContextualizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmContextualizer").field("id", &self.id).finish_non_exhaustive()
    }
}

/// The document as the model sees it.
struct View {
    text: String,
    /// Tokens of the whole document and of what was kept.
    tokens: usize,
    kept: usize,
}

impl View {
    fn truncated(&self) -> bool {
        self.kept < self.tokens
    }
}

impl LlmContextualizer {
    /// A contextualizer over `client`, counting tokens with `tokenizer` (the index's), that
    /// gives a chunk the model failed `fallback`'s context.
    pub fn new(client: ChatClient, tokenizer: Arc<dyn Tokenizer>, fallback: Fallback) -> LlmContextualizer {
        let id = format!("{}@{PROMPT_VERSION}", client.id());
        LlmContextualizer {
            client,
            tokenizer,
            fallback,
            id,
            usage: Mutex::new(Usage::default()),
            stopped: OnceLock::new(),
        }
    }

    /// The refusal that stopped the calls (a bad key, model or URL), when one did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.get().map(String::as_str)
    }

    /// What the provider reported for every call so far.
    pub fn usage(&self) -> Usage {
        *self.usage.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `doc` is too long for the model's window beside the largest of `chunks`.
    pub fn truncates(&self, doc: &Document, chunks: &[Chunk]) -> bool {
        let refs: Vec<&Chunk> = chunks.iter().collect();
        self.view(doc, &refs).truncated()
    }

    /// Whether the provider caches a shared prompt of `tokens` for this model.
    fn caches(&self, tokens: usize) -> bool {
        let model = self.client.id();
        let model = model.split_once(':').map_or(model.as_str(), |(_, m)| m);
        tokens >= min_cached_tokens(self.client.provider(), model)
    }

    /// The client.
    pub fn client(&self) -> &ChatClient {
        &self.client
    }

    /// The document text that fits the window beside the largest of `chunks`: whole, or its
    /// first and last halves of the budget with a marker between.
    fn view(&self, doc: &Document, chunks: &[&Chunk]) -> View {
        let starts = self.tokenizer.token_starts(&doc.text);
        let tokens = starts.len();
        let largest = chunks.iter().map(|c| c.tokens as usize).max().unwrap_or(0);
        let overhead = self.tokenizer.count(CHUNK_PROMPT) + self.tokenizer.count(DOCUMENT_PROMPT);
        let budget = ((self.client.window_tokens() as f64 * MARGIN) as usize)
            .saturating_sub(self.client.max_tokens() as usize + largest + overhead)
            .max(256);
        if tokens <= budget {
            return View { text: doc.text.clone(), tokens, kept: tokens };
        }
        let head = budget / 2;
        let tail = budget - head;
        let cut_head = starts[head];
        let cut_tail = starts[tokens - tail];
        let text = format!(
            "{}\n\n[… {} tokens of the document left out …]\n\n{}",
            &doc.text[..cut_head],
            tokens - head - tail,
            &doc.text[cut_tail..]
        );
        View { text, tokens, kept: head + tail }
    }

    /// Asks for one chunk's context; `None` when the call failed or said nothing.
    fn ask(&self, doc: &Document, shared: &str, chunk: &Chunk) -> Option<String> {
        let text = CHUNK_PROMPT.replace("{chunk}", chunk.span.slice(&doc.text));
        self.call(shared, &text, &format!("chunk {}", chunk.id))
    }

    /// One call after the shared document; `None` when it failed or said nothing. `what`
    /// names what was asked for in the warnings.
    fn call(&self, shared: &str, text: &str, what: &str) -> Option<String> {
        if self.stopped.get().is_some() {
            return None;
        }
        match self.client.complete(&Prompt { shared: Some(shared), text, max_tokens: None }) {
            Ok(reply) => {
                self.usage.lock().unwrap_or_else(|p| p.into_inner()).add(&reply.usage);
                let answer = clip(&reply.text);
                if answer.is_empty() {
                    tracing::warn!(what, service = %self.client.service(), "the model answered with nothing; using the structural context");
                    return None;
                }
                Some(answer)
            }
            Err(f) if f.permanent => {
                if self.stopped.set(f.to_string()).is_ok() {
                    tracing::error!(
                        what,
                        error = %f,
                        "the model refused the request; no more calls: every remaining chunk gets its \
                         structural context (fix the setting, then re-ingest with --force)"
                    );
                }
                None
            }
            Err(f) => {
                tracing::warn!(what, error = %f, "no answer from the model; using the structural context");
                None
            }
        }
    }
}

/// `text` with whitespace collapsed, cut at a word after [`MAX_CONTEXT_CHARS`].
fn clip(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if out.len() + word.len() + 1 > MAX_CONTEXT_CHARS {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

impl Contextualizer for LlmContextualizer {
    fn id(&self) -> &str {
        &self.id
    }

    fn contextualize(&self, doc: &Document, chunks: &[&Chunk]) -> Result<Vec<Situated>> {
        if chunks.is_empty() {
            return Ok(Vec::new());
        }
        let view = self.view(doc, chunks);
        if view.truncated() {
            tracing::warn!(
                doc = %doc.id,
                tokens = view.tokens,
                kept = view.kept,
                window = self.client.window_tokens(),
                "document longer than the model's window: its beginning and end are shown, its chunks are flagged"
            );
        }
        let shared = DOCUMENT_PROMPT.replace("{document}", &view.text);
        let mut answers: Vec<Option<String>> = vec![None; chunks.len()];
        // The first call writes the prompt cache; the others then read it.
        answers[0] = self.ask(doc, &shared, chunks[0]);
        if chunks.len() > 1 {
            let next = AtomicUsize::new(1);
            let found = Mutex::new(Vec::new());
            let workers = self.client.limiter().limit().max(1).min(chunks.len() - 1);
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= chunks.len() {
                            break;
                        }
                        let answer = self.ask(doc, &shared, chunks[i]);
                        found.lock().unwrap_or_else(|p| p.into_inner()).push((i, answer));
                    });
                }
            });
            for (i, answer) in found.into_inner().unwrap_or_else(|p| p.into_inner()) {
                answers[i] = answer;
            }
        }
        Ok(chunks
            .iter()
            .zip(answers)
            .map(|(chunk, answer)| match answer {
                Some(context) => {
                    Situated { context, source: ContextSource::Model, truncated: view.truncated() }
                }
                None => Situated {
                    context: (self.fallback)(doc, chunk),
                    source: ContextSource::Fallback,
                    truncated: view.truncated(),
                },
            })
            .collect())
    }

    fn summarize(&self, doc: &Document) -> Option<String> {
        // After the chunks' calls: the document's prompt is in the provider's cache by now.
        let shared = DOCUMENT_PROMPT.replace("{document}", &self.view(doc, &[]).text);
        self.call(&shared, SUMMARY_PROMPT, &format!("the summary of {}", doc.id))
    }

    fn estimate_summary(&self, doc: &Document) -> Usage {
        let view = self.view(doc, &[]);
        let document = view.kept + self.tokenizer.count(DOCUMENT_PROMPT);
        let mut usage = Usage {
            calls: 1,
            input: self.tokenizer.count(SUMMARY_PROMPT) as u64,
            output: u64::from(self.client.max_tokens()),
            ..Usage::default()
        };
        // Asked after the chunks' calls, it reads the document from the provider's cache.
        match self.caches(document) {
            true => usage.cache_read += document as u64,
            false => usage.input += document as u64,
        }
        usage
    }

    fn estimate(&self, doc: &Document, chunks: &[&Chunk]) -> Usage {
        if chunks.is_empty() {
            return Usage::default();
        }
        let view = self.view(doc, chunks);
        let document = view.kept + self.tokenizer.count(DOCUMENT_PROMPT);
        let prompt = self.tokenizer.count(CHUNK_PROMPT);
        let mut usage = Usage { calls: chunks.len() as u64, ..Usage::default() };
        for chunk in chunks {
            usage.input += (prompt + chunk.tokens as usize) as u64;
            usage.output += self.client.max_tokens() as u64;
        }
        let n = chunks.len() as u64;
        match (self.client.provider(), self.caches(document)) {
            (Provider::Anthropic, true) => {
                usage.cache_write += document as u64;
                usage.cache_read += document as u64 * (n - 1);
            }
            (Provider::OpenAi, true) => {
                usage.input += document as u64;
                usage.cache_read += document as u64 * (n - 1);
            }
            (_, false) => usage.input += document as u64 * n,
        }
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_collapses_and_bounds() {
        assert_eq!(clip("  a\n b  "), "a b");
        let long = "word ".repeat(1000);
        let c = clip(&long);
        assert!(c.len() <= MAX_CONTEXT_CHARS + 3 && c.ends_with('…'), "{}", c.len());
    }

    #[test]
    fn cache_minimums_follow_the_model() {
        assert_eq!(min_cached_tokens(Provider::Anthropic, "claude-haiku-4-5"), 4096);
        assert_eq!(min_cached_tokens(Provider::Anthropic, "claude-3-haiku-20240307"), 2048);
        assert_eq!(min_cached_tokens(Provider::Anthropic, "claude-sonnet-4-5"), 1024);
        assert_eq!(min_cached_tokens(Provider::OpenAi, "gpt-4o-mini"), 1024);
    }

    #[test]
    fn prompts_are_anthropics() {
        assert!(CHUNK_PROMPT.starts_with("Here is the chunk we want to situate within the whole document"));
        assert!(CHUNK_PROMPT.ends_with("Answer only with the succinct context and nothing else."));
        assert_eq!(DOCUMENT_PROMPT, "<document>\n{document}\n</document>");
    }
}
