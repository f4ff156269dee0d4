//! Row-major f32 matrices: the read trait every search takes, an in-memory matrix that can grow,
//! and the versioned on-disk file, opened memory-mapped.
//!
//! File layout (format version 1, all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `STRATVEC` |
//! | 8 | 4 | format version (`u32`, 1) |
//! | 12 | 4 | dim (`u32`, > 0) |
//! | 16 | 8 | rows (`u64`) |
//! | 24 | 40 | reserved, zero |
//! | 64 | rows × dim × 4 | the vectors, little-endian `f32`, row after row |
//!
//! The data starts at 64 bytes so that, with the page-aligned base of a memory map, it is aligned
//! for `f32` (and for a cache line), and the mapped bytes can be viewed as `&[f32]` without a copy
//! on little-endian machines. The file length must be exactly `64 + rows × dim × 4`; anything else
//! (truncated copy, other version, other program's file) is a `Format` error that says what was
//! found and to re-ingest.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::VectorError;
use crate::fsio::write_atomically;

/// The first eight bytes of a matrix file.
pub const MATRIX_MAGIC: &[u8; 8] = b"STRATVEC";
/// The matrix format version this build writes and reads.
pub const MATRIX_VERSION: u32 = 1;
/// Size of the header; the vectors start at this offset.
pub const MATRIX_HEADER_LEN: usize = 64;

/// Read access to a row-major matrix of `f32`: all that search needs.
pub trait Matrix: Sync {
    /// Width of every row.
    fn dim(&self) -> usize;
    /// Number of rows.
    fn rows(&self) -> usize;
    /// All rows, back to back (`rows() × dim()` floats).
    fn as_slice(&self) -> &[f32];
    /// Row `i`; panics when `i >= rows()`.
    #[inline]
    fn row(&self, i: usize) -> &[f32] {
        let d = self.dim();
        &self.as_slice()[i * d..(i + 1) * d]
    }
}

/// A matrix held in memory; rows can be appended, and it can be saved to a matrix file.
#[derive(Debug, Clone, PartialEq)]
pub struct MemMatrix {
    dim: usize,
    data: Vec<f32>,
}

impl MemMatrix {
    /// An empty matrix of width `dim` (> 0).
    pub fn new(dim: usize) -> Result<Self, VectorError> {
        if dim == 0 || dim > u32::MAX as usize {
            return Err(VectorError::Params(format!("dim must be between 1 and {}, got {dim}", u32::MAX)));
        }
        Ok(MemMatrix { dim, data: Vec::new() })
    }

    /// A matrix over `data`, which must hold whole rows of width `dim`.
    pub fn from_vec(dim: usize, data: Vec<f32>) -> Result<Self, VectorError> {
        let mut m = MemMatrix::new(dim)?;
        if !data.len().is_multiple_of(dim) {
            return Err(VectorError::DimMismatch { expected: dim, got: data.len() % dim });
        }
        m.data = data;
        Ok(m)
    }

    /// Appends one row and returns its row number.
    pub fn push(&mut self, row: &[f32]) -> Result<u32, VectorError> {
        if row.len() != self.dim {
            return Err(VectorError::DimMismatch { expected: self.dim, got: row.len() });
        }
        let n = self.rows();
        if n >= u32::MAX as usize {
            return Err(VectorError::Params(format!("a matrix holds at most {} rows", u32::MAX)));
        }
        self.data.extend_from_slice(row);
        Ok(n as u32)
    }

    /// Writes the matrix to `path` atomically (see [`write_matrix`]).
    pub fn save(&self, path: &Path) -> Result<(), VectorError> {
        write_matrix(path, self.dim, &self.data)
    }

    /// The rows, consuming the matrix.
    pub fn into_vec(self) -> Vec<f32> {
        self.data
    }
}

impl Matrix for MemMatrix {
    fn dim(&self) -> usize {
        self.dim
    }
    fn rows(&self) -> usize {
        self.data.len() / self.dim
    }
    fn as_slice(&self) -> &[f32] {
        &self.data
    }
}

