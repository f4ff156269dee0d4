//! Section profiles: what the section-level legs index for each node of the tree.
//!
//! A section is found by what it is about, not only by the words of one chunk: its heading
//! path, its summary when one exists (else the lead of its own text, up to about 128 tokens),
//! and the titles of its children, which say what lies below it. Every backend indexes the
//! same profile, and the embedder embeds [`SectionProfile::text`], so the two section legs
//! agree on what a section is.

use crate::{Document, NodeId};

/// Words of a section's own text kept as its lead (about 128 tokens of English prose).
pub const LEAD_WORDS: usize = 96;

/// What the section legs index for one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionProfile {
    /// The node.
    pub node: NodeId,
    /// Heading path from the top section down, joined with ` > ` (the document title for the
    /// root).
    pub heading_path: String,
    /// The summary, else the first [`LEAD_WORDS`] words of the own text after the heading.
    pub lead: String,
    /// The children's titles, one per line.
    pub children: String,
}

impl SectionProfile {
    /// The profile as one text: heading path, lead, children's titles.
    pub fn text(&self) -> String {
        let mut out = self.heading_path.clone();
        for part in [&self.lead, &self.children] {
            if !part.is_empty() {
                out.push('\n');
                out.push_str(part);
            }
        }
        out
    }
}

/// The profiles of every node of `doc` that has a heading or text, in node order. The root
/// is profiled only when the document has headings: a document without any is not cut into
/// sections, and its title and first words would say nothing about the passage a query
/// wants (measured: as one more fused list they lowered hierarchical recall on both shared
/// evaluation sets, whose files are mostly without headings).
pub fn section_profiles(doc: &Document) -> Vec<SectionProfile> {
    let tree = &doc.tree;
    let mut out = Vec::with_capacity(tree.len());
    for node in tree.nodes() {
        if node.parent.is_none() && node.children.is_empty() {
            continue;
        }
        let heading_path =
            if node.parent.is_none() { doc.title.clone() } else { tree.heading_path(node.id).join(" > ") };
        let lead = match &node.summary {
            Some(summary) => summary.trim().to_string(),
            None => {
                let body = crate::Span::new(node.heading.end.max(node.own.start), node.own.end);
                lead_words(body.slice(&doc.text), LEAD_WORDS)
            }
        };
        let children: Vec<&str> =
            node.children.iter().filter_map(|c| tree.get(*c)).map(|c| c.title.as_str()).collect();
        if heading_path.trim().is_empty() && lead.is_empty() && children.is_empty() {
            continue;
        }
        out.push(SectionProfile { node: node.id, heading_path, lead, children: children.join("\n") });
    }
    out
}

/// The first `n` whitespace-separated words of `text`, joined by single spaces.
fn lead_words(text: &str, n: usize) -> String {
    let mut out = String::new();
    for word in text.split_whitespace().take(n) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lead_is_bounded_and_whitespace_collapsed() {
        let text = (0..200).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" \n ");
        let lead = lead_words(&text, LEAD_WORDS);
        assert_eq!(lead.split(' ').count(), LEAD_WORDS);
        assert!(lead.starts_with("w0 w1 w2"));
    }
}
