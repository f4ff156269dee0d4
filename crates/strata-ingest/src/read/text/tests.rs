//! Shared test helpers (the reader contract), whole-reader edge cases, and the corpus
//! tests over real RFCs in `shared/data/corpus/txt/`.

use std::time::Instant;

use regex::Regex;

use super::TextReader;
use crate::read::{HeadingMark, Parsed, ReadError, Reader};

pub(super) fn read(s: &str) -> Parsed {
    TextReader.read(s.as_bytes()).expect("readable")
}

pub(super) fn titles(p: &Parsed) -> Vec<&str> {
    p.headings.iter().map(|h| h.title.as_str()).collect()
}

pub(super) fn number(h: &HeadingMark) -> &str {
    h.number.as_ref().map_or("", |n| n.number.as_str())
}

/// The reader contract: spans in bounds on char boundaries, blocks sorted and disjoint,
/// headings in order and disjoint, page breaks inside the text.
pub(super) fn check_invariants(p: &Parsed) {
    let len = p.text.len();
    let mut last = 0;
    for b in &p.blocks {
        assert!(b.span.start >= last && b.span.start <= b.span.end && b.span.end <= len, "{b:?}");
        assert!(p.text.is_char_boundary(b.span.start) && p.text.is_char_boundary(b.span.end));
        last = b.span.end;
    }
    let mut last = 0;
    for h in &p.headings {
        assert!(h.span.start >= last && h.span.end <= len, "{h:?}");
        assert!(p.text.is_char_boundary(h.span.start) && p.text.is_char_boundary(h.span.end));
        last = h.span.end;
    }
    let mut last = 0;
    for &b in &p.page_breaks {
        assert!(b > 0 && b < len && b >= last, "break {b} of {len}");
        assert!(p.text.is_char_boundary(b));
        last = b;
    }
    assert!(p.page_labels.is_empty() || p.page_labels.len() == p.page_breaks.len() + 1);
}

#[test]
fn only_text_without_form_feeds_is_cited_by_line() {
    assert_eq!(read("1.  Intro\n\nbody\n").first_line, Some(1));
    assert_eq!(read("1.  Intro\n\nbody\n\x0c2.  Next\n\nmore\n").first_line, None);
}

#[test]
fn empty_and_odd_inputs() {
    assert_eq!(TextReader.read(b"").unwrap_err(), ReadError::Empty);
    assert_eq!(TextReader.read(b"\x0c\x0c\n").unwrap_err(), ReadError::Empty);
    for s in [
        "x",
        "\x0cx",
        "x\x0c",
        "1 A",
        "A.",
        "Appendix",
        "Appendix Z",
        "§",
        "ARTICLE",
        "é\x0cé\n\x0c",
        "1.  A\n   b\n",
        "SECTION 1\n\n\n",
        "\n\n\n1 X\x0c\n2 Y\x0c\x0c\x0c3 Z",
    ] {
        let p = read(s);
        check_invariants(&p);
    }
}

proptest::proptest! {
    #[test]
    fn never_panics(s in r"[ \n\x0cA-Za-z0-9.§é|+\-\[\]]{0,300}") {
        if let Ok(p) = TextReader.read(s.as_bytes()) {
            check_invariants(&p);
        }
    }
}

// ---- corpus -------------------------------------------------------------------------

fn corpus(name: &str) -> Option<(Parsed, f64)> {
    let path = strata_core::testdata::shared(&format!("corpus/txt/{name}"))?;
    let bytes = std::fs::read(path).unwrap();
    let t = Instant::now();
    let p = TextReader.read(&bytes).expect("corpus file reads");
    let ms = t.elapsed().as_secs_f64() * 1e3;
    check_invariants(&p);
    let numbered = p.headings.iter().filter(|h| h.number.is_some()).count();
    eprintln!(
        "{name}: {} headings ({numbered} numbered), {} pages, {} bytes of text, {} blocks, {ms:.1} ms",
        p.headings.len(),
        p.page_breaks.len() + 1,
        p.text.len(),
        p.blocks.len()
    );
    Some((p, ms))
}

