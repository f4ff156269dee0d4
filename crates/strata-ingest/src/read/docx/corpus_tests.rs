//! The DOCX files of the shared corpus (`shared/data/corpus/docx/`). Each test skips, saying
//! so, when the corpus is not in this checkout. Run with `--nocapture` for the numbers.
//!
//! The review guide exists as DOCX and as Markdown; the two trees are compared title by
//! title. Titles are normalized before comparing: the list number Word draws in front of a
//! DOCX heading (`6.1`) is removed (the Markdown twin is unnumbered), then case is folded,
//! every run of characters that is not a letter or digit (punctuation, `’` against `'`,
//! spaces, tabs) becomes one space, and the ends are trimmed. Titles are then aligned in
//! document order (longest common subsequence), and a pair counts as matching only when its
//! levels agree too.

use std::collections::BTreeMap;
use std::time::Instant;

use strata_core::{BlockKind, NodeId, Tree};

use super::tests::check;
use super::*;
use crate::read::markdown::MarkdownReader;
use crate::tree::build_tree;

/// A corpus file's bytes, or `None` after saying why not.
fn corpus(rel: &str) -> Option<Vec<u8>> {
    let path = strata_core::testdata::shared(&format!("corpus/{rel}"))?;
    Some(std::fs::read(path).unwrap())
}

fn read_corpus(rel: &str) -> Option<Parsed> {
    let bytes = corpus(rel)?;
    let started = Instant::now();
    let parsed = DocxReader.read(&bytes).expect("reads");
    let mut per_level: BTreeMap<u32, usize> = BTreeMap::new();
    for h in &parsed.headings {
        *per_level.entry(h.level).or_default() += 1;
    }
    eprintln!(
        "{rel}: {} bytes in {:.1} ms, {} headings {per_level:?}, {} blocks ({} tables), text {} bytes, title {:?}, warnings {:?}",
        bytes.len(),
        started.elapsed().as_secs_f64() * 1000.0,
        parsed.headings.len(),
        parsed.blocks.len(),
        parsed.blocks.iter().filter(|b| b.kind == BlockKind::Table).count(),
        parsed.text.len(),
        parsed.title,
        parsed.warnings,
    );
    check(&parsed);
    Some(parsed)
}

