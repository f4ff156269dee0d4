//! Token counting with offsets: the measure chunks are bounded by.
//!
//! A [`Tokenizer`] returns the byte offset where each token of a text starts. The chunker
//! tokenizes a section once and then counts the tokens of any range with two binary
//! searches, instead of re-tokenizing candidate ranges. The implementations (a model's
//! `tokenizer.json`, tiktoken `cl100k_base`) live in `strata-ingest`, beside the libraries
//! they need.

/// Counts tokens, with offsets.
///
/// Contract: `token_starts` returns non-decreasing byte offsets `< text.len()`, one per
/// token, for the text tokenized without special tokens, padding or truncation.
pub trait Tokenizer: Send + Sync {
    /// Identifies the tokenizer in the index manifest (`cl100k_base`,
    /// `hf:all-MiniLM-L6-v2@1a2b3c4d`). Two tokenizers with the same id count alike.
    fn id(&self) -> &str;

    /// Byte offsets of token starts in `text`.
    fn token_starts(&self, text: &str) -> Vec<usize>;

    /// Number of tokens in `text`.
    fn count(&self, text: &str) -> usize {
        self.token_starts(text).len()
    }
}
