//! The per-layer routines shared by building and searching: greedy descent, the best-first
//! beam search of one layer (the paper's Algorithm 2), and the neighbour-selection heuristic
//! (Algorithm 4 without candidate extension or kept pruned connections, as hnswlib does).
//!
//! They work on any [`Graph`], so the build (lists behind mutexes) and the frozen index (flat
//! arrays) run the same code.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::kernel::DotFn;

/// Neighbour lists by node and level.
pub(crate) trait Graph {
    /// Replaces `out` with the neighbours of `node` at `level`.
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>);
}

/// What the layer search scores against: the matrix rows and the query.
pub(crate) struct Scorer<'a> {
    pub data: &'a [f32],
    pub dim: usize,
    pub query: &'a [f32],
    pub dot: DotFn,
}

impl Scorer<'_> {
    #[inline]
    pub fn score(&self, node: u32) -> f32 {
        let i = node as usize * self.dim;
        (self.dot)(&self.data[i..i + self.dim], self.query)
    }

    /// Asks the CPU to start loading the first cache lines of `node`'s vector.
    #[inline]
    pub fn prefetch(&self, node: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            let i = node as usize * self.dim;
            if i < self.data.len() {
                let p = self.data[i..].as_ptr().cast::<i8>();
                // SAFETY: prefetch is a hint and never faults; SSE is part of the x86-64 baseline.
                #[allow(unused_unsafe)]
                unsafe {
                    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                    _mm_prefetch(p, _MM_HINT_T0);
                    _mm_prefetch(p.wrapping_add(64), _MM_HINT_T0);
                }
            }
        }
    }
}

/// Visited marks with generation counters, reused across searches so that a search does not
/// clear (or allocate) an array as long as the matrix.
#[derive(Debug)]
pub(crate) struct Visited {
    marks: Vec<u16>,
    epoch: u16,
}

impl Visited {
    pub fn new(rows: usize) -> Self {
        Visited { marks: vec![0; rows], epoch: 0 }
    }

    /// Starts a new search: forgets every mark.
    pub fn reset(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.fill(0);
            self.epoch = 1;
        }
    }

    /// Marks `node`; `true` when it was not marked yet in this search.
    #[inline]
    pub fn insert(&mut self, node: u32) -> bool {
        let m = &mut self.marks[node as usize];
        if *m == self.epoch {
            false
        } else {
            *m = self.epoch;
            true
        }
    }
}

/// A scored node, ordered by the crate's rank order: higher score, then lower row, is "greater".
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scored {
    pub score: f32,
    pub node: u32,
}

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score.total_cmp(&other.score).then(other.node.cmp(&self.node))
    }
}

/// Greedy descent on one upper layer: move to the best neighbour while it improves.
pub(crate) fn greedy<G: Graph>(graph: &G, scorer: &Scorer<'_>, mut cur: Scored, level: usize) -> Scored {
    let mut buf = Vec::new();
    loop {
        let mut changed = false;
        graph.neighbors(cur.node, level, &mut buf);
        for &n in &buf {
            let s = Scored { score: scorer.score(n), node: n };
            if s > cur {
                cur = s;
                changed = true;
            }
        }
        if !changed {
            return cur;
        }
    }
}

/// Best-first search of `level` from `entry` keeping the best `ef` nodes that `allowed` accepts;
/// rejected nodes are still traversed. Returns the kept nodes, best first.
pub(crate) fn search_layer<G: Graph>(
    graph: &G,
    scorer: &Scorer<'_>,
    entry: Scored,
    ef: usize,
    level: usize,
    visited: &mut Visited,
    allowed: Option<&dyn Fn(u32) -> bool>,
) -> Vec<Scored> {
    let ok = |n: u32| allowed.is_none_or(|f| f(n));
    visited.reset();
    visited.insert(entry.node);
    let mut candidates = BinaryHeap::with_capacity(ef * 2);
    // Max-heap of `Reverse`: the top is the worst kept node.
    let mut results: BinaryHeap<std::cmp::Reverse<Scored>> = BinaryHeap::with_capacity(ef + 1);
    candidates.push(entry);
    if ok(entry.node) {
        results.push(std::cmp::Reverse(entry));
    }
    let mut worst = results.peek().map_or(f32::NEG_INFINITY, |r| r.0.score);
    let mut buf = Vec::new();
    while let Some(c) = candidates.pop() {
        if results.len() >= ef && c.score < worst {
            break;
        }
        graph.neighbors(c.node, level, &mut buf);
        buf.retain(|&n| visited.insert(n));
        for &n in &buf {
            scorer.prefetch(n);
        }
        for &n in &buf {
            let s = Scored { score: scorer.score(n), node: n };
            if results.len() < ef || s.score > worst {
                candidates.push(s);
                if ok(n) {
                    results.push(std::cmp::Reverse(s));
                    if results.len() > ef {
                        results.pop();
                    }
                }
                worst = results.peek().map_or(f32::NEG_INFINITY, |r| r.0.score);
            }
        }
    }
    let mut out: Vec<Scored> = results.into_iter().map(|r| r.0).collect();
    out.sort_by(|a, b| b.cmp(a));
    out
}

/// Algorithm 4 of Malkov & Yashunin: walk the candidates best first and keep one only when it is
/// closer to the base than to every neighbour kept so far (prunes edges that point the same way),
/// up to `m`. `candidates` must be sorted best first; `similarity(a, b)` is the inner product.
pub(crate) fn select_heuristic(
    candidates: &[Scored],
    m: usize,
    similarity: impl Fn(u32, u32) -> f32,
) -> Vec<u32> {
    let mut kept: Vec<u32> = Vec::with_capacity(m);
    for c in candidates {
        if kept.len() >= m {
            break;
        }
        if kept.iter().all(|&r| similarity(c.node, r) <= c.score) {
            kept.push(c.node);
        }
    }
    kept
}
