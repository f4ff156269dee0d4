//! The embedded store's dense vectors: immutable segments, published by tantivy's commit.
//!
//! ```text
//! .strata/vectors/
//!   seg-000003.vec     strata-vector matrix file: rows of f32, memory-mapped
//!   seg-000003.keys    JSON: which document and chunk each row is, with node and kind
//!   seg-000003.hnsw    HNSW graph over the segment's rows (large segments only)
//!   seg-000003.q8      int8 codes of the rows (large segments without a graph only)
//!   seg-000003.b1      one-bit codes of the rows (the same segments, when calibrated)
//! ```
//!
//! Each commit that put documents writes one new segment. Which segments are live, and which
//! documents inside older segments are dead (replaced or removed since), is recorded in the
//! payload of the same tantivy commit that publishes the documents' records, so vectors and
//! chunks can never disagree: a crash before that commit leaves the new files unreferenced,
//! and the next commit deletes them.
//!
//! Search is exact inner product over every live row of the small segments (SIMD, both
//! cores) plus an HNSW search of each segment that has a graph; the lists are merged by
//! score. Once the live rows reach the ANN threshold, a commit merges all live rows into one
//! segment with a graph, and merges again when small segments or dead rows grow past a
//! tenth of it. A graph's beam width is calibrated on its own rows to recall@10 ≥ 0.95
//! against exact search; a graph that is slower than the exact scan at that width (uniform
//! random data) is not kept, and the segment is scanned exactly.
//!
//! A segment of at least [`QUANT_MIN_ROWS`] rows without a graph also gets int8 codes
//! (`strata_vector::quant`): its scan reads the codes, a quarter of the bytes, keeps the best
//! [`RESCORE`] × `limit` rows by approximate score and scores those exactly in f32, so scores
//! stay exact and only the candidate set is approximate. At a million rows of 384 dimensions
//! this takes the scan from 1.5 GB of memory traffic per query to 0.4 GB
//! (`bench/results/search-latency.md`). Segments written before codes existed are scanned in
//! f32 until their next merge.
//!
//! Such a segment also gets one-bit codes (`strata_vector::bits`) when they calibrate: on
//! blends of its own rows, the best `multiple × limit` rows by the one-bit estimate must hold
//! 99 % of the exact top 100. Its scan then reads those (an eighth of the int8 codes' bytes)
//! and scores the candidates in f32; the int8 codes stay for segments whose bits do not
//! calibrate, and for indexes written before them.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_core::{ChunkId, ChunkKind, ChunkVectors, DocId, Error, Result};
use strata_vector::bits::BitMatrix;
use strata_vector::quant::QuantMatrix;
use strata_vector::{flat, write_matrix, Hnsw, HnswParams, Matrix, MmapMatrix};

use crate::store::{Filter, LegHit};

/// Folder of the vector files inside the index folder.
pub const VECTORS_DIR: &str = "vectors";

/// Merge everything into one segment when more than this share of rows is dead or sits in
/// small segments next to a graph-indexed one.
const MERGE_SHARE: f64 = 0.1;
/// Most segments before they are merged.
const MAX_SEGMENTS: usize = 16;
/// Rows from which a segment without a graph gets int8 codes for its scan. Below this the f32
/// rows are few enough that the scan costs little either way.
pub const QUANT_MIN_ROWS: usize = 50_000;
/// Multiple of the requested hits rescored in f32 after an int8 scan.
const RESCORE: usize = 4;

/// What a row is: its id, node, kind and first and last page.
pub type Row = (String, u32, ChunkKind, (u32, u32));

/// The vector state a tantivy commit publishes (its payload, as JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VectorState {
    /// Number of the next segment.
    pub next: u64,
    /// Live segments, oldest first.
    pub segments: Vec<SegmentState>,
}

