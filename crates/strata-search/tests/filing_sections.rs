//! Hierarchical mode on real SEC filings (`../shared/data/eval/financebench-dev`; skipped,
//! with a message, when they are absent): a question that names a section of the filing by
//! its heading gets a chunk of that section first more often than hybrid gives one, because
//! the chunks of a financial statement or a note are tables and figures that never repeat
//! the heading's words.
//!
//! The questions are generated from each filing's own tree, the same sentence around every
//! heading of at least three words, so nothing here is tuned to a question of the benchmark.

mod common;

use common::{ingest_lexical, shared};
use strata_core::config::SearchConfig;
use strata_core::NodeId;
use strata_index::{EmbeddedStore, Filter, StoreRead};
use strata_search::{Mode, SearchRequest, Searcher};

const FILINGS: [&str; 2] = ["ACTIVISIONBLIZZARD_2019_10K.pdf", "PEPSICO_2022_10K.pdf"];

#[test]
fn hierarchical_puts_the_section_a_question_names_first_more_often_than_hybrid() {
    let Some(dir) = shared("eval/financebench-dev") else { return };
    let ingested = ingest_lexical(&FILINGS.map(|f| dir.join(f)));
    let store = EmbeddedStore::open(&ingested.index).unwrap();
    let searcher = Searcher::new(&store, SearchConfig::default()).unwrap();
    let (mut asked, mut hierarchical, mut hybrid) = (0, 0, 0);
    for doc in store.documents().unwrap() {
        let tree = store.document_meta(&doc.id).unwrap().unwrap().document.tree;
        for node in
            tree.nodes().iter().filter(|n| n.parent.is_some() && n.title.split_whitespace().count() >= 3)
        {
            let query =
                format!("What changed from the prior year, and why? Base the answer on the {}.", node.title);
            let first_inside = |mode: Mode| {
                let filter = Filter { doc: Some(doc.id.clone()), ..Filter::default() };
                let r =
                    searcher.search(&SearchRequest::new(&query, mode, 1).with_filter(filter).ranking_only());
                r.unwrap().hits.first().is_some_and(|h| {
                    let at = NodeId::parse(&h.node_id).unwrap();
                    node.id <= at && at <= tree.last_descendant(node.id)
                })
            };
            asked += 1;
            hierarchical += usize::from(first_inside(Mode::Hierarchical));
            hybrid += usize::from(first_inside(Mode::Hybrid));
        }
    }
    eprintln!("the named section first, of {asked} questions: hierarchical {hierarchical}, hybrid {hybrid}");
    assert!(asked >= 100, "{asked} headings");
    assert!(hierarchical > hybrid + asked / 20, "hierarchical {hierarchical}, hybrid {hybrid}");
    assert!(hierarchical * 10 >= asked * 8, "hierarchical {hierarchical} of {asked}");
}
