//! The text a model reads in each tool's answer: citations, indented outlines, sections
//! under their heading paths, cut to [`MAX_READ_BYTES`] with a note on what to read instead.

use std::fmt::Write;

use strata_core::{LineRange, PageRange};
use strata_index::DocSummary;
use strata_search::navigate::{CitedDefinition, CitedReference, Outline, OutlineNode, Pages, Refs, Section};
use strata_search::SearchResponse;

use super::MAX_READ_BYTES;

/// ` (p. 12)`, ` (lines 40–52)`, or nothing in a document cited by its headings alone;
/// `node` goes first when given: ` (node 0012, p. 12)`.
fn place(node: Option<&str>, pages: Option<PageRange>, lines: Option<LineRange>) -> String {
    let at = match (pages, lines) {
        (Some(p), _) if p.first == p.last => Some(format!("p. {}", p.first)),
        (Some(p), _) => Some(format!("pp. {}–{}", p.first, p.last)),
        (None, Some(l)) => Some(l.to_string()),
        (None, None) => None,
    };
    let parts: Vec<String> = node.map(|n| format!("node {n}")).into_iter().chain(at).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// Cuts `text` to [`MAX_READ_BYTES`] on a char boundary; true when it did.
fn cut(text: &mut String) -> bool {
    if text.len() <= MAX_READ_BYTES {
        return false;
    }
    text.truncate(strata_core::floor_char_boundary(text, MAX_READ_BYTES));
    true
}

/// The context block (or the hits' texts), then the hit list with `doc_id#node_id`.
pub(super) fn search(response: &SearchResponse) -> String {
    let mut text = match &response.context {
        Some(context) => context.text.clone(),
        None => response.hits.iter().map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n\n"),
    };
    if response.hits.is_empty() {
        text = format!("Nothing matched {:?}.", response.query);
    }
    text.push_str("\n\nHits (doc_id#node_id):\n");
    for (i, h) in response.hits.iter().enumerate() {
        let _ = writeln!(
            text,
            "{}. {}#{} {}{}",
            i + 1,
            h.doc_id,
            h.node_id,
            h.heading_path.join(" › "),
            place(None, h.pages, h.lines)
        );
    }
    if !response.more_definitions.is_empty() {
        let terms: Vec<&str> = response.more_definitions.iter().map(|d| d.term.as_str()).collect();
        let _ = writeln!(text, "Also defined (the define tool reads them): {}", terms.join(", "));
    }
    for w in &response.warnings {
        let _ = writeln!(text, "warning: {w}");
    }
    text
}

/// The document's title and id, then its sections as an indented list.
pub(super) fn outline(outline: &Outline) -> String {
    let mut out = format!("{} ({})\n", outline.doc_title, outline.doc_id);
    // Iterative: outlines may nest thousands deep.
    let mut stack: Vec<(&OutlineNode, usize)> = vec![(&outline.root, 0)];
    while let Some((n, d)) = stack.pop() {
        if d > 0 {
            let number = n.number.as_deref().map(|x| format!("{x} ")).unwrap_or_default();
            let at = place(None, n.pages, n.lines);
            let _ = write!(out, "{}{} {number}{}{at}", "  ".repeat(d - 1), n.id, n.title);
            if n.hidden > 0 {
                let _ = write!(out, " [+{} deeper]", n.hidden);
            }
            out.push('\n');
        }
        for child in n.children.iter().rev() {
            stack.push((child, d + 1));
        }
    }
    out
}

/// A section under its heading path; a long one is cut, naming its subsections to read.
pub(super) fn section(section: &mut Section) -> String {
    let mut text = format!(
        "{}{}\n\n",
        std::iter::once(section.doc_title.as_str())
            .chain(section.heading_path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" › "),
        place(Some(&section.node_id), section.pages, section.lines)
    );
    let cut = cut(&mut section.text);
    text.push_str(&section.text);
    if cut {
        let children = match (section.children.is_empty(), section.pages) {
            (false, _) => section.children.join(", "),
            (true, Some(_)) => "none, use read_pages".to_string(),
            (true, None) => "none; search inside it for the part you need".to_string(),
        };
        let _ = write!(text, "\n\n[cut at {MAX_READ_BYTES} bytes; read its subsections instead: {children}]");
    }
    text
}

/// Pages under `--- page N ---` lines, as many as fit; the pages kept are the ones shown.
pub(super) fn pages(pages: &mut Pages) -> String {
    let mut text = String::new();
    let mut kept = 0;
    for page in &mut pages.pages {
        let _ = writeln!(text, "--- page {} ---", page.number);
        cut(&mut page.text);
        text.push_str(&page.text);
        text.push('\n');
        kept += 1;
        if text.len() > MAX_READ_BYTES {
            text.push_str("[cut: ask for fewer pages]\n");
            break;
        }
    }
    pages.pages.truncate(kept);
    text
}

/// Each definition of `term` with its citation.
pub(super) fn definitions(term: &str, found: &[CitedDefinition]) -> String {
    let mut text = String::new();
    if found.is_empty() {
        let _ = writeln!(text, "No document defines {term:?}.");
    }
    for d in found {
        let _ = writeln!(
            text,
            "\"{}\" in {}{}:\n{}\n",
            d.definition.term,
            std::iter::once(d.doc_title.as_str())
                .chain(d.heading_path.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" › "),
            place(Some(&d.node_id), d.pages, d.definition.lines),
            d.definition.text
        );
    }
    text
}

/// The section a reference (`raw`, as the document writes it) led to.
pub(super) fn followed(raw: &str, section: &mut Section) -> String {
    cut(&mut section.text);
    format!(
        "{raw} → {}{}\n\n{}",
        section.heading_path.join(" › "),
        place(Some(&section.node_id), section.pages, section.lines),
        section.text
    )
}

/// References out of and into a section.
pub(super) fn references(refs: &Refs) -> String {
    let mut text = format!("References out of node {}:\n", refs.node_id);
    for r in &refs.outgoing {
        let _ = writeln!(text, "- {:?} → {}", r.reference.raw, destination(r));
    }
    let _ = writeln!(text, "References into node {}:", refs.node_id);
    for r in &refs.incoming {
        let _ = writeln!(text, "- {:?} from node {} \"{}\"", r.reference.raw, r.from_node_id, r.from_title);
    }
    text
}

fn destination(r: &CitedReference) -> String {
    match (&r.to_node_id, &r.to_title) {
        (Some(n), Some(title)) => format!("node {n} \"{title}\""),
        (Some(n), None) => format!("node {n}"),
        _ => r.reference.external.clone().unwrap_or_else(|| "not in this document".into()),
    }
}

/// One line per document.
pub(super) fn documents(docs: &[DocSummary]) -> String {
    let mut text = String::new();
    for d in docs {
        let _ = writeln!(
            text,
            "{}  {}  ({:?}, {}{} sections, {} chunks)  {}",
            d.id,
            d.title,
            d.format,
            if d.has_pages() { format!("{} pages, ", d.pages) } else { String::new() },
            d.nodes,
            d.chunks,
            d.path
        );
        let meta: Vec<String> = d
            .metadata
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), String::from)))
            .collect();
        if !meta.is_empty() {
            let _ = writeln!(text, "    {}", meta.join("; "));
        }
    }
    if docs.is_empty() {
        text.push_str("The index holds no document yet.\n");
    }
    text
}