/// One live segment and the documents in it that are no longer live.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentState {
    /// File stem, `seg-NNNNNN`.
    pub name: String,
    /// Documents of this segment replaced or removed by later commits.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub dead: BTreeSet<String>,
    /// Whether `NAME.hnsw` exists.
    #[serde(default)]
    pub hnsw: bool,
    /// Whether a graph was built for this segment, kept or not. A segment whose graph did
    /// not pay off counts as indexed, so that later commits do not merge and rebuild it
    /// again and again.
    #[serde(default)]
    pub ann_checked: bool,
    /// Whether `NAME.q8` (int8 codes of the rows) exists.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quant: bool,
    /// Whether `NAME.b1` (one-bit codes, the first pass of the scan) exists.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bits: bool,
}

/// The files [`write_segment`] kept besides the rows and keys.
struct Written {
    hnsw: bool,
    quant: bool,
    bits: bool,
}

/// `NAME.keys`: what each row of a segment is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SegmentKeys {
    model: String,
    dim: usize,
    docs: Vec<SegmentDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SegmentDoc {
    id: String,
    first_row: u32,
    chunks: Vec<String>,
    nodes: Vec<u32>,
    kinds: Vec<ChunkKind>,
    /// First and last page of each row (empty in segments written before page filters:
    /// such rows never pass a page filter, and the store refuses page filters on them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pages: Vec<(u32, u32)>,
}

/// A loaded segment.
struct Segment {
    state: SegmentState,
    matrix: MmapMatrix,
    keys: SegmentKeys,
    /// Row → index into `keys.docs`.
    row_doc: Vec<u32>,
    /// Row → live.
    live: Vec<bool>,
    live_rows: usize,
    hnsw: Option<Hnsw>,
    quant: Option<QuantMatrix>,
    bits: Option<BitMatrix>,
}

/// Vectors staged for the next commit: one document's chunks.
struct Staged {
    doc: SegmentDoc,
    values: Vec<f32>,
}

/// The vectors of an embedded store: the loaded live segments and the staged changes.
pub struct Vectors {
    dir: PathBuf,
    state: VectorState,
    segments: Vec<Segment>,
    staged: Vec<Staged>,
    /// Documents put or removed since the last commit: dead in every older segment.
    touched: HashSet<String>,
    ann_threshold: usize,
}

fn index_err(dir: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Index { path: dir.to_path_buf(), reason: reason.to_string() }
}

impl Vectors {
    /// Loads the segments `state` names from `index_dir/vectors` (chunk vectors) or, with
    /// `space` = `Some("sections")`, from `index_dir/vectors/sections`.
    pub fn open(
        index_dir: &Path,
        space: Option<&str>,
        state: VectorState,
        ann_threshold: usize,
    ) -> Result<Vectors> {
        let dir = match space {
            Some(space) => index_dir.join(VECTORS_DIR).join(space),
            None => index_dir.join(VECTORS_DIR),
        };
        let segments =
            state.segments.iter().map(|s| Segment::load(&dir, s.clone())).collect::<Result<_>>()?;
        Ok(Vectors { dir, state, segments, staged: Vec::new(), touched: HashSet::new(), ann_threshold })
    }

    /// Rows of every segment, removed ones included.
    pub fn rows(&self) -> usize {
        self.segments.iter().map(|s| s.matrix.rows()).sum()
    }

    /// Rows that are not unit vectors, as (file, row), at most `max`: every vector is stored
    /// L2-normalized (or all zeros, for a text without a known token), so a NaN or a norm
    /// away from 1 is a damaged file.
    pub fn damaged_rows(&self, max: usize) -> Vec<(PathBuf, usize)> {
        let mut out = Vec::new();
        for s in &self.segments {
            for i in 0..s.matrix.rows() {
                let norm: f32 = s.matrix.row(i).iter().map(|x| x * x).sum();
                if !(norm == 0.0 || (norm - 1.0).abs() <= 1e-3) {
                    out.push((s.matrix.path().to_path_buf(), i));
                    if out.len() == max {
                        return out;
                    }
                }
            }
        }
        out
    }

    /// Sets the row count above which segments get an HNSW graph.
    pub fn set_ann_threshold(&mut self, rows: usize) {
        self.ann_threshold = rows;
    }