/// Writes `data` (whole rows of width `dim`) as a matrix file at `path`, atomically: temporary
/// file, `fsync`, rename.
pub fn write_matrix(path: &Path, dim: usize, data: &[f32]) -> Result<(), VectorError> {
    if dim == 0 || dim > u32::MAX as usize {
        return Err(VectorError::Params(format!("dim must be between 1 and {}, got {dim}", u32::MAX)));
    }
    if !data.len().is_multiple_of(dim) {
        return Err(VectorError::DimMismatch { expected: dim, got: data.len() % dim });
    }
    let rows = (data.len() / dim) as u64;
    write_atomically(path, |w| {
        let mut header = [0u8; MATRIX_HEADER_LEN];
        header[..8].copy_from_slice(MATRIX_MAGIC);
        header[8..12].copy_from_slice(&MATRIX_VERSION.to_le_bytes());
        header[12..16].copy_from_slice(&(dim as u32).to_le_bytes());
        header[16..24].copy_from_slice(&rows.to_le_bytes());
        w.write_all(&header)?;
        let mut buf = Vec::with_capacity(64 * 1024);
        for chunk in data.chunks(16 * 1024) {
            buf.clear();
            for x in chunk {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        Ok(())
    })
}

/// A matrix file opened memory-mapped: the vectors are read from the page cache, not copied.
///
/// Files are only ever replaced by rename ([`write_matrix`]), so an open map keeps seeing the
/// file it opened; truncating or rewriting a matrix file in place while it is open is not
/// supported (the map would change under the reader).
#[derive(Debug)]
pub struct MmapMatrix {
    path: PathBuf,
    dim: usize,
    rows: usize,
    map: Mmap,
}

impl MmapMatrix {
    /// Opens and validates the matrix file at `path`.
    pub fn open(path: &Path) -> Result<Self, VectorError> {
        let file = File::open(path).map_err(|e| VectorError::io(path, e))?;
        let len = file.metadata().map_err(|e| VectorError::io(path, e))?.len();
        let bad = |reason: String| VectorError::format(path, format!("{reason}; re-ingest to rebuild it"));
        if len < MATRIX_HEADER_LEN as u64 {
            return Err(bad(format!(
                "not a strata vector file: {len} bytes, shorter than the {MATRIX_HEADER_LEN}-byte header"
            )));
        }
        // SAFETY: the file is opened read-only and our writers replace files by rename, never in
        // place; see the type's documentation for the remaining contract.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| VectorError::io(path, e))?;
        let (dim, rows) = parse_header(&map, len).map_err(bad)?;
        if cfg!(target_endian = "big") {
            return Err(VectorError::format(
                path,
                "matrix files are little-endian; this machine is big-endian",
            ));
        }
        let data = &map[MATRIX_HEADER_LEN..];
        if data.as_ptr().align_offset(std::mem::align_of::<f32>()) != 0 {
            return Err(VectorError::format(path, "memory map is not aligned for f32"));
        }
        Ok(MmapMatrix { path: path.to_path_buf(), dim, rows, map })
    }

    /// The file this matrix was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the whole matrix into memory.
    pub fn to_mem(&self) -> MemMatrix {
        MemMatrix { dim: self.dim, data: self.as_slice().to_vec() }
    }
}

/// Checks magic, version, dim and length; returns `(dim, rows)` or what is wrong.
fn parse_header(bytes: &[u8], len: u64) -> Result<(usize, usize), String> {
    if &bytes[..8] != MATRIX_MAGIC {
        return Err(format!(
            "not a strata vector file: magic {:?}, expected {:?}",
            String::from_utf8_lossy(&bytes[..8]),
            std::str::from_utf8(MATRIX_MAGIC).unwrap_or_default()
        ));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if version != MATRIX_VERSION {
        return Err(format!(
            "vector file format version {version}, this build reads version {MATRIX_VERSION}"
        ));
    }
    let dim = u32::from_le_bytes(bytes[12..16].try_into().unwrap_or_default()) as u64;
    let rows = u64::from_le_bytes(bytes[16..24].try_into().unwrap_or_default());
    if dim == 0 {
        return Err("vector file has dim 0".to_string());
    }
    let expected = rows
        .checked_mul(dim)
        .and_then(|n| n.checked_mul(4))
        .and_then(|n| n.checked_add(MATRIX_HEADER_LEN as u64));
    if expected != Some(len) || rows > u32::MAX as u64 {
        return Err(format!(
            "vector file is {len} bytes, but its header ({rows} rows × {dim} dims) needs {}",
            expected.map_or("more than 2^64".to_string(), |e| e.to_string())
        ));
    }
    Ok((dim as usize, rows as usize))
}

impl Matrix for MmapMatrix {
    fn dim(&self) -> usize {
        self.dim
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn as_slice(&self) -> &[f32] {
        let data = &self.map[MATRIX_HEADER_LEN..];
        // SAFETY: `open` checked that the length is exactly rows × dim × 4 bytes, that the start is
        // aligned for f32 and that the machine is little-endian; every bit pattern is a valid f32.
        unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<f32>(), self.rows * self.dim) }
    }
}

/// Any matrix by reference is a matrix (lets `&MmapMatrix` and `&dyn Matrix` be passed on).
impl<M: Matrix + ?Sized> Matrix for &M {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn rows(&self) -> usize {
        (**self).rows()
    }
    fn as_slice(&self) -> &[f32] {
        (**self).as_slice()
    }
}

/// Checks that `v` has the matrix width.
pub(crate) fn check_dim(matrix: &(impl Matrix + ?Sized), v: &[f32]) -> Result<(), VectorError> {
    if v.len() != matrix.dim() {
        return Err(VectorError::DimMismatch { expected: matrix.dim(), got: v.len() });
    }
    Ok(())
}

/// Checks that `matrix` is the one a graph or codes of `dim` × `rows` were made from.
pub(crate) fn check_made_from(
    matrix: &(impl Matrix + ?Sized),
    dim: usize,
    rows: usize,
) -> Result<(), VectorError> {
    if matrix.dim() != dim {
        return Err(VectorError::DimMismatch { expected: dim, got: matrix.dim() });
    }
    if matrix.rows() != rows {
        return Err(VectorError::RowsMismatch { expected: rows, got: matrix.rows() });
    }
    Ok(())
}
