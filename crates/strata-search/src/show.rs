//! The show stage: what a reader sees of each hit.
//!
//! - **The heading apart.** A hit that starts with its section's heading (the first chunk of
//!   a section, a merged section, whole pages) gives it as `heading`, and its `text` is the
//!   body after it, so that no front-end runs `2.2 Renewal` into the sentence below it.
//! - **No markup.** A Markdown document's text is its source; its hits' text and highlights
//!   lose the marks (`### `, `**`, link targets, code ticks; see
//!   [`strata_text::markdown::plain`]), and so does the context block built from them.
//!   A highlight that is the heading itself is dropped: the heading is shown already.
//!
//! Spans keep pointing at the source: `span` is still the whole passage, heading included.

use strata_core::{Format, NodeId, Result, Span};
use strata_text::markdown::plain;

use crate::expand::Docs;
use crate::response::SearchHit;

/// Sets each hit's heading apart and takes the markup out of what it shows.
pub fn show(docs: &mut Docs<'_>, hits: &mut [SearchHit]) -> Result<()> {
    for hit in hits {
        let Some(meta) = docs.meta(&hit.doc_id)? else { continue };
        let document = &meta.document;
        let markdown = document.source.format == Format::Markdown;
        let node = NodeId::parse(&hit.node_id).and_then(|n| document.tree.get(n));
        let heading = node.filter(|n| starts_with(hit, n.heading)).map(|n| (n.heading, n.title.clone()));
        if let Some((span, title)) = &heading {
            let body = hit.text.get(span.end - hit.span.start..).unwrap_or_default();
            hit.text = body.trim_start().to_string();
            hit.highlights.retain(|h| !span.overlaps(h.span));
            hit.heading = Some(title.clone());
        }
        if markdown {
            hit.text = plain(&hit.text);
            for h in &mut hit.highlights {
                h.text = plain(&h.text);
            }
            hit.highlights.retain(|h| !h.text.is_empty());
        }
    }
    Ok(())
}

/// True when `hit` starts with the heading at `heading` (nothing but blank space before it).
fn starts_with(hit: &SearchHit, heading: Span) -> bool {
    !heading.is_empty()
        && hit.span.start <= heading.start
        && heading.end <= hit.span.end
        && hit.text.get(..heading.start - hit.span.start).is_some_and(|before| before.trim().is_empty())
}
