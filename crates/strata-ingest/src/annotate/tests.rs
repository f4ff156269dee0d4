use serde_json::json;

use super::*;

/// A 10-K cover's top, as EDGAR prints it.
const COVER: &str = "UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
For the fiscal year ended December 31, 2018
3M COMPANY
(Exact name of registrant as specified in its charter)
";

const MANUAL: &str =
    "# Installing\n\nRun the installer and follow the prompts. Results are written to disk.\n";

fn view(text: &str) -> View<'_> {
    View { text, ..View::default() }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_annotator_is_named_in_the_configuration() {
    let all: Vec<&str> = all().iter().map(|a| a.name()).collect();
    assert_eq!(all, strata_core::config::ANNOTATORS);
}

#[test]
fn auto_runs_an_annotator_where_it_detects_its_convention_and_says_why() {
    let annotators = Annotators::new(&names(&["auto"]));
    let ran = annotators.run(view(COVER));
    assert_eq!(ran.len(), 1, "a filing is no contract");
    let Annotation { annotator, confidence, why, .. } = &ran[0].annotation;
    assert_eq!(annotator, "sec");
    assert!((confidence - 0.995).abs() < 1e-6, "1 - (1 - .9)(1 - .95): {confidence}");
    assert_eq!(why, "detected: 1.00 ≥ 0.60 (an SEC form heading at the top; a registrant line)");
    assert_eq!(ran[0].fields.metadata[0], ("issuer", json!("3M COMPANY")));
    assert!(annotators.run(view(MANUAL)).is_empty(), "a manual is no filing");
}

#[test]
fn a_named_annotator_runs_on_every_document_and_none_runs_with_an_empty_list() {
    let ran = Annotators::new(&names(&["sec"])).run(view(MANUAL));
    assert_eq!(ran.len(), 1);
    assert_eq!(ran[0].annotation.why, "named in [ingest] annotators (detected: 0.00 < 0.60)");
    assert_eq!(ran[0].fields, Fields::default(), "nothing of a filing is in a manual");
    assert!(Annotators::new(&[]).run(view(COVER)).is_empty());
}

/// An annotator that fills more than it declares.
struct Overreaching;

impl Annotator for Overreaching {
    fn name(&self) -> &'static str {
        "overreaching"
    }
    fn threshold(&self) -> f32 {
        0.5
    }
    fn fields(&self) -> &'static [&'static str] {
        &["kind"]
    }
    fn detect(&self, _: View) -> Detection {
        Detection { confidence: 1.0, evidence: String::new() }
    }
    fn annotate(&self, _: View) -> Fields {
        Fields { metadata: vec![("kind", json!("x")), ("issuer", json!("y"))], title: Some("z".into()) }
    }
}

#[test]
fn an_annotator_fills_its_declared_fields_and_nothing_else() {
    let fields = declared(&Overreaching, Overreaching.annotate(view("")));
    assert_eq!(fields, Fields { metadata: vec![("kind", json!("x"))], title: None });
    // `sec` declares every field its identity fills.
    let identity = sec::identity::identify(COVER, &[]);
    assert!(identity.metadata().iter().all(|(k, _)| sec::FIELDS.contains(k)));
}

/// `filled` says what the document holds of the annotator's: not a field that the
/// document's front matter or a sidecar gave, nor a title the document did not take.
#[test]
fn an_annotation_records_the_fields_the_document_took() {
    let ran = Annotators::new(&names(&["auto"])).run(view(COVER)).remove(0);
    let mut metadata: BTreeMap<String, Value> =
        ran.fields.metadata.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let all = ran.clone().record(&metadata, true);
    assert_eq!(all.filled, names(&["issuer", "form", "period", "fiscal_years", "title"]));
    metadata.insert("issuer".into(), json!("3M Co (from a sidecar)"));
    let some = ran.record(&metadata, false);
    assert_eq!(some.filled, names(&["form", "period", "fiscal_years"]));
}

#[test]
fn sec_reads_a_covers_boilerplate_as_no_title() {
    for title in [
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "Securities and Exchange Commission",
        "FORM 10-K",
        "Washington, D.C. 20549",
        "Table of Contents",
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    ] {
        assert!(sec::Sec.title_names_nothing(title), "{title}");
    }
    for title in
        ["Form 10-K for Johnson Johnson filed 02/16/2023", "Ulta Beauty Announces Fourth Quarter Results"]
    {
        assert!(!sec::Sec.title_names_nothing(title), "{title}");
    }
    let ran = Annotators::new(&names(&["auto"]))
        .run(View { title: Some("UNITED STATES SECURITIES AND EXCHANGE COMMISSION"), ..view(COVER) });
    assert!(ran[0].title_names_nothing);
}

/// Regression: 10-Ks and 8-Ks that carry an agreement as an exhibit were claimed by
/// `contract` too, and their "parties" were words of the exhibit. `auto` runs the surest
/// annotator only; one named runs as well.
#[test]
fn regression_a_filing_with_an_agreement_in_it_is_a_filing_not_a_contract() {
    let filing = format!(
        "{COVER}\nExhibit 10.1\nThis Credit Agreement is entered into as of May 26, 2023 by and between \
         PepsiCo, Inc. (the \"Borrower\") and Citibank, N.A. (the \"Agent\").\nIN WITNESS WHEREOF, the parties \
         have signed it.\n"
    );
    let ran = Annotators::new(&names(&["auto"])).run(view(&filing));
    let ran: Vec<&str> = ran.iter().map(|r| r.annotation.annotator.as_str()).collect();
    assert_eq!(ran, ["sec"]);
    let ran = Annotators::new(&names(&["auto", "contract"])).run(view(&filing));
    let ran: Vec<&str> = ran.iter().map(|r| r.annotation.annotator.as_str()).collect();
    assert_eq!(ran, ["sec", "contract"]);
}
