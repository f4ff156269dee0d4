//! Atomic file replacement, shared by the matrix and graph writers, and the header check of
//! the code files (`quant`, `bits`).
//!
//! A file is written to a temporary sibling, flushed, `fsync`ed, renamed over the target, and
//! the directory is synced (best effort), so a reader sees the old file or the new one, never a
//! half-written one, and a memory map of the old file stays valid (it keeps the old inode).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;

use crate::error::VectorError;

/// Bytes of a code file's header: magic (8), version (`u32`), dim (`u32`), rows (`u64`), then
/// the format's own fields and zeros.
pub(crate) const CODES_HEADER_LEN: usize = 64;

/// Maps the code file `path` (a `what`, e.g. "quantized vector file") and checks its magic,
/// version and that it covers `rows` rows of width `dim`; the error says to re-ingest.
pub(crate) fn open_codes(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    what: &str,
    dim: usize,
    rows: usize,
) -> Result<Mmap, VectorError> {
    let file = File::open(path).map_err(|e| VectorError::io(path, e))?;
    let bad = |reason: String| VectorError::format(path, format!("{reason}; re-ingest to rebuild it"));
    // SAFETY: opened read-only; writers replace files by rename, never in place.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| VectorError::io(path, e))?;
    if map.len() < CODES_HEADER_LEN || &map[..8] != magic {
        return Err(bad(format!("not a strata {what}")));
    }
    let found = u32_at(&map, 8);
    if found != version {
        return Err(bad(format!("{what} version {found}, this build reads {version}")));
    }
    let file_dim = u32_at(&map, 12) as usize;
    let file_rows = u64::from_le_bytes(map[16..24].try_into().unwrap_or_default());
    if file_dim != dim || file_rows != rows as u64 {
        return Err(bad(format!("covers {file_rows} rows × {file_dim} dims, the matrix has {rows} × {dim}")));
    }
    Ok(map)
}

/// The little-endian `u32` at `at` of a header.
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

/// A code file's header: magic, version, dim, rows, then `extra` at offset 24, zeros after.
pub(crate) fn codes_header(
    magic: &[u8; 8],
    version: u32,
    dim: usize,
    rows: usize,
    extra: &[u8],
) -> [u8; CODES_HEADER_LEN] {
    let mut header = [0u8; CODES_HEADER_LEN];
    header[..8].copy_from_slice(magic);
    header[8..12].copy_from_slice(&version.to_le_bytes());
    header[12..16].copy_from_slice(&(dim as u32).to_le_bytes());
    header[16..24].copy_from_slice(&(rows as u64).to_le_bytes());
    header[24..24 + extra.len()].copy_from_slice(extra);
    header
}

/// Writes `path` atomically with the bytes `write` produces.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> std::io::Result<()>,
) -> Result<(), VectorError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp)?;
        {
            let mut w = BufWriter::with_capacity(1 << 20, &file);
            write(&mut w)?;
            w.flush()?;
        }
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(VectorError::io(path, e));
    }
    // Make the rename durable; not every platform lets a directory be opened, hence best effort.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
