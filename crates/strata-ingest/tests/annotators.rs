//! The annotators' detectors on real documents: the corpus's RFCs, statutes, papers,
//! specifications and manuals are claimed by none (their ranking cannot depend on any
//! annotator), and SEC filings are claimed by `sec` (`filings.rs`, which reads them all).
//! Skips, with a message, when `../shared/data/corpus` is absent.

use strata_core::Config;
use strata_ingest::annotate::{Annotators, View};
use strata_ingest::pipeline::Pipeline;

/// Every annotator, as if named in `[ingest] annotators`, to read each detector's finding.
fn every_annotator() -> Annotators {
    let every: Vec<String> = strata_core::config::ANNOTATORS.iter().map(|a| a.to_string()).collect();
    Annotators::new(&every)
}

#[test]
fn no_annotator_claims_an_rfc_a_statute_a_paper_or_a_manual() {
    let Some(files) = strata_core::testdata::corpus_files() else { return };
    let pipeline = Pipeline::new(&Config::default()).unwrap();
    let detectors = every_annotator();
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    for path in files {
        let doc = pipeline.document_file(&path).unwrap();
        assert!(doc.annotations.is_empty(), "{}: {:?}", path.display(), doc.annotations);
        for ran in detectors.run(View { text: &doc.text, pages: &doc.pages, title: Some(&doc.title) }) {
            let a = &ran.annotation;
            println!("{}\t{}\t{:.2}\t{}", path.display(), a.annotator, a.confidence, a.why);
        }
    }
}

/// The contracts of cuad (`../shared/data/eval/cuad`, 509 commercial contracts filed with
/// the SEC as exhibits) are claimed by `contract`, and their parties read.
#[test]
fn contracts_are_claimed_by_contract_not_by_sec() {
    let Some(dir) = strata_core::testdata::shared("eval/cuad") else { return };
    let pipeline = Pipeline::new(&Config::default()).unwrap();
    let detectors = every_annotator();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let (mut contract, mut sec, mut parties) = (0, Vec::new(), 0);
    for path in &paths {
        let doc = pipeline.document_file(path).unwrap();
        let by = |name: &str| doc.annotations.iter().any(|a| a.annotator == name);
        contract += by("contract") as usize;
        if !by("contract") {
            let found = detectors.run(View { text: &doc.text, pages: &doc.pages, title: Some(&doc.title) });
            let contract = found.iter().find(|r| r.annotation.annotator == "contract").unwrap();
            println!("unclaimed: {}\t{}", path.display(), contract.annotation.why);
        }
        if by("sec") {
            sec.push(path.file_name().unwrap().to_string_lossy().to_string());
        }
        parties +=
            doc.metadata.get("parties").and_then(|p| p.as_array()).is_some_and(|p| p.len() >= 2) as usize;
    }
    let n = paths.len();
    println!(
        "{n} contracts: {contract} claimed by contract, {} by sec, {parties} with two parties or more",
        sec.len()
    );
    println!("claimed by sec: {sec:?}");
    assert!(contract * 100 >= n * 90, "contract claims {contract} of {n}");
    assert!(sec.len() * 100 <= n * 2, "sec claims {} of {n}", sec.len());
}