/// Numbered (non-appendix) headings per depth, and appendix headings.
fn depths(p: &Parsed) -> (Vec<usize>, usize) {
    let mut d = vec![0; 4];
    let mut appendix = 0;
    for h in &p.headings {
        let Some(n) = &h.number else { continue };
        if n.number.starts_with(|c: char| c.is_ascii_uppercase()) {
            appendix += 1;
        } else {
            let depth = n.number.split('.').count();
            if depth > d.len() {
                d.resize(depth, 0);
            }
            d[depth - 1] += 1;
        }
    }
    (d, appendix)
}

#[test]
fn corpus_rfc3261() {
    let Some((p, _)) = corpus("rfc3261-sip.txt") else {
        return;
    };
    assert_eq!(p.title.as_deref(), Some("RFC 3261: SIP: Session Initiation Protocol"));
    assert!(!p.text.contains("[Page") && !p.text.contains('\x0c'));
    assert_eq!(p.page_breaks.len() + 1, 269);
    assert!(p.page_labels.is_empty(), "printed page numbers equal physical ones");
    let (d, _) = depths(&p);
    eprintln!("rfc3261 depths {d:?}");
    assert!(d.iter().sum::<usize>() >= 300);
    let accept = p.headings.iter().find(|h| h.title == "20.1 Accept").expect("20.1 Accept");
    assert_eq!((accept.level, number(accept)), (2, "20.1"));
    assert_eq!(accept.span.slice(&p.text), "20.1 Accept");
    for t in ["Abstract", "Table of Contents", "Status of this Memo", "Full Copyright Statement"] {
        let h = p.headings.iter().find(|h| h.title == t).unwrap_or_else(|| panic!("{t}"));
        assert_eq!(h.level, 1);
    }
    let unnumbered: Vec<_> = p.headings.iter().filter(|h| h.number.is_none()).map(|h| &h.title).collect();
    eprintln!("rfc3261 unnumbered: {unnumbered:?}");
    assert!(unnumbered.len() <= 12, "{unnumbered:?}");
    // Section 9.1 starts on page 53 (per the table of contents).
    let h = p.headings.iter().find(|h| h.title.starts_with("9.1 ")).unwrap();
    assert_eq!(p.page_breaks.partition_point(|&b| b <= h.span.start) + 1, 53);
}

#[test]
fn corpus_rfc7231() {
    let Some((p, _)) = corpus("rfc7231-http11-semantics.txt") else {
        return;
    };
    assert!(p.title.as_deref().unwrap().starts_with("RFC 7231: Hypertext Transfer Protocol (HTTP/1.1)"));
    assert!(!p.text.contains("[Page") && !p.text.contains('\x0c'));
    assert_eq!(p.page_breaks.len() + 1, 101);
    let (d, appendix) = depths(&p);
    eprintln!("rfc7231 depths {d:?}, appendix {appendix}");
    assert!((137..=143).contains(&d.iter().sum::<usize>()));
    assert_eq!(appendix, 10);
    let h = p.headings.iter().find(|h| h.span.slice(&p.text) == "6.5.1.  400 Bad Request").unwrap();
    assert_eq!((number(h), h.level, h.title.as_str()), ("6.5.1", 3, "6.5.1. 400 Bad Request"));
    // Section 6.5.1 is on page 58 (per the table of contents).
    assert_eq!(p.page_breaks.partition_point(|&b| b <= h.span.start) + 1, 58);
}

#[test]
fn corpus_rfc9000() {
    let Some((p, _)) = corpus("rfc9000-quic-unpaginated.txt") else {
        return;
    };
    assert_eq!(p.title.as_deref(), Some("RFC 9000: QUIC: A UDP-Based Multiplexed and Secure Transport"));
    assert!(p.page_breaks.is_empty());
    let (d, appendix) = depths(&p);
    eprintln!("rfc9000 depths {d:?}, appendix {appendix}");
    assert!((203..=209).contains(&d.iter().sum::<usize>()));
    assert_eq!(appendix, 5);
}

