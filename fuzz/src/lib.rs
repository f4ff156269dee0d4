//! The reader contract, shared by every fuzz target (`Parsed::check`, the same check
//! `crates/strata-ingest/tests/readers.rs` asserts on generated input):
//!
//! 1. `read` never panics, whatever the bytes;
//! 2. heading spans and block spans lie on `char` boundaries inside the text;
//! 3. headings are in document order and do not overlap; blocks are sorted and disjoint;
//! 4. page breaks are sorted (equal offsets are empty pages) and strictly inside the text.
//!
//! The PDF, HTML and DOCX readers catch a panic of their parser and return an error instead.
//! Under libFuzzer that panic is still a crash: `libfuzzer-sys` installs a panic hook that
//! aborts before the unwinding reaches the reader's `catch_unwind`, so the crash report holds
//! the panic message and its backtrace. When an input is replayed without that hook, the
//! error the reader returns for a caught panic fails the check instead.

use strata_core::Format;
use strata_ingest::read::{reader_for, ReadError};

/// Reads `data` as `format` and panics if the reader broke its contract.
pub fn read_and_check(format: Format, data: &[u8]) {
    let reader = reader_for(format).expect("every fuzzed format has a reader");
    match reader.read(data) {
        Ok(parsed) => {
            if let Err(why) = parsed.check() {
                panic!("{format:?} reader broke its contract: {why}");
            }
        }
        Err(ReadError::Malformed(message)) if caught_panic(&message) => {
            panic!("{format:?} reader caught a panic: {message}");
        }
        Err(_) => {}
    }
}

/// Whether a `Malformed` message is the one a reader returns for a panic it caught.
fn caught_panic(message: &str) -> bool {
    message.contains("parser failed on this file") || message.contains("DOCX reader failed on this file")
}

