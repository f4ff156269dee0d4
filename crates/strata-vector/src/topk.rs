//! Bounded top-k selection with deterministic ties, and merging of partial lists.
//!
//! Order: higher score first; among equal scores, the lower row number first. Every search in
//! the crate uses this one order, so flat search over one thread or several, and the per-thread
//! lists merged afterwards, give identical answers. Scores compare with `f32::total_cmp`, so a
//! NaN (which normalized input never produces) sorts consistently instead of poisoning the heap.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One result: a row number and its inner-product score.
pub type Hit = (u32, f32);

/// `Ordering::Less` when `a` ranks before (is better than) `b`.
#[inline]
pub fn rank_order(a: &Hit, b: &Hit) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Heap entry ordered so that the max-heap's top is the *worst* kept hit.
#[derive(Clone, Copy, Debug)]
struct Worst(Hit);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        rank_order(&self.0, &other.0)
    }
}

/// Keeps the best `k` hits pushed into it (a min-heap of size `k` by rank).
#[derive(Debug, Clone)]
pub struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    /// An empty selection of at most `k` hits.
    pub fn new(k: usize) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k + 1) }
    }

    /// Offers a hit; keeps it when fewer than `k` are held or it ranks before the worst held.
    #[inline]
    pub fn push(&mut self, row: u32, score: f32) {
        if self.heap.len() < self.k {
            self.heap.push(Worst((row, score)));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if rank_order(&(row, score), &worst.0) == Ordering::Less {
                *worst = Worst((row, score));
            }
        }
    }

    /// The score a new hit must reach to have a chance of being kept (`-inf` while not full).
    #[inline]
    pub fn threshold(&self) -> f32 {
        if self.heap.len() < self.k {
            f32::NEG_INFINITY
        } else {
            self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0 .1)
        }
    }

    /// Number of hits held.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no hit is held.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The held hits, best first.
    pub fn into_sorted_vec(self) -> Vec<Hit> {
        let mut v: Vec<Hit> = self.heap.into_iter().map(|w| w.0).collect();
        v.sort_by(rank_order);
        v
    }
}

/// Merges partial result lists (for example one per thread) into the best `k`, best first.
pub fn merge(lists: impl IntoIterator<Item = Vec<Hit>>, k: usize) -> Vec<Hit> {
    let mut top = TopK::new(k);
    for list in lists {
        for (row, score) in list {
            top.push(row, score);
        }
    }
    top.into_sorted_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_best_k_with_row_tiebreak() {
        let mut t = TopK::new(3);
        for (r, s) in [(5, 0.5), (1, 0.9), (4, 0.5), (9, 0.1), (2, 0.5), (3, 0.9)] {
            t.push(r, s);
        }
        assert_eq!(t.into_sorted_vec(), vec![(1, 0.9), (3, 0.9), (2, 0.5)]);
    }

    #[test]
    fn zero_k_keeps_nothing() {
        let mut t = TopK::new(0);
        t.push(1, 1.0);
        assert!(t.is_empty());
    }

    #[test]
    fn merge_equals_single_selection() {
        let all: Vec<Hit> = (0..100u32).map(|r| (r, ((r * 37) % 11) as f32)).collect();
        let mut one = TopK::new(10);
        for &(r, s) in &all {
            one.push(r, s);
        }
        let parts = vec![all[..40].to_vec(), all[40..].to_vec()];
        assert_eq!(merge(parts, 10), one.into_sorted_vec());
    }
}
