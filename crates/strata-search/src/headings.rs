//! The sections a query names, by their headings: what the tree knows that no chunk ranking
//! does.
//!
//! A question often says which part of a document answers it ("…primarily in the statement
//! of cash flows", "what does the termination clause require", "the Goodwill note"). The
//! chunks of that section are mostly numbers or clauses that never repeat the heading's
//! words, so neither BM25 nor the dense leg finds them by it. A query **names** a section
//! when it holds more than two thirds ([`NAMED_SHARE`]) of the heading's weight: its words
//! (stemmed as the keyword leg stems them; stop words and words without a letter, such as
//! section numbers and years, dropped), each weighted by its rarity among the headings of the
//! same document (`ln(1 + N / df)`), so that "Consolidated" or "Notes", which head half of a
//! filing, weigh little and "Cash Flows" much. A chunk inside a named section, or inside a
//! section whose ancestor is named, takes the best such share.
//!
//! The heading terms of a document are read from its tree once per catalog (once per
//! commit) and only for the documents a query's candidates come from ([`Headings`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use strata_core::{DocId, NodeId, Result, Tree};
use strata_index::StoreRead;
use strata_text::analyzer::{en_stem, terms};
use tantivy::tokenizer::TextAnalyzer;

use crate::documents::is_stop_word;
use crate::metas::Metas;

/// The share of a heading's weight a query must hold to name its section: more than two
/// thirds, so that "statement of cash flows" names "Consolidated Statements of Cash Flows"
/// (all but the commonest word) while "patent term adjustment" does not name "Term of Design
/// Patent" (two of three rare words). At one half that query lost §154 of Title 35, the
/// section it asks about, from hierarchical mode's top 8.
pub const NAMED_SHARE: f64 = 0.67;

/// One heading's weighted terms.
#[derive(Debug, Default)]
struct Heading {
    parent: Option<NodeId>,
    /// Distinct terms with their weight.
    terms: Vec<(String, f64)>,
    /// The sum of the weights.
    total: f64,
    /// The share of the document's text its section spans, heading and subsections in.
    span: f64,
}

/// The heading terms of one document's tree, by node.
#[derive(Debug, Default)]
pub struct DocumentHeadings {
    nodes: Vec<Heading>,
}

impl DocumentHeadings {
    /// The weighted heading terms of every node of `tree` (the root's title is the
    /// document's, which the documents stage already weighs, so it has none).
    pub fn of(tree: &Tree) -> DocumentHeadings {
        let mut analyzer = en_stem();
        let mut nodes: Vec<(Option<NodeId>, Vec<String>)> = tree
            .nodes()
            .iter()
            .map(|n| match n.parent {
                None => (None, Vec::new()),
                Some(parent) => (Some(parent), heading_terms(&mut analyzer, &n.title)),
            })
            .collect();
        let mut df: HashMap<&str, f64> = HashMap::new();
        for (_, words) in &nodes {
            for w in words {
                *df.entry(w.as_str()).or_insert(0.0) += 1.0;
            }
        }
        let headed = nodes.iter().filter(|(_, w)| !w.is_empty()).count() as f64;
        let weights: Vec<Vec<f64>> = nodes
            .iter()
            .map(|(_, words)| words.iter().map(|w| (1.0 + headed / df[w.as_str()]).ln()).collect())
            .collect();
        let whole = tree.nodes().first().map_or(0, |root| root.subtree.len()).max(1) as f64;
        let nodes = nodes
            .iter_mut()
            .zip(weights)
            .zip(tree.nodes())
            .map(|(((parent, words), weights), node)| Heading {
                parent: *parent,
                total: weights.iter().sum(),
                terms: std::mem::take(words).into_iter().zip(weights).collect(),
                span: node.subtree.len() as f64 / whole,
            })
            .collect();
        DocumentHeadings { nodes }
    }

