//! WordprocessingML names: element and attribute lookup that accepts both the Transitional
//! namespace (what Word, LibreOffice and python-docx write) and the ISO Strict one, so that a
//! Strict file reads the same instead of silently coming out empty.

use roxmltree::{Document, Node, ParsingOptions};

/// The WordprocessingML main namespace, Transitional (ECMA-376 2006).
pub(super) const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
/// The same namespace in ISO/IEC 29500 Strict.
pub(super) const W_STRICT: &str = "http://purl.oclc.org/ooxml/wordprocessingml/main";
/// Office Math (`m:t` holds equation text).
pub(super) const MATH: &str = "http://schemas.openxmlformats.org/officeDocument/2006/math";
/// Markup compatibility (`mc:AlternateContent`, `mc:Fallback`).
pub(super) const MC: &str = "http://schemas.openxmlformats.org/markup-compatibility/2006";
/// Dublin Core elements (`dc:title` in `docProps/core.xml`).
pub(super) const DC: &str = "http://purl.org/dc/elements/1.1/";
/// Package relationships (`_rels/.rels`, `word/_rels/document.xml.rels`).
pub(super) const RELS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";

/// Parses one XML part. DTDs stay refused (roxmltree's default), which rules out entity
/// expansion bombs; the node limit is roxmltree's own.
pub(super) fn parse(text: &str) -> Result<Document<'_>, roxmltree::Error> {
    Document::parse_with_options(text, ParsingOptions::default())
}

/// True when `node` is the WordprocessingML element `name`.
pub(super) fn is_w(node: Node<'_, '_>, name: &str) -> bool {
    node.is_element()
        && node.tag_name().name() == name
        && matches!(node.tag_name().namespace(), Some(W) | Some(W_STRICT))
}

/// True when `node` is an element `name` in namespace `ns`.
pub(super) fn is(node: Node<'_, '_>, ns: &str, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name && node.tag_name().namespace() == Some(ns)
}

/// The WordprocessingML attribute `name` of `node` (`w:val`, `w:id`, …).
pub(super) fn w_attr<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute((W, name)).or_else(|| node.attribute((W_STRICT, name)))
}

/// The first WordprocessingML child element named `name`.
pub(super) fn w_child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| is_w(*c, name))
}

/// `w:val` of the child `name`, e.g. `w:pStyle/@w:val` of a `w:pPr`.
pub(super) fn child_val<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    w_child(node, name).and_then(|c| w_attr(c, "val"))
}

/// `w:val` of the child `name` as a number. Word writes decimal integers; anything else
/// (fuzzed or hand-edited files) reads as absent.
pub(super) fn child_num(node: Node<'_, '_>, name: &str) -> Option<u32> {
    child_val(node, name).and_then(|v| v.trim().parse().ok())
}

/// Whether an on/off property (`w:vanish`, `w:isLgl`) is on: present, and its `w:val`, if
/// any, is not one of the false spellings.
pub(super) fn is_on(node: Option<Node<'_, '_>>) -> bool {
    node.is_some_and(|n| !matches!(w_attr(n, "val"), Some("0" | "false" | "off")))
}

/// One step of a depth-first walk: entering or leaving a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge<'a, 'i> {
    Open(Node<'a, 'i>),
    Close(Node<'a, 'i>),
}

/// Walks the subtree of `root` depth-first, without recursion, opening and closing each node
/// (a leaf too); `root` is opened first and closed last.
pub(super) fn traverse<'a, 'i>(root: Node<'a, 'i>) -> impl Iterator<Item = Edge<'a, 'i>> {
    let mut next = Some(Edge::Open(root));
    std::iter::from_fn(move || {
        let edge = next.take()?;
        next = match edge {
            Edge::Open(n) => Some(n.first_child().map_or(Edge::Close(n), Edge::Open)),
            Edge::Close(n) if n == root => None,
            Edge::Close(n) => n.next_sibling().map(Edge::Open).or_else(|| n.parent().map(Edge::Close)),
        };
        Some(edge)
    })
}