/// `headings_sections` in MANIFEST.tsv, e.g. `313 numbered section headings (depth1:29 …)`.
#[test]
fn corpus_matches_manifest() {
    let Some(path) = strata_core::testdata::shared("corpus/MANIFEST.tsv") else { return };
    let manifest = std::fs::read_to_string(path).unwrap();
    let mut lines = manifest.lines();
    let header: Vec<_> = lines.next().unwrap_or("").split('\t').collect();
    let col = header.iter().position(|h| *h == "headings_sections").expect("headings_sections column");
    let count = Regex::new(r"^(\d+) numbered section headings.*?(?:, (\d+) appendix headings)?$").unwrap();
    let depth = Regex::new(r"depth(\d+):(\d+)").unwrap();
    for row in lines {
        let fields: Vec<_> = row.split('\t').collect();
        let (Some(path), Some(cell)) = (fields.first(), fields.get(col)) else {
            continue;
        };
        let Some(name) = path.strip_prefix("txt/") else {
            continue;
        };
        let Some(c) = count.captures(cell) else {
            continue;
        };
        let Some((p, _)) = corpus(name) else { continue };
        let (got, appendix) = depths(&p);
        let want: usize = c[1].parse().unwrap();
        let total: usize = got.iter().sum();
        assert!(total.abs_diff(want) <= 3, "{name}: {total} numbered, manifest {want}");
        let want_app: usize = c.get(2).map_or(0, |m| m.as_str().parse().unwrap());
        assert!(appendix.abs_diff(want_app) <= 3, "{name}: {appendix} appendix, manifest {want_app}");
        for d in depth.captures_iter(cell) {
            let (level, n): (usize, usize) = (d[1].parse().unwrap(), d[2].parse().unwrap());
            let have = got.get(level - 1).copied().unwrap_or(0);
            assert!(have.abs_diff(n) <= 3, "{name}: depth {level}: {have}, manifest {n}");
        }
    }
}

/// Run with `--release --ignored`: ~60 MB texts, real and degenerate, read in linear time.
/// Each is read at its full size and at a tenth of it; ten times the text may take at most
/// [`LINEAR_BOUND`] times as long (a quadratic step would take about a hundred).
#[test]
#[ignore]
fn large_input_is_linear() {
    let Some(path) = strata_core::testdata::shared("corpus/txt/rfc3261-sip.txt") else { return };
    let rfc = std::fs::read(path).unwrap();
    let repeated = |size: usize| rfc.repeat(size.div_ceil(rfc.len()));
    let inputs: [(&str, &dyn Fn(usize) -> Vec<u8>); 5] = [
        ("rfc3261 repeated", &repeated),
        ("one line", &|size| vec![b'x'; size]),
        ("form feeds", &|size| b"a\x0c".repeat(size / 3)),
        ("newlines", &|size| [vec![b'\n'; size], b"x".to_vec()].concat()),
        ("heading lines", &|size| b"1 A\n\n".repeat(size / 6)),
    ];
    for (name, make) in inputs {
        let (whole, p) = timed_read(&make(60_000_000));
        check_invariants(&p);
        let (tenth, _) = timed_read(&make(6_000_000));
        eprintln!(
            "{name}: {whole:.2} s, a tenth of it {tenth:.2} s; {} headings, {} pages, {} blocks",
            p.headings.len(),
            p.page_breaks.len() + 1,
            p.blocks.len()
        );
        assert!(whole <= LINEAR_BOUND * tenth.max(MIN_TIMED), "{name}: {whole:.2} s, a tenth {tenth:.2} s");
    }
}

/// How much longer ten times the text may take to read: 10 for linear time, with room for
/// a shared machine and for caches that hold a tenth and not the whole.
const LINEAR_BOUND: f64 = 30.0;
/// Shorter reads are timed as this long: below it, timing is noise.
const MIN_TIMED: f64 = 0.05;

/// Seconds to read `bytes`, and what was read.
fn timed_read(bytes: &[u8]) -> (f64, Parsed) {
    let t = Instant::now();
    let p = TextReader.read(bytes).unwrap();
    (t.elapsed().as_secs_f64(), p)
}