    /// The share of `node`'s heading weight that `query` holds, when it names the section
    /// (at least [`NAMED_SHARE`]) and the section spans at most `span` of the document; else 0.
    fn named(&self, node: NodeId, query: &HashSet<String>, span: f64) -> f64 {
        let Some(h) = self.nodes.get(node.index()) else { return 0.0 };
        if h.total == 0.0 || h.span > span {
            return 0.0;
        }
        let held: f64 = h.terms.iter().filter(|(t, _)| query.contains(t)).map(|(_, w)| w).sum();
        let share = held / h.total;
        if share >= NAMED_SHARE {
            share
        } else {
            0.0
        }
    }

    /// The share of the document's text `node`'s section spans (0 for a node it lacks).
    pub fn span(&self, node: NodeId) -> f64 {
        self.nodes.get(node.index()).map_or(0.0, |h| h.span)
    }

    /// Whether `query` names any section of the document that spans at most `span` of it.
    pub fn names_any(&self, query: &HashSet<String>, span: f64) -> bool {
        (0..self.nodes.len()).any(|i| self.named(NodeId(i as u32), query, span) > 0.0)
    }

    /// The best share by which `query` names `node` or one of its ancestors that spans at
    /// most `span` of the document (`[search] heading_span`); 0 when it names none.
    pub fn named_within(&self, node: NodeId, query: &HashSet<String>, span: f64) -> f64 {
        let mut best = 0.0f64;
        let mut at = Some(node);
        while let Some(n) = at {
            best = best.max(self.named(n, query, span));
            at = self.nodes.get(n.index()).and_then(|h| h.parent);
        }
        best
    }
}

/// The distinct stemmed words of a heading that can name it: stop words and words without
/// a letter (section numbers, years) dropped.
fn heading_terms(analyzer: &mut TextAnalyzer, title: &str) -> Vec<String> {
    let mut words = terms(analyzer, title);
    words.retain(|w| w.chars().any(char::is_alphabetic) && !is_stop_word(w));
    words.sort();
    words.dedup();
    words
}

/// The query's stemmed words, as the headings' are stemmed.
pub fn query_terms(query: &str) -> HashSet<String> {
    terms(&mut en_stem(), query).into_iter().collect()
}

/// Each document's [`DocumentHeadings`], read from its tree the first time a query needs
/// it. Held by the [`crate::Catalog`], so it lives as long as one commit of the index.
#[derive(Debug, Default)]
pub struct Headings {
    docs: Mutex<HashMap<DocId, Option<Arc<DocumentHeadings>>>>,
    /// Where the trees are read: the catalog's, so that a search decodes a tree once for
    /// its headings and its citations.
    metas: Arc<Metas>,
}

impl Headings {
    /// Heading terms read from the trees that `metas` decodes.
    pub fn over(metas: Arc<Metas>) -> Headings {
        Headings { docs: Mutex::default(), metas }
    }

    /// The heading terms of `doc`, `None` when the store does not hold it.
    pub fn of(&self, store: &dyn StoreRead, doc: &DocId) -> Result<Option<Arc<DocumentHeadings>>> {
        if let Some(known) = self.lock().get(doc) {
            return Ok(known.clone());
        }
        // Read outside the lock: another search may read the same document meanwhile, and
        // both arrive at the same value.
        let read = self.metas.get(store, doc)?.map(|m| Arc::new(DocumentHeadings::of(&m.document.tree)));
        self.lock().insert(doc.clone(), read.clone());
        Ok(read)
    }

