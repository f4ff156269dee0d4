use strata_core::config::NameEvidence;
use strata_core::{DocId, DocumentProfile, Format};
use strata_index::DocSummary;

use super::*;

fn summary(id: &str, name: &str, period: &str, lead: &str) -> DocSummary {
    DocSummary {
        id: DocId(id.into()),
        title: name.into(),
        path: format!("{id}.pdf"),
        format: Format::Pdf,
        content_hash: String::new(),
        pages: 1,
        nodes: 1,
        chunks: 1,
        definitions: 0,
        references: 0,
        metadata: Default::default(),
        profile: DocumentProfile { name: name.into(), period: period.into(), lead: lead.into() },
        annotations: Vec::new(),
    }
}

fn filings() -> DocumentIndex {
    DocumentIndex::new(&[
        summary(
            "mgm18",
            "MGMRESORTS | MGM RESORTS INTERNATIONAL",
            "2018 | FY2018 2018 | 10-K",
            "annual report",
        ),
        summary(
            "mgm20",
            "MGMRESORTS | MGM RESORTS INTERNATIONAL | MGM",
            "2020 | FY2020 2020 | 10-K",
            "annual report",
        ),
        summary("fl22", "FOOTLOCKER | Foot Locker, Inc. | FL", "2022 | FY2022 2022 | 8-K", "current report"),
        summary("amd15", "AMD | ADVANCED MICRO DEVICES, INC.", "2015 | FY2015 2015 | 10-K", "annual report"),
    ])
}

fn top(index: &DocumentIndex, query: &str) -> Vec<String> {
    index.rank(query, NameEvidence::All).shortlist().iter().map(|h| h.doc.to_string()).collect()
}

#[test]
fn the_named_company_and_year_come_first() {
    let index = filings();
    assert_eq!(top(&index, "What was MGM Resorts' FY2020 revenue?"), ["mgm20"]);
    assert_eq!(top(&index, "What was MGM Resorts' revenue in FY18?"), ["mgm18"]);
    assert_eq!(top(&index, "How did AMD's gross margin change in 2015?"), ["amd15"]);
}

#[test]
fn a_multi_year_question_belongs_to_the_latest_filing() {
    assert_eq!(top(&filings(), "MGM Resorts average revenue from FY2018 to FY2020?"), ["mgm20"]);
}

#[test]
fn glued_file_names_match_a_company_written_in_words() {
    let index = DocumentIndex::new(&[
        summary("fl22", "FOOTLOCKER", "2022", ""),
        summary("ulta", "ULTABEAUTY", "2023", ""),
    ]);
    assert_eq!(top(&index, "Did Foot Locker pay a dividend?"), ["fl22"]);
}

#[test]
fn a_query_that_names_no_document_has_no_shortlist() {
    let index = filings();
    let ranking = index.rank("What drove the reduction in SG&A expense in FY2022?", NameEvidence::All);
    assert!(!ranking.hits.is_empty(), "the year matches a period");
    assert!(ranking.shortlist().is_empty(), "but no name: {:?}", ranking.hits);
    assert!(index.rank("board nominees with votes against", NameEvidence::All).shortlist().is_empty());
}

#[test]
fn same_company_filings_share_the_shortlist_when_the_year_does_not_decide() {
    let shortlist = top(&filings(), "MGM Resorts International casino revenue");
    assert_eq!(shortlist.len(), 2, "{shortlist:?}");
    assert!(shortlist.iter().all(|d| d.starts_with("mgm")));
}

#[test]
fn one_document_is_never_ranked() {
    let index = DocumentIndex::new(&[summary("only", "MGM", "2020", "")]);
    assert!(index.rank("MGM 2020", NameEvidence::All).hits.is_empty());
}

#[test]
fn query_terms_normalise_years_and_drop_stop_words() {
    assert_eq!(query_terms("What is the FY 18 capex of 3M?"), ["18", "capex", "3m", "2018", "fy2018"]);
    assert_eq!(query_terms("2023Q1 results"), ["2023q1", "result", "q1", "2023", "fy2023"]);
    assert!(query_terms("Foot Locker dividends").contains(&"footlock".to_string()));
    let terms = query_terms("FY2019 and FY2021 capex");
    assert!(terms.contains(&"fy2021".to_string()) && !terms.contains(&"fy2019".to_string()), "{terms:?}");
}

#[test]
fn one_shared_word_does_not_name_a_document() {
    // Chroma's corpora are files named by topic: a question about the United States is not
    // about `state_of_the_union.md`.
    let index = DocumentIndex::new(&[
        summary("sotu", "state of the union", "", "Good evening."),
        summary("wiki", "wikitexts", "", "Valkyria Chronicles III"),
    ]);
    assert!(index
        .rank("Which states of the United States did the game launch in?", NameEvidence::All)
        .shortlist()
        .is_empty());
    assert_eq!(top(&index, "What did the State of the Union say about fees?"), ["sotu"]);
}

