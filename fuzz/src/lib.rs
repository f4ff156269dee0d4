//! The reader contract, shared by every fuzz target: `strata_ingest::read::contract`, the
//! same check `crates/strata-ingest/tests/fuzz_budgets.rs` replays on stable Rust.
//!
//! The PDF, HTML and DOCX readers catch a panic of their parser and return an error instead.
//! Under libFuzzer that panic is still a crash: `libfuzzer-sys` installs a panic hook that
//! aborts before the unwinding reaches the reader's `catch_unwind`, so the crash report holds
//! the panic message and its backtrace. When an input is replayed without that hook, the
//! error the reader returns for a caught panic fails the check instead.
//!
//! The time and memory budgets are libFuzzer's `-timeout` and `-rss_limit_mb`/
//! `-malloc_limit_mb` (`fuzz/run.sh` passes them).

use strata_core::Format;

/// Reads `data` as `format` and panics if the reader broke its contract.
pub fn read_and_check(format: Format, data: &[u8]) {
    if let Err(why) = strata_ingest::read::contract::read_and_check(format, data) {
        panic!("{why}");
    }
}
