//! The graph file: versioned, written atomically, vectors not included.
//!
//! Layout (format version 1, integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `STRAHNSW` |
//! | 8 | 4 | format version (`u32`, 1) |
//! | 12 | 4 | dim |
//! | 16 | 8 | rows |
//! | 24 | 4 | m |
//! | 28 | 4 | ef_construction |
//! | 32 | 4 | ef_search |
//! | 36 | 4 | top level |
//! | 40 | 4 | entry row (`u32::MAX` when empty) |
//! | 44 | 4 | reserved |
//! | 48 | 8 | level seed |
//! | 56 | 8 | reserved |
//! | 64 | rows | level of each row (`u8`) |
//! | … | | per row, per level 0..=its level: count (`u32`), then `count` neighbour rows (`u32`) |
//!
//! Loading checks every count, neighbour and level against the header and refuses trailing
//! bytes, so a truncated or corrupted file is a `Format` error, never a panic or a bad graph.

use std::io::Write;
use std::path::Path;

use super::{Hnsw, HnswParams, MAX_LEVEL};
use crate::error::VectorError;
use crate::fsio::write_atomically;
use crate::matrix::Matrix;

/// The first eight bytes of a graph file.
pub const GRAPH_MAGIC: &[u8; 8] = b"STRAHNSW";
/// The graph format version this build writes and reads.
pub const GRAPH_VERSION: u32 = 1;
const HEADER_LEN: usize = 64;

impl Hnsw {
    /// Writes the graph (not the vectors) to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), VectorError> {
        write_atomically(path, |w| {
            let mut h = [0u8; HEADER_LEN];
            h[..8].copy_from_slice(GRAPH_MAGIC);
            h[8..12].copy_from_slice(&GRAPH_VERSION.to_le_bytes());
            h[12..16].copy_from_slice(&(self.dim as u32).to_le_bytes());
            h[16..24].copy_from_slice(&(self.rows as u64).to_le_bytes());
            h[24..28].copy_from_slice(&(self.params.m as u32).to_le_bytes());
            h[28..32].copy_from_slice(&(self.params.ef_construction as u32).to_le_bytes());
            h[32..36].copy_from_slice(&(self.params.ef_search as u32).to_le_bytes());
            h[36..40].copy_from_slice(&(self.top_level as u32).to_le_bytes());
            h[40..44].copy_from_slice(&self.entry.unwrap_or(u32::MAX).to_le_bytes());
            h[48..56].copy_from_slice(&self.params.seed.to_le_bytes());
            w.write_all(&h)?;
            w.write_all(&self.levels)?;
            for node in 0..self.rows as u32 {
                for level in 0..=self.levels[node as usize] as usize {
                    let list = self.list(node, level);
                    w.write_all(&(list.len() as u32).to_le_bytes())?;
                    for n in list {
                        w.write_all(&n.to_le_bytes())?;
                    }
                }
            }
            Ok(())
        })
    }

    /// Reads the graph at `path` for use with `matrix`, which must have the rows and width the
    /// graph was built over. Build threads are set to this machine's parallelism.
    pub fn load<M: Matrix + ?Sized>(path: &Path, matrix: &M) -> Result<Hnsw, VectorError> {
        let bytes = std::fs::read(path).map_err(|e| VectorError::io(path, e))?;
        let hnsw = parse(&bytes).map_err(|reason| {
            VectorError::format(path, format!("{reason}; rebuild the index (re-ingest)"))
        })?;
        if hnsw.dim != matrix.dim() || hnsw.rows != matrix.rows() {
            return Err(VectorError::format(
                path,
                format!(
                    "graph covers {} rows × {} dims, the matrix has {} rows × {} dims; rebuild the index (re-ingest)",
                    hnsw.rows,
                    hnsw.dim,
                    matrix.rows(),
                    matrix.dim()
                ),
            ));
        }
        Ok(hnsw)
    }
}

/// A bounds-checked little-endian reader over the file bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "graph file truncated: needs more than {} bytes at offset {}, file has {}",
                n,
                self.at,
                self.bytes.len()
            ));
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
}

fn parse(bytes: &[u8]) -> Result<Hnsw, String> {
    let mut c = Cursor { bytes, at: 0 };
    let magic = c.take(8).map_err(|_| format!("not a strata graph file: {} bytes", bytes.len()))?;
    if magic != GRAPH_MAGIC {
        return Err(format!(
            "not a strata graph file: magic {:?}, expected {:?}",
            String::from_utf8_lossy(magic),
            String::from_utf8_lossy(GRAPH_MAGIC)
        ));
    }
    let version = c.u32()?;
    if version != GRAPH_VERSION {
        return Err(format!("graph file format version {version}, this build reads version {GRAPH_VERSION}"));
    }
    let dim = c.u32()? as usize;
    let rows = c.u64()?;
    let m = c.u32()? as usize;
    let ef_construction = c.u32()? as usize;
    let ef_search = c.u32()? as usize;
    let top_level = c.u32()? as usize;
    let entry = c.u32()?;
    c.take(4)?;
    let seed = c.u64()?;
    c.take(8)?;
    let params = HnswParams { m, ef_construction, ef_search, seed, ..HnswParams::default() };
    params.validate().map_err(|e| format!("graph header holds {e}"))?;
    if dim == 0 || rows >= u32::MAX as u64 || top_level > MAX_LEVEL as usize {
        return Err(format!("graph header is inconsistent: dim {dim}, rows {rows}, top level {top_level}"));
    }
    let rows = rows as usize;
    let levels = c.take(rows)?.to_vec();
    let entry = match entry {
        u32::MAX if rows == 0 => None,
        e if (e as usize) < rows && levels[e as usize] as usize == top_level => Some(e),
        e => return Err(format!("graph entry row {e} is not a row of level {top_level} among {rows} rows")),
    };
    let mut lists = Vec::with_capacity(rows);
    for (node, &level) in levels.iter().enumerate() {
        if level as usize > top_level {
            return Err(format!("row {node} has level {level}, above the top level {top_level}"));
        }
        let mut node_lists = Vec::with_capacity(level as usize + 1);
        for l in 0..=level as usize {
            let count = c.u32()? as usize;
            let cap = if l == 0 { 2 * m } else { m };
            if count > cap {
                return Err(format!("row {node} has {count} neighbours on level {l}, at most {cap} allowed"));
            }
            let raw = c.take(count * 4)?;
            let list: Vec<u32> =
                raw.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
            if let Some(bad) = list.iter().find(|&&n| n as usize >= rows || levels[n as usize] < l as u8) {
                return Err(format!("row {node} links to row {bad}, which is not a row on level {l}"));
            }
            node_lists.push(list);
        }
        lists.push(node_lists);
    }
    if c.at != bytes.len() {
        return Err(format!("graph file has {} unexpected bytes at its end", bytes.len() - c.at));
    }
    Ok(Hnsw::from_lists(params, dim, entry, top_level, levels, &lists))
}
