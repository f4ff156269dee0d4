//! Defined terms and cross-references found by enrichment.

use serde::{Deserialize, Serialize};

use crate::{DocId, NodeId, Span};

/// A term a document defines (`"invention" means …`).
///
/// Terms live in a per-document namespace: two documents may define the same term
/// differently, and both definitions are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Definition {
    /// The term as written.
    pub term: String,
    /// Lowercase, whitespace-collapsed form used for lookup.
    pub normalized: String,
    /// The definition text (the sentence or entry that defines it).
    pub text: String,
    /// Where the definition text is.
    pub span: Span,
    /// The document that defines it.
    pub doc: DocId,
    /// The section that holds the definition.
    pub node: NodeId,
    /// Source lines of the definition, in a document cited by line
    /// ([`crate::Document::first_line`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<crate::LineRange>,
}

/// Normalizes a term for lookup: lowercase, straight quotes removed, whitespace collapsed.
pub fn normalize_term(term: &str) -> String {
    let mut out = String::with_capacity(term.len());
    for word in term.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(
            word.chars()
                .filter(|c| !matches!(c, '"' | '“' | '”' | '\'' | '‘' | '’'))
                .flat_map(|c| c.to_lowercase()),
        );
    }
    out
}

/// A cross-reference in the text (`Section 203(a)(1)`, `§ 4.2`, `pursuant to section 5`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reference {
    /// The reference as written.
    pub raw: String,
    /// Where it is.
    pub span: Span,
    /// The normalized key of the target (`203(a)(1)`, `article v`).
    pub target: String,
    /// The lead-in phrase when there is one (`see`, `pursuant to`, `as defined in`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The other document it points to, when it names one (`[RFC9110]`, `title 28`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// The node it resolves to in the same document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<NodeId>,
    /// True when the resolved node's number equals the target; false when only an ancestor
    /// (`203` for `203(a)(1)`) exists.
    #[serde(default)]
    pub exact: bool,
    /// The node the reference appears in.
    pub from: NodeId,
}
