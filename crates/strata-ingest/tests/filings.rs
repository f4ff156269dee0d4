//! The PDF reader on the SEC filings of financebench-dev
//! (`../shared/data/eval/financebench-dev`). Each test skips, with a message, when the
//! filings are not next to this checkout. `--nocapture` prints the per-filing tables that
//! `bench/results/filings/` keeps.
//!
//! The gold for items is each filing's own contents page, read by pdfplumber
//! (`scripts/bench/contents-gold.py`, output committed as
//! `bench/results/filings/contents-gold.tsv`): every Item it lists, with the physical page
//! that prints the page number it cites.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use strata_core::{BlockKind, Chunk, ChunkKind, Config, Document};
use strata_ingest::annotate::sec::Sec;
use strata_ingest::annotate::Annotator;
use strata_ingest::context::add_structural;
use strata_ingest::pipeline::{Cut, Pipeline};

/// Share of listed Items that must be nodes starting on their page.
const MIN_ITEMS: f64 = 0.95;
/// Median nodes per 100 pages wanted for filings of [`LONG`] pages or more.
const MIN_DENSITY: f64 = 30.0;
const LONG: usize = 60;

fn filings() -> Option<PathBuf> {
    strata_core::testdata::shared("eval/financebench-dev")
}

/// The PDFs of `dir`, by name.
fn pdfs(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    paths.sort();
    paths
}

fn gold() -> BTreeMap<String, Vec<(String, u32)>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results/filings/contents-gold.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let physical: u32 = f[3].parse().unwrap();
        if physical > 0 {
            out.entry(f[0].to_string()).or_default().push((f[1].to_ascii_lowercase(), physical));
        }
    }
    out
}

fn document(path: &Path) -> Document {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| Pipeline::new(&Config::default()).unwrap()).document_file(path).unwrap()
}

/// The item a heading names (`item 7a`), if any.
fn item_of(title: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"(?i)^item\s+([0-9]{1,2}[A-D]?)\b").unwrap());
    re.captures(title.trim()).map(|c| c[1].to_ascii_lowercase())
}

#[test]
fn listed_items_are_nodes_on_the_pages_their_contents_lists() {
    let Some(dir) = filings() else { return };
    let (mut listed, mut placed) = (0, 0);
    for (file, items) in gold() {
        let doc = document(&dir.join(&file));
        let starts: Vec<(String, u32)> =
            doc.tree.nodes().iter().filter_map(|n| Some((item_of(&n.title)?, n.pages.first))).collect();
        let missing: Vec<String> = items
            .iter()
            .filter(|(item, page)| !starts.iter().any(|(i, p)| i == item && p == page))
            .map(|(item, page)| format!("{item}@{page}"))
            .collect();
        println!("{file}\t{}/{}\t{}", items.len() - missing.len(), items.len(), missing.join(" "));
        listed += items.len();
        placed += items.len() - missing.len();
    }
    let share = placed as f64 / listed as f64;
    println!("items on their listed page: {placed}/{listed} = {share:.3}");
    assert!(share >= MIN_ITEMS, "{share:.3} of listed items are nodes on their page, want {MIN_ITEMS}");
}

#[test]
fn long_filings_get_dense_trees() {
    let Some(dir) = filings() else { return };
    let paths = pdfs(&dir);
    let mut density = Vec::new();
    for path in paths {
        let doc = document(&path);
        let per_100 = 100.0 * (doc.tree.len() - 1) as f64 / doc.pages.len() as f64;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        println!("{name}\t{}\t{}\t{per_100:.1}", doc.pages.len(), doc.tree.len() - 1);
        if doc.pages.len() >= LONG {
            density.push(per_100);
        }
    }
    density.sort_by(f64::total_cmp);
    let mid = density.len() / 2;
    let median = if density.len() % 2 == 0 { (density[mid - 1] + density[mid]) / 2.0 } else { density[mid] };
    println!("median nodes per 100 pages, filings of {LONG}+ pages: {median:.1}");
    assert!(median >= MIN_DENSITY, "median {median:.1} nodes per 100 pages, want {MIN_DENSITY}");
}

