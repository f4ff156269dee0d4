use strata_core::{Page, Span};

use super::*;

/// A 10-K cover as EDGAR prints it (layout of every 10-K since 2019).
const TEN_K: &str = "UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-K
(Mark One)
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2018
OR
Commission file number 1-3285
3M COMPANY
(Exact name of registrant as specified in its charter)
Delaware    41-0417775
Securities registered pursuant to Section 12(b) of the Act:
Title of each class    Trading Symbol(s)    Name of each exchange on which registered
Common Stock, Par Value $.01 Per Share    MMM    New York Stock Exchange
";

const RELEASE: &str = "FOR IMMEDIATE RELEASE
Johnson & Johnson (NYSE: JNJ) today announced sales of $23.7 billion for the fourth quarter
2022 and full-year 2022 results, an increase of 1.5% compared to the fourth quarter of 2021.
";

fn one_page(text: &str) -> Vec<Page> {
    vec![Page { number: 1, label: None, span: Span::new(0, text.len()), ocr: None }]
}

#[test]
fn a_10k_cover_names_issuer_ticker_form_and_fiscal_year() {
    let id = identify(TEN_K, &one_page(TEN_K));
    assert_eq!(id.issuer, "3M COMPANY");
    assert_eq!(id.ticker, "MMM");
    assert_eq!(id.form, "10-K");
    assert_eq!(id.period, "fiscal year ended December 31, 2018");
    assert_eq!(id.fiscal_years, vec![2018]);
    assert_eq!(id.title().unwrap(), "3M COMPANY 10-K, fiscal year ended December 31, 2018");
}

#[test]
fn the_ticker_is_found_in_a_single_spaced_symbol_table() {
    let text = TEN_K.replace("Common Stock, Par Value $.01 Per Share    MMM    New York Stock Exchange",
        "COMMON STOCK, PAR VALUE $.01 PER SHARE AMZN Nasdaq Global Select Market\nSecurities registered pursuant to Section 12(g): None");
    assert_eq!(identify(&text, &[]).ticker, "AMZN");
}

#[test]
fn a_release_names_the_issuer_by_its_listing_and_the_quarter() {
    let id = identify(RELEASE, &[]);
    assert_eq!((id.issuer.as_str(), id.ticker.as_str()), ("Johnson & Johnson", "JNJ"));
    assert_eq!(id.form, "earnings release");
    assert_eq!(id.quarter, "Q4");
    assert_eq!(id.fiscal_years, vec![2022]);
}

#[test]
fn a_year_ending_early_in_january_is_the_year_before() {
    let text = TEN_K.replace("December 31, 2018", "January 1, 2023");
    assert_eq!(identify(&text, &[]).fiscal_years, vec![2022]);
    let text = TEN_K.replace("December 31, 2018", "January 28, 2023");
    assert_eq!(identify(&text, &[]).fiscal_years, vec![2023, 2022]);
}

#[test]
fn an_8k_is_dated_by_its_report() {
    let text = "FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): May 20, 2022\n\
                FOOT LOCKER, INC.\n(Exact name of registrant as specified in its charter)\n";
    let id = identify(text, &[]);
    assert_eq!((id.form.as_str(), id.period.as_str()), ("8-K", "report dated May 20, 2022"));
    assert_eq!(id.issuer, "FOOT LOCKER, INC.");
    assert_eq!(id.fiscal_years, vec![2022]);
}

#[test]
fn small_capitals_and_subsidiaries_are_cleaned_from_names() {
    assert_eq!(clean("MGM R ESORTS INTERNATIONAL"), "MGM RESORTS INTERNATIONAL");
    assert_eq!(clean("THE COCA-COLA COMPANY AND SUBSIDIARIES"), "THE COCA-COLA COMPANY");
}

#[test]
fn a_document_without_a_cover_has_no_identity() {
    let text = "# Installing\n\nRun the installer and follow the prompts. Results are written to disk.\n";
    let id = identify(text, &[]);
    assert_eq!(id, Identity::default());
    assert_eq!(id.title(), None);
    assert!(id.metadata().is_empty());
}

#[test]
fn a_date_or_a_release_wording_without_an_issuer_is_no_identity() {
    let text = "Our team reports strong results for the quarter ended March 31, 2020.\n\
                The period ended June 30, 2020 saw fewer incidents.\n";
    assert_eq!(identify(text, &[]), Identity::default());
}

#[test]
fn only_the_first_pages_are_read() {
    let filler = "Item 7. Management's discussion.\n".repeat(40);
    let text = format!("{filler}{filler}{filler}{filler}{TEN_K}");
    let quarter = text.len() / 4;
    let pages: Vec<Page> = (0..4)
        .map(|i| Page {
            number: i + 1,
            label: None,
            span: Span::new(i as usize * quarter, (i as usize + 1) * quarter),
            ocr: None,
        })
        .collect();
    assert!(identify(&text, &pages).issuer.is_empty());
}

/// Held-out filings came out with "K Company" (the tail of "Form 10-K") and the cover's
/// boilerplate as issuers: a name has letters of its own and is no line of boilerplate.
#[test]
fn regression_an_issuer_is_a_name_never_the_commission_a_form_heading_or_a_label() {
    for name in
        ["3M COMPANY", "AT&T INC.", "UNITED STATES STEEL CORPORATION", "Washington Trust Bancorp, Inc."]
    {
        assert!(is_name(name), "{name}");
    }
    for name in [
        "K Company",
        "The Company",
        "SECURITIES AND EXCHANGE COMMISSION",
        "UNITED STATES",
        "FORM 10-K",
        "Table of Contents",
        "Washington, D.C. 20549",
        "(Mark One)",
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)",
    ] {
        assert!(!is_name(name), "{name}");
    }
}

#[test]
fn regression_a_running_head_above_the_registrant_label_is_no_issuer() {
    let text = TEN_K.replace("3M COMPANY\n(Exact", "Table of Contents\n(Exact");
    let id = identify(&text, &one_page(&text));
    assert_eq!(id.issuer, "", "no name on the cover: {id:?}");
    assert_eq!(id.form, "10-K");
    let listed =
        TEN_K.replace("3M COMPANY\n(Exact", "Annual Report on Form 10-K Company (NYSE: KCO)\n(Exact");
    let id = identify(&listed, &one_page(&listed));
    assert_eq!((id.issuer.as_str(), id.ticker.as_str()), ("", "KCO"), "{id:?}");
}
