//! Atomic file replacement, shared by the matrix and graph writers.
//!
//! A file is written to a temporary sibling, flushed, `fsync`ed, renamed over the target, and
//! the directory is synced (best effort), so a reader sees the old file or the new one, never a
//! half-written one, and a memory map of the old file stays valid (it keeps the old inode).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::VectorError;

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