#[test]
fn dense_similarity_orders_the_named_documents_and_never_unnames_the_first() {
    let index = filings();
    // "MGM Resorts" names both MGM filings, equally by BM25 (no year).
    let mut ranking = index.rank("MGM Resorts hotel occupancy", NameEvidence::All);
    let candidates = ranking.dense_candidates();
    assert_eq!(candidates.len(), 2, "{ranking:?}");
    let shortlist = |r: &DocumentRanking| r.shortlist().iter().map(|h| h.doc.to_string()).collect::<Vec<_>>();
    let before = shortlist(&ranking);
    let best = ranking.hits[0].score;
    let sim = |a: f32, b: f32| HashMap::from([(DocId("mgm18".into()), a), (DocId("mgm20".into()), b)]);

    // Weight 0 changes nothing.
    let mut same = ranking.clone();
    same.blend(&sim(0.2, 0.6), 0.0);
    assert_eq!(same, ranking);

    ranking.blend(&sim(0.2, 0.6), 1.0);
    assert_eq!(ranking.hits[0].doc.as_str(), "mgm20", "{ranking:?}");
    assert_eq!(ranking.hits[0].score, best, "the best keeps the best score");
    assert!(ranking.hits[1].score < best);
    assert_eq!(shortlist(&ranking)[0], "mgm20");
    assert_eq!(before.len(), 2);

    // A query naming one document has no candidates: nothing to order.
    assert!(index
        .rank("How did AMD's gross margin change in 2015?", NameEvidence::All)
        .dense_candidates()
        .is_empty());
    assert!(index.rank("revenue growth", NameEvidence::All).dense_candidates().is_empty(), "names none");
}

fn papers() -> DocumentIndex {
    DocumentIndex::new(&[
        summary(
            "1602.07563",
            "Multilingual Twitter Sentiment Classification: The Role of Human Annotators | 1602.07563",
            "",
            "abstract",
        ),
        summary("1811.00001", "Neural Machine Translation of Rare Words | 1811.00001", "", "abstract"),
        summary("usc35", "TITLE 35—PATENTS | usc35", "", "patents"),
    ])
}

#[test]
fn a_quoted_title_is_a_name_and_a_quoted_passage_is_not() {
    let index = papers();
    assert!(index.is_title("Multilingual Twitter Sentiment Classification: The Role of Human Annotators"));
    assert!(index.is_title("Neural Machine Translation of Rare Words"));
    assert!(!index.is_title("effective filing date"), "words of a passage name nothing");
    assert!(!index.is_title("rare words"), "part of a title is not the title");
    assert!(
        !index.is_title(
            "patents that claim an invention disclosed in an earlier application by the same inventor"
        ),
        "a long passage that holds a short name is still a passage"
    );
}

#[test]
fn without_names_drops_the_quoted_title_or_the_naming_words_and_nothing_else() {
    let index = papers();
    let q = "In the paper \"Neural Machine Translation of Rare Words\": Which rare words do they translate?";
    let ranking = index.rank(q, NameEvidence::All);
    let titles = vec!["Neural Machine Translation of Rare Words".to_string()];
    let rest = index.without_names(q, ranking.shortlist(), &titles);
    assert_eq!(
        rest, "In the paper : Which rare words do they translate?",
        "the title's words outside it stay"
    );

    let filings = filings();
    let q = "What was MGM Resorts' FY2020 revenue?";
    let ranking = filings.rank(q, NameEvidence::All);
    assert_eq!(filings.without_names(q, ranking.shortlist(), &[]), "What was FY2020 revenue?");
    let q = "What is the revenue of the state?";
    assert_eq!(
        filings.without_names(q, filings.rank(q, NameEvidence::All).shortlist(), &[]),
        q,
        "names nothing: unchanged"
    );
}

/// Pages of a web documentation site: each is named by a topic that the others' first
/// pages use too, so a query holding that topic names its page weakly; a company named by
/// a filing alone is named firmly.
#[test]
fn a_topic_many_profiles_hold_names_weakly_and_a_company_firmly() {
    let pages = DocumentIndex::new(&[
        summary("auth", "Authentication", "", "set up authentication for the API with tokens"),
        summary("tokens", "API tokens", "", "tokens carry authentication; rotate them"),
        summary("oauth", "OAuth apps", "", "authentication through OAuth apps and tokens"),
        summary("limits", "Rate limits", "", "requests per minute for each token"),
    ]);
    for rule in [NameEvidence::All, NameEvidence::Any] {
        let ranking = pages.rank("How do I set up authentication with tokens?", rule);
        let auth = ranking.hits.iter().find(|h| h.doc.as_str() == "auth").unwrap();
        assert!(auth.named, "{ranking:?}");
        assert!(auth.evidence < 0.25, "a topic three of four pages use: {}", auth.evidence);
    }
    // "API tokens": two pages hold "api", every page "token".
    let all = pages.rank("Which API tokens expire?", NameEvidence::All);
    let any = pages.rank("Which API tokens expire?", NameEvidence::Any);
    let tokens = |r: &DocumentRanking| r.hits.iter().find(|h| h.doc.as_str() == "tokens").unwrap().evidence;
    assert_eq!(tokens(&all), 0.0);
    assert!((tokens(&any) - 0.5).abs() < 1e-6, "{}", tokens(&any));

    let ranking = filings().rank("What was Foot Locker's FY2022 revenue?", NameEvidence::All);
    let fl = &ranking.hits[0];
    assert_eq!((fl.doc.as_str(), fl.named), ("fl22", true));
    assert!(fl.evidence > 0.99, "a company one filing holds: {}", fl.evidence);
    // Two filings share the company's name: both are named, and firmly.
    let mgm = filings().rank("What was MGM Resorts' revenue?", NameEvidence::All);
    assert!(mgm.hits.iter().filter(|h| h.named).all(|h| h.evidence > 0.99), "{mgm:?}");
    assert_eq!(mgm.hits.iter().filter(|h| h.named).count(), 2, "{mgm:?}");
    let none = filings().rank("What was the revenue?", NameEvidence::All);
    assert!(none.hits.iter().all(|h| h.evidence == 0.0), "{none:?}");
}
