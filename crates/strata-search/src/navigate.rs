//! Navigation: outline, read a section, read pages, define a term, follow references.
//!
//! These are the moves an agent makes besides searching. The CLI, the HTTP API and the MCP
//! tools call these same functions and render the same shapes.

use serde::Serialize;
use strata_core::{
    Definition, DocId, Document, Error, LineRange, Node, NodeId, PageRange, Reference, Result, Span,
};
use strata_index::{StoreRead, StoredDocument};
use strata_text::number;

/// Resolves `DOC`: a document id, or a part of a source path that names one document.
pub fn resolve_doc(store: &dyn StoreRead, doc: &str) -> Result<DocId> {
    let docs = store.documents()?;
    if let Some(d) = docs.iter().find(|d| d.id.as_str() == doc) {
        return Ok(d.id.clone());
    }
    let matches: Vec<_> = docs.iter().filter(|d| d.path.contains(doc)).collect();
    match matches.as_slice() {
        [one] => Ok(one.id.clone()),
        [] => {
            Err(Error::not_found(format!("no document matches {doc:?}; `strata docs` lists ids and paths")))
        }
        many => Err(Error::user(format!(
            "{doc:?} matches {} documents ({}); give more of the path or the id",
            many.len(),
            many.iter().take(5).map(|d| d.id.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Splits a target `DOC#NODE` (or `DOC` alone) into the document and the node. Every
/// front-end's `DOC#NODE` is read here.
pub fn split_target(target: &str) -> (&str, Option<&str>) {
    match target.split_once('#') {
        Some((doc, node)) => (doc, Some(node)),
        None => (target, None),
    }
}

/// Parses `DOC#NODE` (NODE an id like `0042`, or a section number like `102` or `4.2.1`).
pub fn resolve_node(store: &dyn StoreRead, target: &str) -> Result<(StoredDocument, NodeId)> {
    let (doc, node) = split_target(target);
    resolve(store, doc, node)
}

/// Resolves a document (id or part of its path) and one of its nodes (an id like `0042`,
/// or a section number like `102` or `4.2.1`); no node is the whole document (the root).
pub fn resolve(store: &dyn StoreRead, doc: &str, node: Option<&str>) -> Result<(StoredDocument, NodeId)> {
    let id = resolve_doc(store, doc)?;
    let stored =
        store.document(&id)?.ok_or_else(|| Error::not_found(format!("document {id} is not in the index")))?;
    // `DOC` alone is the whole document.
    let Some(node) = node else { return Ok((stored, NodeId::ROOT)) };
    let tree = &stored.document.tree;
    let found = if node.chars().all(|c| c.is_ascii_digit()) && node.len() == 4 {
        NodeId::parse(node).filter(|n| tree.get(*n).is_some())
    } else {
        None
    }
    .or_else(|| number::find(tree, &number::normalize(node)).next().map(|n| n.id))
    .or_else(|| NodeId::parse(node).filter(|n| tree.get(*n).is_some()));
    match found {
        Some(n) => Ok((stored, n)),
        None => Err(Error::not_found(format!(
            "{id} has no node {node:?}; use a node id from its outline (`strata tree {id}`, or the outline tool) such as 0003, or a section number"
        ))),
    }
}

/// One node of an outline.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OutlineNode {
    /// Node id (`0042`).
    pub id: String,
    /// Heading text.
    pub title: String,
    /// Section number as printed.
    pub number: Option<String>,
    /// Level.
    pub level: u32,
    /// Pages, in a document with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
    /// Source lines, in a document cited by line whose text was at hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// Children.
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub children: Vec<OutlineNode>,
    /// Descendants left out below a depth limit (`outline_to`); 0 when all are shown.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A document's outline, with the document it is of.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Outline {
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// The root (the whole document) and its sections.
    #[serde(flatten)]
    pub root: OutlineNode,
}

/// [`outline_to`] with the document's id and title.
pub fn outline_of(doc: &StoredDocument, depth: Option<usize>) -> Outline {
    Outline {
        doc_id: doc.document.id.to_string(),
        doc_title: doc.document.title.clone(),
        root: outline_to(doc, depth),
    }
}

/// The outline of a document as nested nodes (built bottom-up, without recursion).
pub fn outline(doc: &StoredDocument) -> OutlineNode {
    outline_to(doc, None)
}

/// The outline down to `depth` levels below the root (`Some(1)`: the top sections only);
/// a node whose children are cut says how many descendants it hides.
pub fn outline_to(doc: &StoredDocument, depth: Option<usize>) -> OutlineNode {
    let nodes = doc.document.tree.nodes();
    // Depth-first order puts every parent before its children.
    let mut depths = vec![0usize; nodes.len()];
    for n in nodes {
        if let Some(p) = n.parent {
            depths[n.id.index()] = depths[p.index()] + 1;
        }
    }
    let shown = |i: usize| depth.is_none_or(|d| depths[i] <= d);
    let document = &doc.document;
    let has_pages = document.has_pages();
    let lines = document.lines();
    let mut built: Vec<Option<OutlineNode>> = vec![None; nodes.len()];
    let mut hidden = vec![0usize; nodes.len()];
    for n in nodes.iter().rev() {
        let i = n.id.index();
        if !shown(i) {
            if let Some(p) = n.parent {
                hidden[p.index()] += 1 + hidden[i];
            }
            continue;
        }
        let children = n.children.iter().filter_map(|c| built[c.index()].take()).collect();
        built[i] = Some(OutlineNode {
            id: n.id.to_string(),
            title: n.title.clone(),
            number: n.number.as_ref().map(|x| x.to_string()),
            level: n.level,
            pages: has_pages.then_some(n.pages),
            lines: lines.as_ref().map(|l| l.range(n.subtree)),
            children,
            hidden: hidden[i],
        });
    }
    built[0].take().expect("a tree has a root")
}

/// A section's text with its citation.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Section {
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Node id.
    pub node_id: String,
    /// Heading path, below the document's title.
    pub heading_path: Vec<String>,
    /// Section number.
    pub number: Option<String>,
    /// Pages, in a document with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
    /// Source lines, in a document cited by line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// Byte span of the subtree.
    pub span: Span,
    /// The text of the section and its subsections.
    pub text: String,
    /// Node ids of its subsections (to read them one by one when the text is long).
    pub children: Vec<String>,
}

/// The text of a node's subtree.
pub fn section(doc: &StoredDocument, node: NodeId) -> Section {
    let d = &doc.document;
    let n: &Node = d.tree.get(node).expect("resolved node");
    Section {
        doc_id: d.id.to_string(),
        doc_title: d.title.clone(),
        node_id: n.id.to_string(),
        heading_path: heading_path(d, node),
        number: n.number.as_ref().map(|x| x.to_string()),
        pages: d.has_pages().then_some(n.pages),
        lines: d.cited_lines(n.subtree),
        span: n.subtree,
        text: n.subtree.slice(&d.text).to_string(),
        children: n.children.iter().map(|c| c.to_string()).collect(),
    }
}

/// Pages of a document, as read (running headers and footers left out).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Pages {
    /// Document id.
    pub doc_id: String,
    /// Document title.
    pub doc_title: String,
    /// Pages in the document.
    pub page_count: u32,
    /// The pages asked for, in order.
    pub pages: Vec<PageText>,
}

/// One page's text.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PageText {
    /// Physical page number, from 1.
    pub number: u32,
    /// Printed label (`iv`, `A-3`), when the document has one.
    pub label: Option<String>,
    /// Heading path of the deepest section that holds the page's start.
    pub heading_path: Vec<String>,
    /// Byte span in the document text.
    pub span: Span,
    /// The text.
    pub text: String,
}

/// Reads a page (`12`) or a range (`5-7`, `5–7`) of physical page numbers from 1: the one
/// page-range parser of every front-end.
pub fn parse_page_range(s: &str) -> Result<(u32, u32)> {
    let bad =
        || Error::user(format!("pages {s:?}: give a page (12) or a range (5-7) of page numbers from 1"));
    let (a, b) = match s.split_once(['-', '–']) {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (s.trim(), s.trim()),
    };
    let (first, last): (u32, u32) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    check_page_range(first, last)?;
    Ok((first, last))
}

/// Checks a page range given as numbers (`?from=&to=`), with the message of
/// [`parse_page_range`].
pub fn check_page_range(first: u32, last: u32) -> Result<()> {
    if first == 0 || last < first {
        return Err(Error::user(format!(
            "pages {first}-{last}: give a page (12) or a range (5-7) of page numbers from 1, the last not before the first"
        )));
    }
    Ok(())
}

/// Pages `first..=last` (physical numbers from 1) of a document. Pages past the end are an
/// error that names the page count; a page with no text (a full-page figure) is returned empty.
pub fn pages(doc: &StoredDocument, first: u32, last: u32) -> Result<Pages> {
    let d = &doc.document;
    if !d.has_pages() {
        return Err(Error::user(format!(
            "{} is {} and has no pages; read it by section: `strata tree {}` lists its sections and `strata show {}#NODE` reads one (over MCP, the outline and read_section tools)",
            d.id,
            d.source.format.name(),
            d.id,
            d.id
        )));
    }
    let count = d.pages.iter().map(|p| p.number).max().unwrap_or(1);
    if first == 0 || last < first || first > count {
        return Err(Error::user(format!(
            "pages {first}-{last}: {} has {count} page{}; ask for pages between 1 and {count}",
            d.id,
            if count == 1 { "" } else { "s" }
        )));
    }
    let last = last.min(count);
    let pages = (first..=last)
        .map(|n| {
            let page = d.pages.iter().find(|p| p.number == n);
            // An empty page has no entry of its own: it sits where the next page starts.
            let at = page.map(|p| p.span).unwrap_or_else(|| {
                let next = d.pages.iter().find(|p| p.number > n).map_or(d.text.len(), |p| p.span.start);
                Span::new(next, next)
            });
            let node =
                d.tree.nodes().iter().rev().find(|x| x.subtree.start <= at.start && at.start < x.subtree.end);
            PageText {
                number: n,
                label: page.and_then(|p| p.label.clone()),
                heading_path: node.map(|x| heading_path(d, x.id)).unwrap_or_default(),
                span: at,
                text: at.slice(&d.text).to_string(),
            }
        })
        .collect();
    Ok(Pages { doc_id: d.id.to_string(), doc_title: d.title.clone(), page_count: count, pages })
}

/// A definition with its citation.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CitedDefinition {
    /// The definition.
    #[serde(flatten)]
    pub definition: Definition,
    /// Document id (the definition's `doc`).
    pub doc_id: String,
    /// Node id of the section holding it, as outlines write it (`0015`).
    pub node_id: String,
    /// Document title.
    pub doc_title: String,
    /// Heading path of the section holding it, below the document's title.
    pub heading_path: Vec<String>,
    /// Pages, in a document with pages (source lines are the definition's `lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageRange>,
}

/// Definitions of a term across the index, with citations. Several documents may define a
/// term differently; all are returned, grouped by document.
pub fn define(store: &dyn StoreRead, term: &str) -> Result<Vec<CitedDefinition>> {
    let normalized = strata_core::normalize_term(term);
    let mut defs = store.definitions(&normalized)?;
    // "inventions" finds "invention" when only the singular is defined.
    if defs.is_empty() && normalized.len() > 3 {
        if let Some(singular) = normalized
            .strip_suffix("ies")
            .map(|s| format!("{s}y"))
            .or_else(|| normalized.strip_suffix('s').filter(|s| !s.ends_with('s')).map(str::to_string))
        {
            defs = store.definitions(&singular)?;
        }
    }
    defs.sort_by(|a, b| a.doc.cmp(&b.doc).then(a.span.start.cmp(&b.span.start)));
    let mut out = Vec::new();
    let mut cache: Option<StoredDocument> = None;
    for def in defs {
        if cache.as_ref().is_none_or(|c| c.document.id != def.doc) {
            cache = store.document(&def.doc)?;
        }
        let Some(doc) = &cache else { continue };
        out.push(CitedDefinition {
            doc_id: def.doc.to_string(),
            node_id: def.node.to_string(),
            doc_title: doc.document.title.clone(),
            heading_path: heading_path(&doc.document, def.node),
            pages: doc.document.cited_pages(def.span),
            definition: def,
        });
    }
    Ok(out)
}

/// The heading path of `node`, below the document's title ([`crate::cite::below_title`]).
fn heading_path(d: &Document, node: NodeId) -> Vec<String> {
    let mut path = d.tree.heading_path(node);
    crate::cite::below_title(&d.title, &mut path);
    path
}

/// One reference with the titles of both ends.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CitedReference {
    /// The reference.
    #[serde(flatten)]
    pub reference: Reference,
    /// Node id of the section it appears in, as outlines write it (`0015`).
    pub from_node_id: String,
    /// Title of the node it appears in.
    pub from_title: String,
    /// Node id of the section it resolves to, when it does.
    pub to_node_id: Option<String>,
    /// Title of the node it resolves to.
    pub to_title: Option<String>,
}

