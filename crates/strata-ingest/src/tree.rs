//! The tree stage: heading marks to a [`Tree`] with own and subtree spans and page ranges.
//!
//! Nesting uses a stack, never recursion, so a document with 10,000 nested headings builds
//! in linear time and constant stack. A heading's parent is the nearest earlier heading with a
//! lower level, so skipped levels (h1 → h4) nest under the h1. Text before the first heading
//! belongs to the root.

use strata_core::{Node, NodeId, Page, PageRange, Span, Tree};
use strata_text::number;

use crate::read::HeadingMark;

/// Builds the tree of a text of `text_len` bytes from its headings (in document order) and
/// pages.
pub fn build_tree(title: &str, text_len: usize, headings: &[HeadingMark], pages: &[Page]) -> Tree {
    let page_of = |offset: usize| -> u32 {
        let i = pages.partition_point(|p| p.span.end <= offset);
        pages.get(i).or(pages.last()).map(|p| p.number).unwrap_or(1)
    };
    let mut nodes: Vec<Node> = Vec::with_capacity(headings.len() + 1);
    let first_start = headings.first().map(|h| h.span.start).unwrap_or(text_len);
    nodes.push(Node {
        id: NodeId::ROOT,
        level: 0,
        title: title.to_string(),
        number: None,
        heading: Span::new(0, 0),
        own: Span::new(0, first_start),
        subtree: Span::new(0, text_len),
        pages: PageRange { first: 1, last: page_of(text_len.saturating_sub(1)) },
        parent: None,
        children: Vec::new(),
        summary: None,
    });
    // Stack of open nodes (indexes); the root is always at the bottom.
    let mut stack: Vec<usize> = vec![0];
    for (i, h) in headings.iter().enumerate() {
        let id = nodes.len();
        let level = h.level.max(1);
        while stack.len() > 1 && nodes[*stack.last().unwrap()].level >= level {
            let closed = stack.pop().unwrap();
            nodes[closed].subtree.end = h.span.start;
        }
        let parent = *stack.last().unwrap();
        let own_end = headings.get(i + 1).map(|n| n.span.start).unwrap_or(text_len);
        let number = h.number.clone().or_else(|| number::from_heading(&h.title));
        nodes.push(Node {
            id: NodeId(id as u32),
            level,
            title: h.title.clone(),
            number,
            heading: h.span,
            own: Span::new(h.span.start, own_end.max(h.span.start)),
            subtree: Span::new(h.span.start, text_len),
            pages: PageRange::single(1),
            parent: Some(NodeId(parent as u32)),
            children: Vec::new(),
            summary: None,
        });
        nodes[parent].children.push(NodeId(id as u32));
        stack.push(id);
    }
    for n in nodes.iter_mut() {
        n.pages = PageRange {
            first: page_of(n.subtree.start),
            last: page_of(n.subtree.end.saturating_sub(1).max(n.subtree.start)),
        };
    }
    Tree::from_nodes(nodes)
}

/// The headings a tree of at most `max` sections keeps, in document order, and how many it
/// drops: the deepest levels go first and, of the level that only partly fits, the last
/// headings, so that the outline above them stays whole. A dropped heading's line stays in
/// the text of the section above it.
pub fn keep_headings(headings: Vec<HeadingMark>, max: usize) -> (Vec<HeadingMark>, usize) {
    let total = headings.len();
    if total <= max {
        return (headings, 0);
    }
    let mut levels: Vec<u32> = headings.iter().map(|h| h.level.max(1)).collect();
    levels.sort_unstable();
    // The level of the max-th shallowest heading: those above it all fit, it fits in part.
    let Some(&cut) = max.checked_sub(1).and_then(|i| levels.get(i)) else { return (Vec::new(), total) };
    let mut room = max - levels.iter().filter(|&&l| l < cut).count();
    let kept: Vec<HeadingMark> = headings
        .into_iter()
        .filter(|h| match h.level.max(1).cmp(&cut) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal if room > 0 => {
                room -= 1;
                true
            }
            _ => false,
        })
        .collect();
    let dropped = total - kept.len();
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(level: u32, title: &str, start: usize, end: usize) -> HeadingMark {
        HeadingMark { level, title: title.into(), span: Span::new(start, end), number: None }
    }

    #[test]
    fn past_the_section_limit_the_deepest_and_last_headings_go() {
        let levels = [1, 2, 2, 1, 2, 3];
        let h: Vec<_> =
            levels.iter().enumerate().map(|(i, &l)| mark(l, &format!("h{i}"), i * 10, i * 10 + 5)).collect();
        let (kept, dropped) = keep_headings(h.clone(), 3);
        let titles: Vec<&str> = kept.iter().map(|k| k.title.as_str()).collect();
        assert_eq!(titles, ["h0", "h1", "h3"], "both chapters, then the first section");
        assert_eq!(dropped, 3);
        assert_eq!(keep_headings(h.clone(), 6).1, 0);
        let flat: Vec<_> = (0..10).map(|i| mark(1, &format!("f{i}"), i * 10, i * 10 + 5)).collect();
        let (kept, dropped) = keep_headings(flat, 4);
        assert_eq!(kept.iter().map(|k| k.title.as_str()).collect::<Vec<_>>(), ["f0", "f1", "f2", "f3"]);
        assert_eq!(dropped, 6);
    }

    #[test]
    fn skipped_levels_nest_under_nearest_shallower() {
        let text = "pre\n# A\nx\n#### B\ny\n## C\nz\n";
        let h = [mark(1, "A", 4, 8), mark(4, "B", 10, 17), mark(2, "C", 19, 24)];
        let t = build_tree("doc", text.len(), &h, &[]);
        assert_eq!(t.len(), 4);
        assert_eq!(t.root().own, Span::new(0, 4));
        assert_eq!(t.get(NodeId(2)).unwrap().parent, Some(NodeId(1)));
        assert_eq!(t.get(NodeId(3)).unwrap().parent, Some(NodeId(1)));
        assert_eq!(t.get(NodeId(2)).unwrap().subtree, Span::new(10, 19));
        assert_eq!(t.get(NodeId(1)).unwrap().subtree, Span::new(4, text.len()));
    }

    #[test]
    fn duplicate_titles_stay_distinct() {
        let h = [mark(1, "Fixed Fields", 0, 5), mark(1, "Fixed Fields", 10, 15)];
        let t = build_tree("doc", 20, &h, &[]);
        assert_eq!(t.len(), 3);
        assert_ne!(t.get(NodeId(1)).unwrap().own, t.get(NodeId(2)).unwrap().own);
    }

    #[test]
    fn ten_thousand_nested_headings_do_not_overflow() {
        let h: Vec<_> = (0..10_000).map(|i| mark(i + 1, "h", i as usize * 2, i as usize * 2 + 1)).collect();
        let t = build_tree("doc", 20_000, &h, &[]);
        assert_eq!(t.len(), 10_001);
        assert_eq!(t.depth(NodeId(10_000)), 10_000);
    }
}
