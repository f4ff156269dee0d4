//! `[context]`: what writes the text prepended to each chunk for indexing.

use serde::{Deserialize, Serialize};

use super::models::ChatConfig;
use super::names::named;
use crate::Result;

/// Context kinds: what writes the text prepended to each chunk for indexing.
pub const CONTEXT_KINDS: &[&str] = ContextKind::NAMES;

named! {
    /// What writes each chunk's context (`[context] kind`).
    pub enum ContextKind in "[context] kind" {
        /// No context.
        None = "none",
        /// Title, heading path, section number, lead, terms; offline (the default).
        Structural = "structural",
        /// A language model behind the Anthropic Messages API (`[context.llm]`).
        Anthropic = "anthropic",
        /// A language model behind an OpenAI-compatible chat API (`[context.llm]`).
        OpenAi = "openai",
    }
}

/// `[context]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    /// `structural` (the default: title, heading path, section number, lead, terms; offline),
    /// `anthropic` or `openai` (a language model writes it, `[context.llm]`), or `none`.
    pub kind: ContextKind,
    /// The model for `anthropic` and `openai`.
    pub llm: ChatConfig,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig { kind: ContextKind::Structural, llm: ChatConfig::default() }
    }
}

impl ContextConfig {
    /// Checks every value.
    pub fn validate(&self, origin: &str) -> Result<()> {
        self.llm.validate("context.llm", origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::names::tests::round_trips;

    #[test]
    fn names_round_trip() {
        let names = ["none", "structural", "anthropic", "openai"];
        round_trips(ContextKind::ALL, &names, "[context] kind", ContextKind::name);
        assert_eq!(CONTEXT_KINDS, names);
    }
}