/// Prints 100 headings drawn from every filing's tree with a fixed seed, for judging by
/// hand: `cargo test -p strata-ingest --test filings -- --ignored --nocapture heading_sample`.
/// The judged sample is `bench/results/filings/heading-sample.tsv`.
#[test]
#[ignore = "prints a sample to judge by hand"]
fn heading_sample() {
    let Some(dir) = filings() else { return };
    let paths = pdfs(&dir);
    let mut all = Vec::new();
    for path in paths {
        let doc = document(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for n in doc.tree.nodes().iter().skip(1) {
            all.push(format!("{name}\t{}\t{}\t{}", n.pages.first, n.level, n.title));
        }
    }
    // A fixed-seed Fisher–Yates shuffle (xorshift), so the sample is the same on every run.
    let mut state: u64 = 0x5eed_2026;
    for i in (1..all.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        all.swap(i, (state % (i as u64 + 1)) as usize);
    }
    println!("of {} headings:\nfile\tpage\tlevel\ttitle", all.len());
    for line in all.iter().take(100) {
        println!("{line}");
    }
}

/// The chunks of a filing, with their structural contexts.
fn chunks(path: &Path) -> (Document, Vec<Chunk>) {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    let pipeline = PIPELINE.get_or_init(|| Pipeline::new(&Config::default()).unwrap());
    let mut record = pipeline.process(pipeline.document_file(path).unwrap(), &Cut::Chunker).unwrap();
    add_structural(&record.document, &mut record.chunks);
    (record.document, record.chunks)
}

/// Statements are tables: no chunk of any filing starts inside a table row, and a chunk
/// that starts inside a table after its header carries the header's last row in its context.
#[test]
fn statement_rows_stay_whole_and_later_chunks_carry_the_header() {
    let Some(dir) = filings() else { return };
    let (mut tables, mut headed, mut inside, mut carried) = (0, 0, 0, 0);
    for path in pdfs(&dir) {
        let (doc, chunks) = chunks(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for table in doc.blocks.iter().filter(|b| b.kind == BlockKind::Table) {
            tables += 1;
            headed += usize::from(table.header.is_some());
            for c in
                chunks.iter().filter(|c| c.span.start > table.span.start && c.span.start < table.span.end)
            {
                inside += 1;
                let before = &doc.text[..c.span.start];
                assert!(before.ends_with('\n'), "{name}: chunk {} starts inside a row", c.id);
                let Some(header) = table.header else { continue };
                // A very wide header row is cut in the context; its start is kept.
                let last_row = header.slice(&doc.text).lines().last().unwrap().trim();
                let last_row = &last_row[..last_row.floor_char_boundary(120)];
                let context = c.context.as_deref().unwrap_or("");
                assert!(context.contains(last_row), "{name}: chunk {} lacks {last_row:?}: {context}", c.id);
                carried += 1;
            }
        }
    }
    println!(
        "{tables} tables, {headed} with a header; {inside} chunks start inside one, {carried} under a header"
    );
    assert!(tables > 1000 && headed * 10 > tables * 7, "{tables} tables, {headed} with a header");
    assert!(carried > 100, "only {carried} chunks start inside a table under its header");
}

/// A named line item of a cash-flow statement: its chunk, read as the legs index it, holds
/// the row whole and the years its numbers belong to.
#[test]
fn a_line_item_chunk_carries_its_year_header() {
    let Some(dir) = filings() else { return };
    let (doc, chunks) = chunks(&dir.join("PEPSICO_2022_10K.pdf"));
    let row = "Capital spending | (5,207) | (4,625) | (4,240)";
    let chunk =
        chunks.iter().find(|c| c.span.slice(&doc.text).contains(row)).expect("the row, whole, in a chunk");
    assert_eq!(chunk.kind, ChunkKind::Table);
    let indexed = format!("{}\n{}", chunk.context.as_deref().unwrap_or(""), chunk.span.slice(&doc.text));
    assert!(indexed.contains("2022 | 2021 | 2020"), "{indexed}");
    assert!(indexed.contains("(in millions)"), "{indexed}");
}

/// The `sec` annotator claims every filing and names it: form and fiscal year from its cover,
/// the issuer for all but one (Coca-Cola's 2017 cover prints its name as an image), and a
/// title that is not an accession number or a placeholder (23 of the 33 PDFs' own titles
/// are). The fiscal year is checked against the one in the file's name.
#[test]
fn every_filing_is_claimed_by_sec_with_a_form_a_fiscal_year_an_issuer_and_a_real_title() {
    let Some(dir) = filings() else { return };
    let (mut missing, mut no_issuer, mut unclaimed) = (Vec::new(), Vec::new(), Vec::new());
    for path in pdfs(&dir) {
        let doc = document(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let meta = |key: &str| doc.metadata.get(key).map(|v| v.to_string()).unwrap_or_default();
        println!("{name}\t{}\t{}", doc.search_title(), meta("fiscal_years"));
        let year: u64 = name.split('_').find_map(|w| w.get(..4)?.parse().ok()).unwrap();
        let years: Vec<u64> = doc
            .metadata
            .get("fiscal_years")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|y| y.as_u64())
            .collect();
        if meta("form").is_empty() || !years.contains(&year) {
            missing.push(format!("{name}: form {:?}, years {years:?}", meta("form")));
        }
        if meta("issuer").is_empty() {
            no_issuer.push(name.clone());
        }
        assert!(!strata_ingest::annotate::title_is_placeholder(&doc.title), "{name}: title {:?}", doc.title);
        if !doc.annotations.iter().any(|a| a.annotator == "sec") {
            unclaimed.push(name.clone());
        }
        // Neither the issuer nor the title is a line of the cover's boilerplate or a form's
        // part or item heading.
        let issuer = doc.metadata.get("issuer").and_then(|v| v.as_str()).unwrap_or_default();
        for named in [issuer, doc.title.as_str()].into_iter().filter(|n| !n.is_empty()) {
            let boilerplate =
                Sec.title_names_nothing(named) || item_of(named).is_some() || named.starts_with("PART ");
            assert!(
                !boilerplate && !named.to_lowercase().contains("exchange commission"),
                "{name}: {named:?}"
            );
        }
    }
    assert!(unclaimed.is_empty(), "filings the sec annotator did not claim: {unclaimed:?}");
    assert!(
        missing.is_empty(),
        "{} filings without a form or fiscal year:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(no_issuer.len() <= 1, "filings without an issuer: {no_issuer:?}");
}
