//! The HTML reader on arbitrary bytes: it must not panic, and what it returns must keep the
//! reader contract (see `strata_fuzz::check`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_core::Format;

fuzz_target!(|data: &[u8]| strata_fuzz::read_and_check(Format::Html, data));
