use super::preamble::{read, Party};
use super::*;

const ENDORSEMENT: &str = "REDACTED COPY
CONFIDENTIAL TREATMENT REQUESTED
1
ENDORSEMENT AGREEMENT
This Agreement is entered into on January 13, 2005 between professional golfer, TOM WATSON, (hereinafter referred to as \"CONSULTANT\") and ADAMS GOLF, LTD. (hereinafter referred to as \"ADAMS GOLF\").
WITNESSETH
WHEREAS, ADAMS GOLF desires to obtain the right to use the name of CONSULTANT;
";

const COLLABORATION: &str = "Exhibit 10.1 COLLABORATION AGREEMENT This Collaboration Agreement (the \"Agreement\") is made as of April 14th, 2020 (the \"Effective Date\") by and between Anixa Biosciences, Inc., a Delaware corporation, located at 3150 Almaden Expressway, Suite 250, San Jose, CA 95118, U.S.A. (\"Anixa\"), and OntoChem GmbH, a German limited liability company, located at Blücherstr. 24, D-06120 Halle (Saale), Germany (\"OntoChem\"). Anixa and OntoChem are referred to herein individually as a \"Party\". WHEREAS, the Parties wish to collaborate.";

fn party(name: &str, short: &str) -> Party {
    Party { name: name.into(), short: Some(short.into()) }
}

#[test]
fn a_preamble_names_the_parties_their_short_names_the_date_and_the_kind() {
    let p = read(ENDORSEMENT);
    assert_eq!(p.parties, vec![party("TOM WATSON", "CONSULTANT"), party("ADAMS GOLF, LTD.", "ADAMS GOLF")]);
    assert_eq!(p.date.as_deref(), Some("January 13, 2005"));
    assert_eq!(p.kind.as_deref(), Some("ENDORSEMENT AGREEMENT"));
    let p = read(COLLABORATION);
    assert_eq!(
        p.parties,
        vec![party("Anixa Biosciences, Inc.", "Anixa"), party("OntoChem GmbH", "OntoChem")]
    );
    assert_eq!(p.date.as_deref(), Some("April 14th, 2020"));
    assert_eq!(p.kind.as_deref(), Some("Collaboration Agreement"));
}

#[test]
fn parties_are_cut_where_a_description_ends_and_small_words_stay_in_names() {
    let text = "This Remarketing Agreement is made by and among The Bank of New York Mellon, a New York banking corporation (the \"Bank\"); Nuveen Fund Advisors, LLC and Tate & Lyle PLC. WHEREAS";
    let names: Vec<String> = read(text).parties.into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["The Bank of New York Mellon", "Nuveen Fund Advisors, LLC", "Tate & Lyle PLC."]);
}

#[test]
fn a_preamble_makes_a_contract_recitals_alone_do_not() {
    let detection = Contract.detect(View { text: ENDORSEMENT, ..View::default() });
    assert!(detection.confidence >= THRESHOLD, "{detection:?}");
    assert_eq!(
        detection.evidence,
        "a preamble between parties; defined terms; recitals; an agreement's title"
    );
    let alone = "WHEREAS the river floods every spring, the town raised its banks.";
    let detection = Contract.detect(View { text: alone, ..View::default() });
    assert!(detection.confidence < THRESHOLD, "{detection:?}");
    let fields = Contract.annotate(View { text: ENDORSEMENT, ..View::default() });
    let keys: Vec<&str> = fields.metadata.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, FIELDS[..4], "every metadata field it declares");
    assert_eq!(
        fields.title.as_deref(),
        Some("ENDORSEMENT AGREEMENT between TOM WATSON and ADAMS GOLF, LTD.")
    );
    for boilerplate in ["REDACTED COPY", "EXHIBIT 10.17", "Exhibit 99(k)(5)", "Execution Copy", "1"] {
        assert!(Contract.title_names_nothing(boilerplate), "{boilerplate}");
    }
    assert!(!Contract.title_names_nothing("ENDORSEMENT AGREEMENT"));
}
