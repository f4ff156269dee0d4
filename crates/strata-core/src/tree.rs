//! The heading tree: sections with spans, numbers and pages.
//!
//! Nodes are stored flat, in depth-first (document) order; a node's id is its index, printed
//! PageIndex-style as four digits (`0000` is the root). Parent and children are ids, so
//! walking a tree of 10,000 nested headings never recurses.

use serde::{Deserialize, Serialize};

use crate::{PageRange, Span};

/// Ordinal id of a node in depth-first order. The root is `0000`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root node.
    pub const ROOT: NodeId = NodeId(0);

    /// Index into [`Tree::nodes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Parses `0007` or `7`.
    pub fn parse(s: &str) -> Option<NodeId> {
        s.trim().parse::<u32>().ok().map(NodeId)
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}", self.0)
    }
}

/// A section number found in a heading: the identifier and, for named units, the unit.
///
/// `§ 203(a)` has number `203(a)` and no unit; `ARTICLE V` has number `V` and unit `article`;
/// `Appendix A.` has number `A` and unit `appendix`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionNumber {
    /// The identifier as printed, without trailing punctuation.
    pub number: String,
    /// The named unit (`article`, `chapter`, `part`, `appendix`, …), lowercase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

impl std::fmt::Display for SectionNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.unit {
            Some(unit) => {
                let mut c = unit.chars();
                let cap: String = c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default();
                write!(f, "{cap} {}", self.number)
            }
            None => f.write_str(&self.number),
        }
    }
}

/// One section of the tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Depth-first ordinal.
    pub id: NodeId,
    /// Heading level: 0 for the root, 1–6 for Markdown/HTML headings, the numbering depth for
    /// numbered plain text. Levels may skip (h1 → h4); nesting follows the nearest shallower
    /// heading before this one.
    pub level: u32,
    /// Heading text, whitespace-normalized.
    pub title: String,
    /// Section number, when the heading has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<SectionNumber>,
    /// The heading line(s). Empty for the root.
    pub heading: Span,
    /// The heading and the text up to the first child (or the next section).
    pub own: Span,
    /// The heading and everything below it, descendants included.
    pub subtree: Span,
    /// Pages the subtree touches.
    pub pages: PageRange,
    /// Parent node; `None` only for the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<NodeId>,
    /// Children in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NodeId>,
    /// Optional summary (written by a later stage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The heading tree of one document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// Wraps nodes that are already in depth-first order with consistent ids, parents and
    /// children (the tree builder's output).
    pub fn from_nodes(nodes: Vec<Node>) -> Tree {
        debug_assert!(nodes.iter().enumerate().all(|(i, n)| n.id.index() == i));
        Tree { nodes }
    }

    /// All nodes in depth-first order; `nodes()[0]` is the root.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Mutable access for enrichment stages (summaries).
    pub fn nodes_mut(&mut self) -> &mut [Node] {
        &mut self.nodes
    }

    /// Number of nodes, root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree has no node at all (not even a root).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// A node by id.
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    /// Ancestors of `id` from the root's first child down to `id` itself (the root excluded).
    pub fn path(&self, id: NodeId) -> Vec<&Node> {
        let mut path = Vec::new();
        let mut at = self.get(id);
        while let Some(node) = at {
            if node.parent.is_none() {
                break;
            }
            path.push(node);
            at = node.parent.and_then(|p| self.get(p));
        }
        path.reverse();
        path
    }

    /// Heading path titles, e.g. `["Title 35", "Part II", "Chapter 10", "§102. Conditions…"]`.
    pub fn heading_path(&self, id: NodeId) -> Vec<String> {
        self.path(id).into_iter().map(|n| n.title.clone()).collect()
    }

    /// The deepest node whose own span holds `offset`.
    pub fn node_at(&self, offset: usize) -> NodeId {
        // Own spans are disjoint and sorted in depth-first order.
        let i = self.nodes.partition_point(|n| n.own.start <= offset);
        let mut i = i.saturating_sub(1);
        while i > 0 && self.nodes[i].own.is_empty() {
            i -= 1;
        }
        NodeId(i as u32)
    }

    /// The last node of `node`'s subtree. Subtrees are contiguous in depth-first order, so
    /// the subtree is the id range `node..=last_descendant(node)`; a leaf is its own last
    /// descendant. Panics when `node` is past the end of the tree by more than one.
    pub fn last_descendant(&self, node: NodeId) -> NodeId {
        let end = self.get(node).map(|n| n.subtree.end).unwrap_or(0);
        let mut last = node;
        for n in &self.nodes[node.index() + 1..] {
            if n.heading.start >= end {
                break;
            }
            last = n.id;
        }
        last
    }

    /// Depth of a node (the root is 0), counted through parents.
    pub fn depth(&self, id: NodeId) -> usize {
        let mut d = 0;
        let mut at = self.get(id).and_then(|n| n.parent);
        while let Some(p) = at {
            d += 1;
            at = self.get(p).and_then(|n| n.parent);
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u32, parent: Option<u32>, heading: usize, end: usize) -> Node {
        Node {
            id: NodeId(id),
            level: parent.map_or(0, |_| 1),
            title: format!("n{id}"),
            number: None,
            heading: Span::new(heading, heading + 1),
            own: Span::new(heading, heading + 1),
            subtree: Span::new(heading, end),
            pages: PageRange::single(1),
            parent: parent.map(NodeId),
            children: Vec::new(),
            summary: None,
        }
    }

    #[test]
    fn last_descendant_ends_the_subtree_range() {
        // 0 (0..100) > 1 (0..50) > 2 (10..30), 3 (30..50); 0 > 4 (50..100)
        let tree = Tree::from_nodes(vec![
            node(0, None, 0, 100),
            node(1, Some(0), 0, 50),
            node(2, Some(1), 10, 30),
            node(3, Some(1), 30, 50),
            node(4, Some(0), 50, 100),
        ]);
        let last: Vec<u32> = (0..5).map(|i| tree.last_descendant(NodeId(i)).0).collect();
        assert_eq!(last, [4, 3, 2, 3, 4]);
    }
}
