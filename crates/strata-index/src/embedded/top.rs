//! The top-hits collector of the lexical legs: the best `limit` hits of a query and every hit
//! tied with the last of them, in one pass.
//!
//! tantivy's `TopDocs` keeps exactly `limit` hits and prunes (block-max WAND) every document
//! that cannot beat the `limit`-th score, so the rest of a tie that crosses the cut is never
//! seen; finding it took a second, deeper search. Here the pruning threshold sits just below
//! the cut's score by the tie tolerance ([`crate::SCORE_TIE`]), so tied documents still reach
//! the collector, and the threshold reached in one segment starts the next.

use std::sync::Mutex;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Weight;
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

use crate::ties::{same_score, SCORE_TIE};

/// The best `limit` hits and the hits tied with the `limit`-th, at most `cap` in all (a wider
/// tie is cut where tantivy's document order puts it), best first.
pub(super) struct TopWithTies {
    limit: usize,
    cap: usize,
    /// The highest cut score any segment has reached: no later hit below it can make the cut.
    floor: Mutex<Option<Score>>,
}

impl TopWithTies {
    pub(super) fn new(limit: usize, cap: usize) -> TopWithTies {
        let limit = limit.max(1);
        TopWithTies { limit, cap: cap.max(limit), floor: Mutex::new(None) }
    }

    fn shared_floor(&self) -> Option<Score> {
        *self.floor.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn raise_floor(&self, to: Score) {
        let mut floor = self.floor.lock().unwrap_or_else(|e| e.into_inner());
        *floor = Some(floor.map_or(to, |f| f.max(to)));
    }
}

/// The pruning threshold for a cut at `floor`: every score tied with it is above.
fn threshold(floor: Option<Score>) -> Score {
    floor.map_or(Score::MIN, |f| (f - 2.0 * SCORE_TIE * f.abs()).next_down())
}

/// Keeps the best `limit` of `hits` and those tied with the `limit`-th, at most `cap`, best
/// first; returns the cut's score when there were `limit` hits.
fn cut<T>(hits: &mut Vec<(Score, T)>, limit: usize, cap: usize) -> Option<Score> {
    hits.sort_by(|a, b| b.0.total_cmp(&a.0));
    let floor = hits.get(limit - 1).map(|h| h.0)?;
    let keep = hits.iter().take_while(|h| h.0 >= floor || same_score(h.0, floor)).count();
    hits.truncate(keep.min(cap));
    Some(floor)
}

impl Collector for TopWithTies {
    type Fruit = Vec<(Score, DocAddress)>;
    type Child = Unused;

    fn for_segment(&self, _: SegmentOrdinal, _: &SegmentReader) -> tantivy::Result<Unused> {
        Ok(Unused)
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Vec<(Score, DocAddress)>> {
        let (limit, cap) = (self.limit, self.cap);
        let mut floor = self.shared_floor();
        let mut hits: Vec<(Score, DocId)> = Vec::with_capacity(2 * limit);
        let mut compact_at = 2 * limit;
        let alive = reader.alive_bitset();
        weight.for_each_pruning(threshold(floor), reader, &mut |doc, score| {
            if alive.is_some_and(|a| a.is_deleted(doc)) {
                return threshold(floor);
            }
            hits.push((score, doc));
            if hits.len() >= compact_at {
                floor = floor.into_iter().chain(cut(&mut hits, limit, cap)).reduce(Score::max);
                compact_at = hits.len() + limit;
            }
            threshold(floor)
        })?;
        if let Some(f) = cut(&mut hits, limit, cap) {
            self.raise_floor(f);
        }
        Ok(hits.into_iter().map(|(score, doc)| (score, DocAddress::new(segment_ord, doc))).collect())
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(Score, DocAddress)>>) -> tantivy::Result<Self::Fruit> {
        let mut hits: Vec<(Score, DocAddress)> = fruits.into_iter().flatten().collect();
        if cut(&mut hits, self.limit, self.cap).is_none() {
            hits.truncate(self.cap);
        }
        Ok(hits)
    }
}

/// The segment collector tantivy's trait asks for; [`TopWithTies::collect_segment`] does not
/// use it.
pub(super) struct Unused;

impl SegmentCollector for Unused {
    type Fruit = Vec<(Score, DocAddress)>;

    fn collect(&mut self, _: DocId, _: Score) {}

    fn harvest(self) -> Self::Fruit {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{doc, Index, Term};

    use super::*;

    /// One index of three segments: in each, 20 documents that score best, 100 identical
    /// documents that tie, and 200 that score lower, interleaved.
    fn index() -> (Index, Box<dyn Query>) {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 20_000_000).unwrap();
        for _ in 0..3 {
            for i in 0..320 {
                let body = match i % 16 {
                    0 => "lighthouse keepers keep lighthouse keepers",
                    1..=5 => "lighthouse keepers and their lamps",
                    _ => "a lamp and a lighthouse far away on the rocks",
                };
                writer.add_document(doc!(text => body)).unwrap();
            }
            writer.commit().unwrap();
        }
        let terms = ["lighthouse", "keepers"].map(|t| {
            let q = TermQuery::new(Term::from_field_text(text, t), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(q) as Box<dyn Query>)
        });
        (index, Box::new(BooleanQuery::new(terms.into())))
    }

    #[test]
    fn a_tie_across_the_cut_comes_back_whole_in_one_pass() {
        let (index, query) = index();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 3);
        let every = searcher.search(&query, &TopDocs::with_limit(10_000).order_by_score()).unwrap();
        let scores: Vec<Score> = every.iter().map(|h| h.0).collect();
        let (best, tied) = (scores[0], scores[60]);
        assert_eq!(scores.iter().filter(|s| **s == best).count(), 60, "20 best per segment");
        assert_eq!(scores.iter().filter(|s| same_score(**s, tied)).count(), 300, "100 tied per segment");

        // The cut (70) falls inside the tie: the 60 best and all 300 tied come back.
        let hits = searcher.search(&query, &TopWithTies::new(70, 512)).unwrap();
        assert_eq!(hits.len(), 360);
        assert!(hits.windows(2).all(|w| w[0].0 >= w[1].0), "best first");
        assert!(hits[60..].iter().all(|h| same_score(h.0, tied)));
        // At most `cap`: a wider tie is cut.
        assert_eq!(searcher.search(&query, &TopWithTies::new(70, 100)).unwrap().len(), 100);
        // A cut on a score boundary keeps no lower hit.
        assert_eq!(searcher.search(&query, &TopWithTies::new(60, 512)).unwrap().len(), 60);
        // Fewer hits than `limit`: all of them.
        assert_eq!(searcher.search(&query, &TopWithTies::new(5_000, 10_000)).unwrap().len(), 960);
    }
}