    /// Holds `headings` as `doc`'s, as if read from its tree (for tests of the stages that
    /// read them).
    #[cfg(test)]
    pub(crate) fn hold(&self, doc: DocId, headings: DocumentHeadings) {
        self.lock().insert(doc, Some(Arc::new(headings)));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<DocId, Option<Arc<DocumentHeadings>>>> {
        // A panic elsewhere while holding the lock leaves a map that is still whole.
        self.docs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The headings of a tree of `nodes` (title, parent, subtree span), for tests.
#[cfg(test)]
pub(crate) fn of_spans(nodes: &[(&str, Option<u32>, (usize, usize))]) -> DocumentHeadings {
    let titles: Vec<(&str, Option<u32>)> = nodes.iter().map(|&(t, p, _)| (t, p)).collect();
    let mut nodes_of = tests::tree(&titles).nodes().to_vec();
    for (node, &(_, _, (start, end))) in nodes_of.iter_mut().zip(nodes) {
        node.subtree = strata_core::Span::new(start, end);
    }
    DocumentHeadings::of(&Tree::from_nodes(nodes_of))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_core::{Node, PageRange, Span};

    pub(super) fn tree(titles: &[(&str, Option<u32>)]) -> Tree {
        let nodes = titles
            .iter()
            .enumerate()
            .map(|(i, (title, parent))| Node {
                id: NodeId(i as u32),
                level: u32::from(parent.is_some()),
                title: title.to_string(),
                number: None,
                heading: Span::new(0, 0),
                own: Span::new(0, 0),
                subtree: Span::new(0, 0),
                pages: PageRange { first: 1, last: 1 },
                parent: parent.map(NodeId),
                children: Vec::new(),
                summary: None,
            })
            .collect();
        Tree::from_nodes(nodes)
    }

    fn statements() -> DocumentHeadings {
        DocumentHeadings::of(&tree(&[
            ("Filing", None),
            ("Consolidated Balance Sheets", Some(0)),
            ("Consolidated Statements of Operations", Some(0)),
            ("Consolidated Statements of Cash Flows", Some(0)),
            ("Notes to Consolidated Financial Statements", Some(0)),
            ("6. Property and Equipment, Net", Some(4)),
        ]))
    }

    fn share(h: &DocumentHeadings, node: u32, query: &str) -> f64 {
        h.named_within(NodeId(node), &query_terms(query), 1.0)
    }

    #[test]
    fn a_query_names_a_section_by_the_rare_words_of_its_heading() {
        let h = statements();
        let q = "What is the FY2019 capex? Use the statement of cash flows.";
        assert!(share(&h, 3, q) > 0.8, "cash flows names its statement");
        assert_eq!(share(&h, 1, q), 0.0, "not the balance sheet");
        // "Consolidated" heads four of five sections: it alone names none of them.
        assert_eq!(share(&h, 2, "consolidated"), 0.0);
        assert!(share(&h, 1, "from the balance sheet") > 0.5);
    }

    #[test]
    fn a_heading_over_most_of_its_document_names_nothing_below_heading_span() {
        let mut t = tree(&[("Filing", None), ("Endorsement Agreement", Some(0)), ("Term", Some(1))]);
        let mut nodes = t.nodes().to_vec();
        for (node, (start, end)) in nodes.iter_mut().zip([(0, 100), (0, 95), (40, 50)]) {
            node.subtree = Span::new(start, end);
        }
        t = Tree::from_nodes(nodes);
        let h = DocumentHeadings::of(&t);
        assert!((h.span(NodeId(1)) - 0.95).abs() < 1e-9 && (h.span(NodeId(2)) - 0.1).abs() < 1e-9);
        let q = query_terms("the term of the endorsement agreement");
        assert!(h.named_within(NodeId(2), &q, 1.0) > 0.99, "the title's heading, at any span");
        assert!(h.named_within(NodeId(2), &q, 0.5) > 0.99, "the Term section itself");
        assert_eq!(h.named_within(NodeId(1), &q, 0.5), 0.0, "the title spans 95% of the document");
        assert!(h.names_any(&q, 0.5) && !h.names_any(&query_terms("endorsement agreement"), 0.5));
    }

    #[test]
    fn a_chunk_inside_a_named_section_takes_its_share_and_numbers_never_name() {
        let h = statements();
        assert!(share(&h, 5, "net property and equipment") > 0.99);
        assert_eq!(share(&h, 5, "property and equipment"), 0.0, "two of three equally rare words");
        assert_eq!(share(&h, 5, "6"), 0.0);
        // The note's parent is named by "notes to the financial statements": its children too.
        assert!(share(&h, 5, "the notes to the financial statements") > 0.5);
        assert_eq!(share(&h, 0, "filing"), 0.0, "the root has no heading terms here");
    }
}
