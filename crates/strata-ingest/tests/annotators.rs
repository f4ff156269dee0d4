//! The annotators' detectors on real documents: the corpus's RFCs, statutes, papers,
//! specifications and manuals are claimed by none (their ranking cannot depend on any
//! annotator), and SEC filings are claimed by `sec` (`filings.rs`, which reads them all).
//! Skips, with a message, when `../shared/data/corpus` is absent.

use strata_core::Config;
use strata_ingest::annotate::{Annotators, View};
use strata_ingest::pipeline::Pipeline;

#[test]
fn no_annotator_claims_an_rfc_a_statute_a_paper_or_a_manual() {
    let Some(files) = strata_core::testdata::corpus_files() else { return };
    let pipeline = Pipeline::new(&Config::default()).unwrap();
    // Every annotator, as if named in `[ingest] annotators`, to read each detector's finding.
    let every: Vec<String> = strata_core::config::ANNOTATORS.iter().map(|a| a.to_string()).collect();
    let detectors = Annotators::new(&every);
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    for path in files {
        let doc = pipeline.document_file(&path).unwrap();
        assert!(doc.annotations.is_empty(), "{}: {:?}", path.display(), doc.annotations);
        for ran in detectors.run(View { text: &doc.text, pages: &doc.pages, title: Some(&doc.title) }) {
            let a = &ran.annotation;
            println!("{}\t{}\t{:.2}\t{}", path.display(), a.annotator, a.confidence, a.why);
            assert_eq!(a.confidence, 0.0, "{}: {}", path.display(), a.why);
        }
    }
}
