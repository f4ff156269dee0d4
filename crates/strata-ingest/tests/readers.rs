//! The `Reader` contract, checked for every reader on arbitrary input:
//!
//! 1. `read` never panics, whatever the bytes;
//! 2. heading spans and block spans lie on `char` boundaries inside the text;
//! 3. headings are in document order and do not overlap; blocks are sorted and disjoint;
//! 4. page breaks are sorted (equal offsets are empty pages) and strictly inside the text.

use proptest::prelude::*;
use strata_core::Format;
use strata_ingest::read::{reader_for, Parsed};

const FORMATS: [Format; 3] = [Format::Markdown, Format::Html, Format::Text];

fn check(p: &Parsed) -> Result<(), String> {
    let t = &p.text;
    let ok = |s: usize, e: usize| s <= e && e <= t.len() && t.is_char_boundary(s) && t.is_char_boundary(e);
    let mut last = 0;
    for h in &p.headings {
        if !ok(h.span.start, h.span.end) || h.span.start < last {
            return Err(format!("heading {:?} at {} out of order or off boundary", h.title, h.span));
        }
        last = h.span.end;
    }
    let mut last = 0;
    for b in &p.blocks {
        if !ok(b.span.start, b.span.end) || b.span.start < last {
            return Err(format!("block {:?} at {} out of order or off boundary", b.kind, b.span));
        }
        last = b.span.end;
    }
    let mut last = 0;
    for &b in &p.page_breaks {
        if b < last || b == 0 || b >= t.len() || !t.is_char_boundary(b) {
            return Err(format!("page break {b} invalid (text {} bytes)", t.len()));
        }
        last = b;
    }
    Ok(())
}

fn markupish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"# ".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"```".to_vec()),
        Just(b"| a | b |\n|---|---|\n".to_vec()),
        Just(b"<h2>".to_vec()),
        Just(b"</h2>".to_vec()),
        Just(b"<table><tr><td>".to_vec()),
        Just(b"<script>".to_vec()),
        Just(b"<pre>".to_vec()),
        Just(b"&amp;&#x0;&#9999999;".to_vec()),
        Just(b"\x0c".to_vec()),
        Just(b"4.2.1.  Title\n".to_vec()),
        Just(b"SEC. 101. SHORT TITLE.\n".to_vec()),
        Just(b"ARTICLE V\n".to_vec()),
        Just(b"   body [Page 3]\n".to_vec()),
        Just(b"---\ntitle: x\n---\n".to_vec()),
        Just("日本語 naïve §".as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..16),
        "[a-zA-Z .]{0,40}".prop_map(|s| s.into_bytes()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn readers_never_panic_and_keep_spans_valid(bytes in markupish()) {
        for format in FORMATS {
            let reader = reader_for(format).unwrap();
            if let Ok(parsed) = reader.read(&bytes) {
                prop_assert!(check(&parsed).is_ok(), "{format:?}: {}", check(&parsed).unwrap_err());
            }
        }
    }

    #[test]
    fn readers_never_panic_on_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        for format in FORMATS {
            if let Ok(parsed) = reader_for(format).unwrap().read(&bytes) {
                prop_assert!(check(&parsed).is_ok(), "{format:?}: {}", check(&parsed).unwrap_err());
            }
        }
    }
}