/// The comparison key of a title (see the module docs).
fn normalize(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

/// `(level, key)` of every section of a tree in document order, numbers removed.
fn sections(tree: &Tree) -> Vec<(u32, String)> {
    (1..tree.len() as u32)
        .filter_map(|i| tree.get(NodeId(i)))
        .map(|n| {
            let title = match &n.number {
                Some(number) => n.title.strip_prefix(number.to_string().as_str()).unwrap_or(&n.title),
                None => &n.title,
            };
            (n.level, normalize(title))
        })
        .collect()
}

/// Pairs of equal keys in order (longest common subsequence), as index pairs.
fn align(a: &[(u32, String)], b: &[(u32, String)]) -> Vec<(usize, usize)> {
    let mut dp = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            dp[i][j] = if a[i].1 == b[j].1 { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i].1 == b[j].1 {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

#[test]
fn corpus_review_guide_matches_its_markdown_twin() {
    let (Some(docx), Some(md_bytes)) =
        (read_corpus("docx/uslm-2.0-review-guide.docx"), corpus("markdown/uslm-2.0-review-guide.md"))
    else {
        return;
    };
    let md = MarkdownReader.read(&md_bytes).expect("markdown reads");
    let docx_tree = build_tree("docx", docx.text.len(), &docx.headings, &[]);
    let md_tree = build_tree("md", md.text.len(), &md.headings, &[]);
    let (d, m) = (sections(&docx_tree), sections(&md_tree));
    let pairs = align(&d, &m);
    let same_level = pairs.iter().filter(|(i, j)| d[*i].0 == m[*j].0).count();
    let ratio = same_level as f64 / d.len().max(m.len()) as f64;
    eprintln!(
        "review guide: {} docx sections, {} markdown sections, {} titles match, {same_level} at the same level: ratio {ratio:.3}",
        d.len(),
        m.len(),
        pairs.len()
    );
    let matched_m: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let matched_d: Vec<usize> = pairs.iter().map(|p| p.0).collect();
    for (j, s) in m.iter().enumerate().filter(|(j, _)| !matched_m.contains(j)) {
        eprintln!("  only in markdown: {s:?} (#{j})");
    }
    for (i, s) in d.iter().enumerate().filter(|(i, _)| !matched_d.contains(i)) {
        eprintln!("  only in docx: {s:?} (#{i})");
    }
    for (i, j) in pairs.iter().filter(|(i, j)| d[*i].0 != m[*j].0) {
        eprintln!("  level differs: docx {:?} vs markdown {:?}", d[*i], m[*j]);
    }
    assert!(ratio >= 0.9, "title match ratio {ratio:.3}");
    // Word numbers the headings; the numbers are kept as section numbers.
    let h = docx.headings.iter().find(|h| h.title.ends_with("Changed Models")).expect("Changed Models");
    assert_eq!(h.title, "6.1 Changed Models");
    assert_eq!(h.number.as_ref().map(|n| n.number.as_str()), Some("6.1"));
    assert_eq!(
        docx.title.as_deref(),
        Some("United States Legislative Markup Review Guide for Version 2.0 of the USLM Schema")
    );
    // Both footnotes are in the text, each after the section that cites it.
    assert_eq!(docx.text.matches("[^1]").count(), 2, "marker and note");
    assert_eq!(docx.text.matches("[^2]").count(), 2);
    let note = docx.text.find("[^1] In 2017").expect("note 1 text");
    let marker = docx.text.find("[^1]").unwrap();
    let next_heading = docx.headings.iter().find(|h| h.span.start > marker).map(|h| h.span.start).unwrap();
    assert!(
        marker < note && note < next_heading,
        "note 1 at {note}, marker {marker}, next heading {next_heading}"
    );
    // The TOC's field codes are not text.
    assert!(!docx.text.contains("PAGEREF") && !docx.text.contains("TOC \\"));
}

#[test]
fn corpus_title13_converted_by_libreoffice() {
    let Some(parsed) = read_corpus("docx/usc-title13-census-converted.docx") else {
        return;
    };
    let count = |level: u32| parsed.headings.iter().filter(|h| h.level == level).count();
    eprintln!("levels 1..5: {:?}", (1..=5).map(count).collect::<Vec<_>>());
    assert_eq!(count(1), 1);
    assert_eq!(count(2), 0, "the source skips level 2");
    assert!(count(3) >= 80 && count(4) >= 180, "{} at 3, {} at 4", count(3), count(4));
    assert_eq!(parsed.headings.len(), count(1) + count(3) + count(4));
    assert_eq!(parsed.headings[0].title, "TITLE 13—CENSUS");
    let definitions =
        parsed.headings.iter().find(|h| h.title.starts_with("§1. Definitions")).expect("§1. Definitions");
    assert_eq!(definitions.level, 3);
    let tree = build_tree("t13", parsed.text.len(), &parsed.headings, &[]);
    assert!(
        strata_text::number::find(&tree, "1").any(|n| n.title.starts_with("§1.")),
        "§1 is found by its number"
    );
    let tables = tables(&parsed);
    assert_eq!(tables.len(), 1);
    let rows: Vec<&str> = tables[0].lines().collect();
    eprintln!("table: {} rows, first {:?}", rows.len(), &rows[..rows.len().min(3)]);
    assert!(rows.len() >= 2 && rows.iter().all(|r| r.contains(" | ")), "{rows:?}");
}

/// The text of every table block.
fn tables(parsed: &Parsed) -> Vec<&str> {
    parsed.blocks.iter().filter(|b| b.kind == BlockKind::Table).map(|b| b.span.slice(&parsed.text)).collect()
}

#[test]
fn corpus_fedramp_working_with_oscal() {
    let Some(parsed) = read_corpus("docx/fedramp-working-with-oscal.docx") else {
        return;
    };
    for h in &parsed.headings {
        eprintln!("  {} {:?}", h.level, h.title);
    }
    let found: Vec<u32> = parsed.headings.iter().map(|h| h.level).collect();
    assert_eq!(found, [1, 2, 2, 3, 2, 2, 2]);
    assert_eq!(parsed.headings[0].title, "1. Working with OSCAL Files");
    assert_eq!(parsed.headings[3].title, "1.2.1. Resolved Profile Catalogs");
    let tables = tables(&parsed);
    // All three are one-column tables framing code listings: one row per line, each
    // cell's paragraphs on its row's line.
    let rows: Vec<Vec<&str>> = tables.iter().map(|t| t.lines().collect()).collect();
    for table in &rows {
        eprintln!(
            "table: {} rows {:?}",
            table.len(),
            table.iter().map(|r| r.chars().take(40).collect::<String>()).collect::<Vec<_>>()
        );
    }
    assert_eq!(rows.iter().map(Vec::len).collect::<Vec<_>>(), [4, 2, 2]);
    assert_eq!(rows[0][0], "SSP Import Representation");
    assert_eq!(rows[0][3], "(SSP) URI to Baseline: /*/import-profile/@href");
    assert!(rows[1][1].starts_with("<back-matter> <resource id=\"96445439-6c"), "{}", rows[1][1]);
    let items = parsed.blocks.iter().filter(|b| b.kind == BlockKind::ListItem).count();
    assert_eq!(items, 2, "the two template links");
}

/// A document part read in segments (here of about 1 KB, from the first byte) reads exactly
/// as the whole part does: same text, blocks, headings, title and warnings.
#[test]
fn every_corpus_docx_reads_the_same_in_segments() {
    let seed = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/seeds/read_docx/tiny.docx");
    let mut files = vec![(seed.to_string(), std::fs::read(seed).unwrap())];
    for name in
        ["fedramp-working-with-oscal.docx", "usc-title13-census-converted.docx", "uslm-2.0-review-guide.docx"]
    {
        if let Some(bytes) = corpus(&format!("docx/{name}")) {
            files.push((name.to_string(), bytes));
        }
    }
    let limits = ReadLimits::default();
    let small = Cut { whole: 0, segment: 1024 };
    for (name, bytes) in files {
        let whole = read_docx(&bytes, MAX_UNZIPPED_BYTES, &limits).unwrap();
        let cut = read_docx_cut(&bytes, MAX_UNZIPPED_BYTES, &limits, small).unwrap();
        assert!(!whole.text.is_empty(), "{name}");
        assert_eq!(format!("{cut:?}"), format!("{whole:?}"), "{name} read in segments differs");
    }
}