/// References out of and into a node's subtree.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Refs {
    /// Document id.
    pub doc_id: String,
    /// Node id.
    pub node_id: String,
    /// References made inside the subtree.
    pub outgoing: Vec<CitedReference>,
    /// References elsewhere in the document that resolve into the subtree.
    pub incoming: Vec<CitedReference>,
}

/// Outgoing and incoming references of a node (the root: the whole document).
pub fn refs(doc: &StoredDocument, node: NodeId) -> Refs {
    let d = &doc.document;
    let n = d.tree.get(node).expect("resolved node");
    let last = d.tree.last_descendant(node);
    let inside = |id: NodeId| id >= node && id <= last;
    let cite = |r: &Reference| CitedReference {
        reference: r.clone(),
        from_node_id: r.from.to_string(),
        to_node_id: r.resolved.map(|n| n.to_string()),
        from_title: d.tree.get(r.from).map(|x| x.title.clone()).unwrap_or_default(),
        to_title: r.resolved.and_then(|t| d.tree.get(t)).map(|x| x.title.clone()),
    };
    let outgoing = doc.references.iter().filter(|r| n.subtree.contains(r.span.start)).map(cite).collect();
    let incoming = doc
        .references
        .iter()
        .filter(|r| r.resolved.is_some_and(inside) && !(node != NodeId::ROOT && inside(r.from)))
        .map(cite)
        .collect();
    Refs { doc_id: d.id.to_string(), node_id: n.id.to_string(), outgoing, incoming }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges() {
        assert_eq!(parse_page_range("12").unwrap(), (12, 12));
        assert_eq!(parse_page_range("5-7").unwrap(), (5, 7));
        assert_eq!(parse_page_range(" 5 – 7 ").unwrap(), (5, 7));
        for bad in ["0", "7-5", "x", "", "3-"] {
            let e = parse_page_range(bad).unwrap_err().to_string();
            assert!(e.contains("give a page (12) or a range (5-7)"), "{bad}: {e}");
        }
        assert!(check_page_range(3, 2).is_err() && check_page_range(0, 0).is_err());
        assert!(check_page_range(2, 2).is_ok());
    }

    #[test]
    fn targets_split_at_the_first_hash() {
        assert_eq!(split_target("rfc9110#9.3.1"), ("rfc9110", Some("9.3.1")));
        assert_eq!(split_target("rfc9110"), ("rfc9110", None));
        assert_eq!(split_target("a#b#c"), ("a", Some("b#c")));
    }
}
