//! Runs to text: the visible characters inside one paragraph (or table cell, or footnote),
//! in one iterative pass over its XML subtree.
//!
//! What a reader of the printed document sees is kept; what Word stores but does not show is
//! dropped:
//!
//! - `w:t` (and Office Math `m:t`) is text; `w:tab` and `w:ptab` are a space, `w:br` and
//!   `w:cr` a line break (a space inside a cell), `w:noBreakHyphen` a hyphen;
//! - tracked changes show as accepted: `w:ins` and `w:moveTo` are kept, `w:del`,
//!   `w:moveFrom` and `w:delText` dropped;
//! - field instructions (`w:instrText`: `TOC \o "1-3"`, `PAGEREF _Toc…`) are dropped, their
//!   results kept; hidden runs (`w:vanish`) are dropped;
//! - `mc:AlternateContent` keeps its `mc:Choice` and drops the `mc:Fallback` copy, so a text
//!   box is read once;
//! - a footnote reference becomes a marker from the caller (`[^1]`).
//!
//! Text boxes (`w:txbxContent`) hold paragraphs of their own. In a body paragraph they are
//! handed back to the caller to read as paragraphs after this one; in a cell or footnote they
//! are read inline.

use roxmltree::{Node, NodeId};

use super::xml::{is, is_on, is_w, traverse, w_attr, w_child, Edge, MATH, MC};

/// Where the runs are: a body paragraph writes line breaks and hands back text boxes; a
/// cell or note is one line and reads everything inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Paragraph,
    Line,
}

/// Appends the visible text under `node` to `out`. Calls `note` with the `w:id` of each
/// `w:footnoteReference`; what it returns is written at that point. Text boxes met in
/// [`Mode::Paragraph`] are pushed to `boxes`.
pub(super) fn runs<'a, 'i>(
    node: Node<'a, 'i>,
    mode: Mode,
    out: &mut String,
    boxes: &mut Vec<Node<'a, 'i>>,
    note: &mut dyn FnMut(&str) -> Option<String>,
) {
    let mut skip: Option<NodeId> = None;
    for edge in traverse(node) {
        match edge {
            Edge::Open(n) => {
                if skip.is_some() || !n.is_element() {
                    if skip.is_none() && n.is_text() && is_text_holder(n.parent()) {
                        out.push_str(n.text().unwrap_or_default());
                    }
                    continue;
                }
                if n != node && skipped(n, mode) {
                    if mode == Mode::Paragraph && is_w(n, "txbxContent") {
                        boxes.push(n);
                    }
                    skip = Some(n.id());
                    continue;
                }
                if !is_w(n, n.tag_name().name()) {
                    continue;
                }
                match n.tag_name().name() {
                    "tab" | "ptab" => out.push(' '),
                    "br" | "cr" => out.push(if mode == Mode::Paragraph { '\n' } else { ' ' }),
                    "noBreakHyphen" => out.push('-'),
                    "footnoteReference" => {
                        if let Some(marker) = w_attr(n, "id").and_then(&mut *note) {
                            out.push_str(&marker);
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(n) => {
                if skip == Some(n.id()) {
                    skip = None;
                } else if skip.is_none() && n != node && (is_w(n, "p") || is_w(n, "tc")) {
                    // Paragraphs of a cell, a nested table or a text box run on one line.
                    out.push(' ');
                }
            }
        }
    }
}

/// A text node counts when its parent is `w:t` or `m:t`.
fn is_text_holder(parent: Option<Node<'_, '_>>) -> bool {
    parent.is_some_and(|p| is_w(p, "t") || is(p, MATH, "t"))
}

/// Elements whose subtree holds no visible text of this paragraph.
fn skipped(n: Node<'_, '_>, mode: Mode) -> bool {
    if is(n, MC, "Fallback") {
        return true;
    }
    if !is_w(n, n.tag_name().name()) {
        return false;
    }
    match n.tag_name().name() {
        "pPr"
        | "rPr"
        | "sdtPr"
        | "tblPr"
        | "trPr"
        | "tcPr"
        | "tblGrid"
        | "delText"
        | "instrText"
        | "delInstrText"
        | "del"
        | "moveFrom"
        | "footnoteRef"
        | "endnoteRef"
        | "separator"
        | "continuationSeparator"
        | "commentReference" => true,
        "txbxContent" => mode == Mode::Paragraph,
        "r" => w_child(n, "rPr").is_some_and(|rpr| is_on(w_child(rpr, "vanish"))),
        _ => false,
    }
}

/// Characters that take no room: soft hyphen, zero-width space, a stray byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{200B}' | '\u{FEFF}')
}

/// Whitespace runs (line breaks included) to one space, invisible characters dropped,
/// trimmed.
pub(super) fn one_line(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !is_invisible(c) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}
