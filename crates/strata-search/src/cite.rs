//! The cite stage: where each hit, definition and reference lies in its document, and the
//! citation that says so.
//!
//! - **Pages** only where the document has pages ([`strata_core::Format::has_pages`]): a PDF,
//!   a DOCX with page breaks, plain text split by form feeds. Markdown and HTML have none,
//!   and a "p. 1" there would send a reader to a page that does not exist.
//! - **Lines** where the document is cited by line (Markdown, plain text without pages): the
//!   source lines the passage covers, as an editor numbers them.
//! - **Heading paths** start below the document's title: a top heading that repeats the
//!   title (Markdown's `# Title`, a statute's `TITLE 35—PATENTS`) is said once, as the title.
//! - **Citations** read `[Title › A › B, p. 12]` (printed page labels),
//!   `[Title › A › B, lines 40–52]`, or `[Title › A › B]` (HTML).
//!
//! The stages before this one work with every chunk's pages; they are dropped here, once the
//! hits are final.

use strata_core::{Document, LineRange, PageRange, Result};

use crate::expand::Docs;
use crate::response::{AttachedDefinition, AttachedReference, SearchHit};

/// Places and cites the hits, definitions and references of one response.
pub fn cite(
    docs: &mut Docs<'_>,
    hits: &mut [SearchHit],
    definitions: &mut [AttachedDefinition],
    references: &mut [AttachedReference],
) -> Result<()> {
    for h in hits {
        h.citation = place(docs, &h.doc_id, &h.doc_title, &mut h.heading_path, &mut h.pages, h.lines)?;
    }
    for d in definitions {
        d.citation = place(docs, &d.doc_id, &d.doc_title, &mut d.heading_path, &mut d.pages, d.lines)?;
    }
    for x in references {
        x.citation = place(docs, &x.doc_id, &x.doc_title, &mut x.heading_path, &mut x.pages, x.lines)?;
    }
    Ok(())
}

/// Drops `pages` where the document has none and the title from the top of `heading_path`,
/// and returns the citation.
fn place(
    docs: &mut Docs<'_>,
    doc: &str,
    title: &str,
    heading_path: &mut Vec<String>,
    pages: &mut Option<PageRange>,
    lines: Option<LineRange>,
) -> Result<String> {
    below_title(title, heading_path);
    let document = docs.meta(doc)?.map(|m| &m.document);
    if document.is_some_and(|d| !d.has_pages()) {
        *pages = None;
    }
    let at = match *pages {
        Some(p) => Some(page_labels(document, p)),
        None => lines.map(|l| l.to_string()),
    };
    Ok(citation(title, heading_path, at.as_deref()))
}

/// `heading_path` without a first heading that repeats `title` (case and spacing aside).
pub fn below_title(title: &str, heading_path: &mut Vec<String>) {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if heading_path.first().is_some_and(|top| squash(top) == squash(title)) {
        heading_path.remove(0);
    }
}

/// `p. 12` or `pp. 12–13`, with the document's printed page labels (numbers when the store
/// no longer holds it).
fn page_labels(document: Option<&Document>, pages: PageRange) -> String {
    let label = |n: u32| document.map_or_else(|| n.to_string(), |d| d.page_label(n));
    let (a, b) = (label(pages.first), label(pages.last));
    if a == b {
        format!("p. {a}")
    } else {
        format!("pp. {a}–{b}")
    }
}

/// Formats a citation: `[Title › A › B, p. 12]`, `[Title › A, lines 4–9]` or `[Title › A]`;
/// `at` is the place after the path (printed pages or lines). A top heading that repeats
/// the title is printed once.
pub fn citation(doc_title: &str, heading_path: &[String], at: Option<&str>) -> String {
    let mut path = heading_path.to_vec();
    below_title(doc_title, &mut path);
    let mut out = String::from("[");
    out.push_str(doc_title);
    for h in &path {
        out.push_str(" › ");
        out.push_str(h);
    }
    if let Some(at) = at {
        out.push_str(", ");
        out.push_str(at);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_print_pages_lines_or_the_path_alone() {
        let path = vec!["9. Methods".to_string(), "9.3.1. GET".to_string()];
        assert_eq!(citation("RFC 9110", &path, Some("p. 12")), "[RFC 9110 › 9. Methods › 9.3.1. GET, p. 12]");
        assert_eq!(citation("RFC 9110", &[], Some("pp. ii–3")), "[RFC 9110, pp. ii–3]");
        assert_eq!(
            citation("RFC 9000", &path, Some("lines 4–9")),
            "[RFC 9000 › 9. Methods › 9.3.1. GET, lines 4–9]"
        );
        assert_eq!(citation("T", &["A".to_string()], None), "[T › A]");
    }

    #[test]
    fn a_top_heading_that_repeats_the_title_is_said_once() {
        let path = vec!["Sample  Hosting Services agreement".to_string(), "1. Definitions".to_string()];
        let mut trimmed = path.clone();
        below_title("Sample Hosting Services Agreement", &mut trimmed);
        assert_eq!(trimmed, ["1. Definitions"]);
        assert_eq!(
            citation("Sample Hosting Services Agreement", &path, Some("lines 4–9")),
            "[Sample Hosting Services Agreement › 1. Definitions, lines 4–9]"
        );
        let repeated = vec!["TITLE 35—PATENTS".to_string(), "§100. Definitions".to_string()];
        assert_eq!(citation("TITLE 35—PATENTS", &repeated, None), "[TITLE 35—PATENTS › §100. Definitions]");
    }
}
