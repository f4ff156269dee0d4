//! The reader contract as the fuzz targets and their replay check it, on any bytes:
//!
//! 1. `read` never panics (a panic a reader caught and turned into an error counts as one);
//! 2. what it returns passes [`Parsed::check`]: spans on `char` boundaries inside the text,
//!    headings in order and not overlapping, blocks sorted and disjoint, page breaks sorted
//!    and inside the text.
//!
//! Any other error is a fine answer to hostile bytes. The time and memory a read may take
//! are the fuzz budgets (`fuzz/README.md`), which the fuzz runs and
//! `tests/fuzz_budgets.rs` hold.

use strata_core::Format;

use super::{reader_for, ReadError};

/// Reads `data` as `format` within the default limits and says how the reader broke its
/// contract, if it did.
pub fn read_and_check(format: Format, data: &[u8]) -> Result<(), String> {
    let reader = reader_for(format).ok_or_else(|| format!("no reader for {format:?}"))?;
    match reader.read(data) {
        Ok(parsed) => parsed.check().map_err(|why| format!("{format:?} reader broke its contract: {why}")),
        Err(ReadError::Malformed(message)) if caught_panic(&message) => {
            Err(format!("{format:?} reader caught a panic: {message}"))
        }
        Err(_) => Ok(()),
    }
}

/// Whether a `Malformed` message is the one a reader returns for a panic it caught
/// (`pdf/mod.rs`, `html/mod.rs`, `docx/mod.rs`).
fn caught_panic(message: &str) -> bool {
    message.contains("parser failed on this file") || message.contains("DOCX reader failed on this file")
}