    /// Live vectors.
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.live_rows).sum()
    }

    /// Stages the vectors of a document's chunks, replacing any earlier ones.
    pub fn put(&mut self, doc: &DocId, chunks: &[strata_core::Chunk], vectors: Option<&ChunkVectors>) {
        let rows = chunks
            .iter()
            .map(|c| (c.id.0.clone(), c.node.0, c.kind, (c.pages.first, c.pages.last)))
            .collect();
        self.put_rows(doc, rows, vectors);
    }

    /// Stages vectors of a document's rows (id, node, kind, pages), replacing any earlier
    /// ones.
    pub fn put_rows(&mut self, doc: &DocId, rows: Vec<Row>, vectors: Option<&ChunkVectors>) {
        self.remove(doc);
        let Some(vectors) = vectors else { return };
        let mut d = SegmentDoc {
            id: doc.as_str().to_string(),
            first_row: 0,
            chunks: Vec::with_capacity(rows.len()),
            nodes: Vec::with_capacity(rows.len()),
            kinds: Vec::with_capacity(rows.len()),
            pages: Vec::with_capacity(rows.len()),
        };
        for (id, node, kind, pages) in rows {
            d.chunks.push(id);
            d.nodes.push(node);
            d.kinds.push(kind);
            d.pages.push(pages);
        }
        self.staged.push(Staged { doc: d, values: vectors.values.clone() });
    }

    /// Stages the removal of a document's vectors.
    pub fn remove(&mut self, doc: &DocId) {
        self.staged.retain(|s| s.doc.id != doc.as_str());
        self.touched.insert(doc.as_str().to_string());
    }

    /// Writes the staged vectors as a new segment (merging and building graphs when due) and
    /// returns the state to publish with the commit. Nothing is visible until
    /// [`Vectors::published`] is called after the commit succeeded.
    pub fn prepare(&mut self, model: &str, dim: usize) -> Result<VectorState> {
        let mut state = self.state.clone();
        // Older segments lose the documents touched in this transaction.
        for (seg, s) in state.segments.iter_mut().zip(&self.segments) {
            for doc in &s.keys.docs {
                if self.touched.contains(&doc.id) {
                    seg.dead.insert(doc.id.clone());
                }
            }
        }
        let live_of = |seg: &SegmentState, s: &Segment| -> usize {
            s.keys.docs.iter().filter(|d| !seg.dead.contains(&d.id)).map(|d| d.chunks.len()).sum()
        };
        let mut kept: Vec<(SegmentState, usize, usize)> = Vec::new(); // state, live rows, all rows
        for (seg, s) in state.segments.iter().zip(&self.segments) {
            let live = live_of(seg, s);
            if live > 0 {
                kept.push((seg.clone(), live, s.matrix.rows()));
            }
        }
        let staged_rows: usize = self.staged.iter().map(|s| s.doc.chunks.len()).sum();
        let live_total = kept.iter().map(|k| k.1).sum::<usize>() + staged_rows;
        let all_total = kept.iter().map(|k| k.2).sum::<usize>() + staged_rows;
        let indexed = kept.iter().filter(|k| k.0.hnsw || k.0.ann_checked).map(|k| k.1).max().unwrap_or(0);

        let merge = live_total > 0
            && (kept.len() + 1 > MAX_SEGMENTS
                || (live_total >= self.ann_threshold
                    && (live_total - indexed) as f64 > MERGE_SHARE * live_total as f64)
                || (all_total - live_total) as f64 > MERGE_SHARE.max(0.25) * all_total as f64);

        let mut new_docs: Vec<(SegmentDoc, Vec<f32>)> = Vec::new();
        if merge {
            for (seg, s) in state.segments.iter().zip(&self.segments) {
                for doc in s.keys.docs.iter().filter(|d| !seg.dead.contains(&d.id)) {
                    let first = doc.first_row as usize;
                    let values = s.matrix.as_slice()
                        [first * s.matrix.dim()..(first + doc.chunks.len()) * s.matrix.dim()]
                        .to_vec();
                    new_docs.push((doc.clone(), values));
                }
            }
            kept.clear();
        }
        new_docs.extend(self.staged.iter().map(|s| (s.doc.clone(), s.values.clone())));

        let mut segments: Vec<SegmentState> = kept.into_iter().map(|k| k.0).collect();
        if !new_docs.is_empty() {
            let name = format!("seg-{:06}", state.next);
            state.next += 1;
            let rows: usize = new_docs.iter().map(|d| d.0.chunks.len()).sum();
            let ann_checked = rows >= self.ann_threshold;
            let Written { hnsw, quant, bits } =
                write_segment(&self.dir, &name, model, dim, new_docs, ann_checked)?;
            segments.push(SegmentState { name, dead: BTreeSet::new(), hnsw, ann_checked, quant, bits });
        }
        state.segments = segments;
        Ok(state)
    }

    /// Makes `state` (just committed) the current one, and deletes files no state names.
    pub fn published(&mut self, state: VectorState) -> Result<()> {
        self.reload(state)?;
        self.staged.clear();
        self.touched.clear();
        self.remove_unpublished(&VectorState::default());
        Ok(())
    }

    /// Forgets what was staged since the last commit. The files [`Vectors::prepare`] wrote
    /// for a commit that failed stay until [`Vectors::remove_unpublished`].
    pub fn discard(&mut self) {
        self.staged.clear();
        self.touched.clear();
    }

    /// Deletes the segment files that neither the current state nor `also` names: those of
    /// a commit that failed or never happened, and the temporary files of one cut short while
    /// writing (`.seg-NNNNNN.vec.tmp-PID`). Only a writer may call it.
    pub fn remove_unpublished(&self, also: &VectorState) {
        let keep: HashSet<&str> =
            self.state.segments.iter().chain(&also.segments).map(|s| s.name.as_str()).collect();
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let temporary = name.starts_with(".seg-") && name.contains(".tmp-");
            if temporary || (stem.starts_with("seg-") && !keep.contains(stem)) {
                // A reader that still maps the file keeps its pages; only the name goes.
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// Switches to `state`, reusing segments that are already loaded.
    pub fn reload(&mut self, state: VectorState) -> Result<()> {
        if state == self.state {
            return Ok(());
        }
        let mut old: HashMap<String, Segment> =
            self.segments.drain(..).map(|s| (s.state.name.clone(), s)).collect();
        let mut segments = Vec::with_capacity(state.segments.len());
        for seg in &state.segments {
            match old.remove(&seg.name) {
                Some(mut s) => {
                    s.set_dead(seg.clone());
                    segments.push(s);
                }
                None => segments.push(Segment::load(&self.dir, seg.clone())?),
            }
        }
        self.segments = segments;
        self.state = state;
        Ok(())
    }

    /// The `limit` live chunks whose vectors score highest against `query`, best first.
    pub fn search(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<LegHit>> {
        let mut hits: Vec<(f32, &str)> = Vec::new();
        for s in &self.segments {
            let doc_ix = filter.doc.as_ref().map(|d| s.keys.docs.iter().position(|x| x.id == d.as_str()));
            if doc_ix == Some(None) {
                continue;
            }
            let keep = |row: u32| -> bool {
                let row = row as usize;
                if !s.live[row] {
                    return false;
                }
                let di = s.row_doc[row] as usize;
                if let Some(Some(want)) = doc_ix {
                    if di != want {
                        return false;
                    }
                }
                let doc = &s.keys.docs[di];
                let j = row - doc.first_row as usize;
                if let Some((first, last)) = filter.nodes {
                    let node = doc.nodes[j];
                    if node < first.0 || node > last.0 {
                        return false;
                    }
                }
                if let Some((first, last)) = filter.pages {
                    match doc.pages.get(j) {
                        Some(&(a, b)) if a <= last && b >= first => {}
                        _ => return false,
                    }
                }
                filter.kind.is_none_or(|k| doc.kinds[j] == k)
            };
            let all_live = s.live_rows == s.matrix.rows();
            let unfiltered = all_live
                && filter.doc.is_none()
                && filter.nodes.is_none()
                && filter.kind.is_none()
                && filter.pages.is_none();
            let keep_ref: &(dyn Fn(u32) -> bool + Sync) = &keep;
            let filter = (!unfiltered).then_some(keep_ref);
            let found = match (doc_ix, &s.hnsw, &s.quant) {
                (Some(Some(di)), ..) => s.search_document(di, query, limit, keep_ref),
                (_, Some(graph), _) => graph.search(&s.matrix, query, limit, filter),
                (_, None, Some(codes)) => match &s.bits {
                    Some(bits) => bits.search(&s.matrix, query, limit, filter),
                    None => codes.search(&s.matrix, query, limit, RESCORE, filter),
                },
                (_, None, None) => flat::search(&s.matrix, query, limit, filter),
            }
            .map_err(|e| index_err(&self.dir, e))?;
            for (row, score) in found {
                let doc = &s.keys.docs[s.row_doc[row as usize] as usize];
                hits.push((score, &doc.chunks[row as usize - doc.first_row as usize]));
            }
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        hits.truncate(limit);
        Ok(hits.into_iter().map(|(score, chunk)| LegHit { chunk: ChunkId::from(chunk), score }).collect())
    }
}

impl Segment {
    /// The best `limit` rows of document `di` that `keep` keeps, scored exactly. A
    /// document's rows are contiguous, so this reads only them, where a filtered scan of the
    /// segment reads every row (the documents stage searches each shortlisted document
    /// alone, at a million rows a scan each).
    fn search_document(
        &self,
        di: usize,
        query: &[f32],
        limit: usize,
        keep: &(dyn Fn(u32) -> bool + Sync),
    ) -> std::result::Result<Vec<strata_vector::Hit>, strata_vector::VectorError> {
        let doc = &self.keys.docs[di];
        let first = doc.first_row as usize;
        flat::search_rows(&self.matrix, query, limit, Some(keep), first..first + doc.chunks.len())
    }

    fn load(dir: &Path, state: SegmentState) -> Result<Segment> {
        let base = dir.join(&state.name);
        let matrix = MmapMatrix::open(&base.with_extension("vec")).map_err(|e| index_err(dir, e))?;
        let keys_path = base.with_extension("keys");
        let text = std::fs::read(&keys_path)
            .map_err(|e| Error::io(format!("reading {}", keys_path.display()), e))?;
        let keys: SegmentKeys = serde_json::from_slice(&text).map_err(|e| {
            index_err(dir, format!("{} is damaged ({e}); re-create the index", keys_path.display()))
        })?;
        let rows: usize = keys.docs.iter().map(|d| d.chunks.len()).sum();
        if rows != matrix.rows() || keys.dim != matrix.dim() {
            return Err(index_err(
                dir,
                format!(
                    "{}: {} rows of {} in the keys, {} of {} in the matrix; re-create the index",
                    state.name,
                    rows,
                    keys.dim,
                    matrix.rows(),
                    matrix.dim()
                ),
            ));
        }
        let mut row_doc = Vec::with_capacity(rows);
        for (i, d) in keys.docs.iter().enumerate() {
            row_doc.extend(std::iter::repeat_n(i as u32, d.chunks.len()));
        }
        let hnsw = if state.hnsw {
            Some(Hnsw::load(&base.with_extension("hnsw"), &matrix).map_err(|e| index_err(dir, e))?)
        } else {
            None
        };
        let quant = if state.quant {
            let path = base.with_extension("q8");
            Some(QuantMatrix::open(&path, matrix.dim(), matrix.rows()).map_err(|e| index_err(dir, e))?)
        } else {
            None
        };
        let bits = if state.bits {
            let path = base.with_extension("b1");
            Some(BitMatrix::open(&path, matrix.dim(), matrix.rows()).map_err(|e| index_err(dir, e))?)
        } else {
            None
        };
        let mut segment = Segment {
            state: state.clone(),
            matrix,
            keys,
            row_doc,
            live: Vec::new(),
            live_rows: 0,
            hnsw,
            quant,
            bits,
        };
        segment.set_dead(state);
        Ok(segment)
    }

    fn set_dead(&mut self, state: SegmentState) {
        self.live = vec![true; self.matrix.rows()];
        for d in self.keys.docs.iter().filter(|d| state.dead.contains(&d.id)) {
            let first = d.first_row as usize;
            self.live[first..first + d.chunks.len()].iter_mut().for_each(|l| *l = false);
        }
        self.live_rows = self.live.iter().filter(|l| **l).count();
        self.state = state;
    }
}

/// Recall@10 the graph must reach, against exact search, for [`write_segment`] to keep it.
const ANN_RECALL: f64 = 0.95;
/// Widest beam calibration tries before giving up on a graph.
const ANN_MAX_EF: usize = 4096;

/// Writes `NAME.vec`, `NAME.keys` and, when `ann` asks for it, `NAME.hnsw`; then, for a segment
/// of [`QUANT_MIN_ROWS`] rows or more without a graph, `NAME.q8` and, when its calibration
/// reaches its recall, `NAME.b1`. Returns which of them were kept. A graph is calibrated to recall@10 ≥ [`ANN_RECALL`] on the segment's
/// own rows and dropped when, at that width, it is slower than scanning every vector.
fn write_segment(
    dir: &Path,
    name: &str,
    model: &str,
    dim: usize,
    docs: Vec<(SegmentDoc, Vec<f32>)>,
    ann: bool,
) -> Result<Written> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let base = dir.join(name);
    let mut keys = SegmentKeys { model: model.to_string(), dim, docs: Vec::with_capacity(docs.len()) };
    let mut values = Vec::new();
    let mut row = 0u32;
    for (mut doc, v) in docs {
        if v.len() != doc.chunks.len() * dim {
            return Err(Error::Internal(format!(
                "{}: {} values for {} chunks of dimension {dim}",
                doc.id,
                v.len(),
                doc.chunks.len()
            )));
        }
        doc.first_row = row;
        row += doc.chunks.len() as u32;
        values.extend_from_slice(&v);
        keys.docs.push(doc);
    }
    write_matrix(&base.with_extension("vec"), dim, &values).map_err(|e| index_err(dir, e))?;
    let keys_path = base.with_extension("keys");
    let text = serde_json::to_vec(&keys).map_err(|e| Error::Internal(e.to_string()))?;
    write_synced(&keys_path, &text)?;
    let matrix = MmapMatrix::open(&base.with_extension("vec")).map_err(|e| index_err(dir, e))?;
    let quantize = |matrix: &MmapMatrix| -> Result<Written> {
        if matrix.rows() < QUANT_MIN_ROWS {
            return Ok(Written { hnsw: false, quant: false, bits: false });
        }
        let codes = QuantMatrix::from_matrix(matrix);
        codes.save(&base.with_extension("q8")).map_err(|e| index_err(dir, e))?;
        let bits = BitMatrix::build(matrix);
        match &bits {
            Some(b) => {
                b.save(&base.with_extension("b1")).map_err(|e| index_err(dir, e))?;
                tracing::info!(rows = matrix.rows(), multiple = b.multiple(), "one-bit codes calibrated");
            }
            None => {
                tracing::info!(rows = matrix.rows(), "one-bit codes miss their recall; the int8 scan stays")
            }
        }
        Ok(Written { hnsw: false, quant: true, bits: bits.is_some() })
    };
    if !ann {
        return quantize(&matrix);
    }
    let started = std::time::Instant::now();
    let mut graph = Hnsw::build(&matrix, HnswParams::default()).map_err(|e| index_err(dir, e))?;
    let c = graph.calibrate(&matrix, 10, ANN_RECALL, 200, ANN_MAX_EF).map_err(|e| index_err(dir, e))?;
    let secs = started.elapsed().as_secs_f64();
    if !c.pays_off() {
        tracing::info!(rows = matrix.rows(), ?c, "HNSW graph dropped: exact search is as good and faster");
        return quantize(&matrix);
    }
    graph.save(&base.with_extension("hnsw")).map_err(|e| index_err(dir, e))?;
    tracing::info!(
        rows = matrix.rows(),
        secs,
        ef_search = c.ef_search,
        recall = c.recall,
        "built HNSW graph"
    );
    Ok(Written { hnsw: true, quant: false, bits: false })
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let io = |e| Error::io(format!("writing {}", path.display()), e);
    let mut f = std::fs::File::create(path).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)
}
