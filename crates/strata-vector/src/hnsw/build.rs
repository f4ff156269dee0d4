//! Building the graph: insert every row (the paper's Algorithm 1) on several threads, then
//! freeze the mutex-guarded lists into the flat arrays the search reads.
//!
//! Concurrency follows hnswlib: each node's lists sit behind their own mutex, and a thread holds
//! at most one of them at a time (copy out, release, score). The entry point and top level sit
//! behind one more mutex, which an insertion keeps for its whole duration only when it raises the
//! top level (a handful of times per build). Rows are taken in increasing order from an atomic
//! counter, so with one thread the graph is a pure function of the data and the parameters; with
//! more, the interleaving of insertions (not the levels, which come from the seed) can vary.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::layer::{greedy, search_layer, select_heuristic, Graph, Scored, Scorer, Visited};
use super::{sample_level, Hnsw, HnswParams};
use crate::kernel::dot_fn;
use crate::matrix::Matrix;

/// Neighbour lists during the build: node → level → neighbours.
struct BuildGraph {
    nodes: Vec<Mutex<Vec<Vec<u32>>>>,
}

impl Graph for BuildGraph {
    fn neighbors(&self, node: u32, level: usize, out: &mut Vec<u32>) {
        out.clear();
        let lists = self.nodes[node as usize].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = lists.get(level) {
            out.extend_from_slice(l);
        }
    }
}

/// Entry point and top level.
#[derive(Clone, Copy)]
struct Top {
    entry: Option<u32>,
    level: usize,
}

/// Builds the graph over every row of `matrix`; `params` are already validated.
pub(super) fn build<M: Matrix + ?Sized>(matrix: &M, params: &HnswParams) -> Hnsw {
    let rows = matrix.rows();
    let levels: Vec<u8> = (0..rows).map(|r| sample_level(params.seed, r as u64, params.m)).collect();
    let graph =
        BuildGraph { nodes: levels.iter().map(|&l| Mutex::new(vec![Vec::new(); l as usize + 1])).collect() };
    let top = Mutex::new(Top { entry: None, level: 0 });
    let next = AtomicUsize::new(0);
    let threads = params.threads.clamp(1, rows.max(1));
    let work = || {
        let mut visited = Visited::new(rows);
        loop {
            let q = next.fetch_add(1, Ordering::Relaxed);
            if q >= rows {
                break;
            }
            insert(matrix, params, &graph, &levels, &top, &mut visited, q as u32);
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    let top = top.into_inner().unwrap_or_else(|e| e.into_inner());
    let lists: Vec<Vec<Vec<u32>>> =
        graph.nodes.into_iter().map(|n| n.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    Hnsw::from_lists(params.clone(), matrix.dim(), top.entry, top.level, levels, &lists)
}

/// Inserts row `q` (Algorithm 1).
fn insert<M: Matrix + ?Sized>(
    matrix: &M,
    params: &HnswParams,
    graph: &BuildGraph,
    levels: &[u8],
    top: &Mutex<Top>,
    visited: &mut Visited,
    q: u32,
) {
    let level = levels[q as usize] as usize;
    let mut guard = Some(top.lock().unwrap_or_else(|e| e.into_inner()));
    let Top { entry, level: top_level } = **guard.as_ref().expect("held");
    let Some(entry) = entry else {
        **guard.as_mut().expect("held") = Top { entry: Some(q), level };
        return;
    };
    if level <= top_level {
        guard = None; // Only an insertion that raises the top level keeps the lock.
    }
    let dim = matrix.dim();
    let data = matrix.as_slice();
    let dot = dot_fn();
    let scorer = Scorer { data, dim, query: matrix.row(q as usize), dot };
    let sim = |a: u32, b: u32| dot(matrix.row(a as usize), matrix.row(b as usize));
    let mut cur = Scored { score: scorer.score(entry), node: entry };
    for l in (level + 1..=top_level).rev() {
        cur = greedy(graph, &scorer, cur, l);
    }
    let mut buf = Vec::new();
    let mut scored = Vec::new();
    for l in (0..=level.min(top_level)).rev() {
        let found = search_layer(graph, &scorer, cur, params.ef_construction, l, visited, None);
        let chosen = select_heuristic(&found, params.m, sim);
        let cap = if l == 0 { params.m * 2 } else { params.m };
        set_own_list(graph, q, l, &chosen, cap, &sim, &mut scored);
        for &e in &chosen {
            link(graph, e, q, l, cap, &sim, &mut buf);
        }
        cur = found[0];
    }
    if let Some(mut g) = guard {
        *g = Top { entry: Some(q), level };
    }
}

/// Sets `q`'s own list at `level` to `chosen`, keeping the edges other threads added meanwhile.
///
/// Regression (found by a doctest that failed about once in 20 runs): once `q` is linked on an
/// upper level, another thread can descend through it, pick it as a neighbour on a lower level and
/// add its own node to `q`'s still-empty list there; overwriting that list dropped the edge, and
/// with it, sometimes, the only way into a node. The lists are merged (and shrunk with the
/// heuristic past `cap`) instead.
fn set_own_list(
    graph: &BuildGraph,
    q: u32,
    level: usize,
    chosen: &[u32],
    cap: usize,
    sim: &impl Fn(u32, u32) -> f32,
    buf: &mut Vec<Scored>,
) {
    let mut lists = graph.nodes[q as usize].lock().unwrap_or_else(|err| err.into_inner());
    let list = &mut lists[level];
    let added: Vec<u32> = list.iter().copied().filter(|n| !chosen.contains(n)).collect();
    list.clear();
    list.extend_from_slice(chosen);
    list.extend(added);
    if list.len() > cap {
        buf.clear();
        buf.extend(list.iter().map(|&n| Scored { score: sim(q, n), node: n }));
        buf.sort_by(|a, b| b.cmp(a));
        *list = select_heuristic(buf, cap, sim);
    }
}

/// Adds `q` to `e`'s list at `level`, shrinking the list with the heuristic when it exceeds `cap`.
fn link(
    graph: &BuildGraph,
    e: u32,
    q: u32,
    level: usize,
    cap: usize,
    sim: &impl Fn(u32, u32) -> f32,
    buf: &mut Vec<Scored>,
) {
    let mut lists = graph.nodes[e as usize].lock().unwrap_or_else(|err| err.into_inner());
    let list = &mut lists[level];
    if list.contains(&q) {
        return;
    }
    if list.len() < cap {
        list.push(q);
        return;
    }
    buf.clear();
    buf.extend(list.iter().chain(std::iter::once(&q)).map(|&n| Scored { score: sim(e, n), node: n }));
    buf.sort_by(|a, b| b.cmp(a));
    *list = select_heuristic(buf, cap, sim);
}
