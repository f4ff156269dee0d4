//! What one file may cost a reader: bounds checked while it reads, not after.
//!
//! - [`ReadLimits`]: the `[ingest]` settings a reader obeys (`max_sections`,
//!   `max_page_operators`);
//! - [`HeadingCap`]: the headings a reader finds, never more than twice the sections a tree
//!   keeps, so that a file of millions of headings costs about what its text costs;
//!   [`merge_dropped`] makes the blocks of the dropped ones one block of text per run.

use strata_core::config::IngestConfig;
use strata_core::{Block, BlockKind};

use super::HeadingMark;
use crate::tree::keep_headings;

/// The bounds a reader obeys while it reads one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Headings kept at most (`[ingest] max_sections`): past it, the deepest and, of the
    /// level that fits in part, the last are read as text of the section above them.
    pub max_headings: usize,
    /// Content-stream operators read per PDF page at most (`[ingest] max_page_operators`);
    /// the rest of a page past it is cut, its text before kept.
    pub max_page_operators: usize,
}

impl Default for ReadLimits {
    /// The defaults of `[ingest]`.
    fn default() -> Self {
        ReadLimits::from_config(&IngestConfig::default())
    }
}

impl ReadLimits {
    /// The limits `[ingest]` sets.
    pub fn from_config(ingest: &IngestConfig) -> ReadLimits {
        ReadLimits { max_headings: ingest.max_sections, max_page_operators: ingest.max_page_operators }
    }
}

/// Headings gathered as a reader finds them, in document order, never more than twice
/// `max`: whenever they reach that, [`keep_headings`] takes them back to `max`. Keeping the
/// `max` shallowest of all headings (of a level that fits in part, the first) is keeping
/// them of each part in turn, so [`HeadingCap::finish`] gives what `keep_headings` gives on
/// the whole list, in memory bounded by `max`.
#[derive(Debug)]
pub struct HeadingCap {
    max: usize,
    kept: Vec<HeadingMark>,
    dropped: usize,
    most: usize,
}

impl HeadingCap {
    /// A cap that keeps `max` headings (at least 1).
    pub fn new(max: usize) -> HeadingCap {
        HeadingCap { max: max.max(1), kept: Vec::new(), dropped: 0, most: 0 }
    }

    /// Adds the next heading in document order.
    pub fn push(&mut self, mark: HeadingMark) {
        self.kept.push(mark);
        self.most = self.most.max(self.kept.len());
        if self.kept.len() >= self.max.saturating_mul(2) {
            let (kept, dropped) = keep_headings(std::mem::take(&mut self.kept), self.max);
            self.kept = kept;
            self.dropped += dropped;
        }
    }

    /// The headings gathered so far, in document order (some may still be dropped).
    pub fn marks(&self) -> &[HeadingMark] {
        &self.kept
    }

    /// The headings dropped so far.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// The headings held at most at any time.
    pub fn most(&self) -> usize {
        self.most
    }

    /// The headings kept, in document order, and how many were dropped.
    pub fn finish(self) -> (Vec<HeadingMark>, usize) {
        let (kept, dropped) = keep_headings(self.kept, self.max);
        (kept, self.dropped + dropped)
    }
}

/// Merges the blocks of the headings a cap dropped (read as text now), each run of them
/// with nothing but white space between into one block of kind `Other`, so that a document
/// of millions of heading lines holds blocks by the headings it keeps, not by its lines. A
/// heading block is kept when a `kept` heading starts inside it.
pub fn merge_dropped(text: &str, blocks: &mut Vec<Block>, kept: &[HeadingMark]) {
    let mut starts: Vec<usize> = kept.iter().map(|h| h.span.start).collect();
    starts.sort_unstable();
    let holds_kept = |b: &Block| {
        let i = starts.partition_point(|&s| s < b.span.start);
        starts.get(i).is_some_and(|&s| s <= b.span.end)
    };
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    let mut last_dropped = false;
    for block in blocks.drain(..) {
        let dropped = block.kind == BlockKind::Heading && !holds_kept(&block);
        match out.last_mut() {
            Some(prev)
                if dropped
                    && last_dropped
                    && prev.span.end <= block.span.start
                    && text.get(prev.span.end..block.span.start).is_some_and(|gap| gap.trim().is_empty()) =>
            {
                prev.span.end = block.span.end;
            }
            _ if dropped => out.push(Block::new(BlockKind::Other, block.span)),
            _ => out.push(block),
        }
        last_dropped = dropped;
    }
    *blocks = out;
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use strata_core::Span;

    use super::*;

    fn marks(levels: &[u32]) -> Vec<HeadingMark> {
        let mark = |(i, &level): (usize, &u32)| HeadingMark {
            level,
            title: format!("h{i}"),
            span: Span::new(i * 4, i * 4 + 3),
            number: None,
        };
        levels.iter().enumerate().map(mark).collect()
    }

    proptest! {
        /// The cap keeps what keep_headings keeps on the whole list, and holds at most twice
        /// its maximum on the way.
        #[test]
        fn the_cap_keeps_what_keep_headings_keeps(
            levels in prop::collection::vec(0u32..5, 0..400),
            max in 1usize..40,
        ) {
            let all = marks(&levels);
            let mut cap = HeadingCap::new(max);
            for m in all.clone() {
                cap.push(m);
            }
            prop_assert!(cap.most() <= 2 * max);
            prop_assert_eq!(cap.finish(), keep_headings(all, max));
        }
    }

    /// 15.7M `# a` lines took 4.3 GB: every heading was held until the tree dropped all but
    /// `max_sections`. The cap holds twice `max` at most at any time.
    #[test]
    fn regression_a_million_headings_are_held_a_few_thousand_at_a_time() {
        let mut cap = HeadingCap::new(1_000);
        for i in 0..1_000_000usize {
            let level = 1 + (i % 3) as u32;
            cap.push(HeadingMark {
                level,
                title: "a".into(),
                span: Span::new(i * 4, i * 4 + 3),
                number: None,
            });
        }
        assert!(cap.most() <= 2_000, "held {}", cap.most());
        let (kept, dropped) = cap.finish();
        assert_eq!((kept.len(), dropped), (1_000, 999_000));
        assert!(kept.iter().all(|h| h.level == 1), "the shallowest level is kept first");
    }
}
