//! Tests of [`super`]: one per form, positive and negative.

use super::*;
use crate::enrich::testdoc::doc;

fn terms(d: &[Definition]) -> Vec<&str> {
    d.iter().map(|d| d.normalized.as_str()).collect()
}

#[test]
fn the_term_x_means() {
    let d = doc(
        "§100. Definitions\n(a) The term \"invention\" means invention or discovery.\n(b) The term \"process\" means process, art or method.\n",
        &[(1, "§100. Definitions")],
    );
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["invention", "process"]);
    assert_eq!(defs[0].text, "The term \"invention\" means invention or discovery.");
    assert_eq!(defs[0].span.slice(&d.text), defs[0].text);
    assert_eq!(defs[0].term, "invention");
    assert_eq!(defs[0].node.0, 1);
}

#[test]
fn quoted_means_outside_a_definitions_section() {
    let d = doc("# Intro\nHere \"Widget\" means a small part. Other text.\n", &[(1, "# Intro")]);
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["widget"]);
    assert_eq!(defs[0].text, "\"Widget\" means a small part.");
}

#[test]
fn typographic_quotes_includes_and_has_the_meaning() {
    let d = doc(
        "“Holder” includes any assignee. The word “Seller” has the meaning given in section 2. “Buyer”, means the purchaser.\n",
        &[],
    );
    assert_eq!(terms(&find_definitions(&d)), ["holder", "seller", "buyer"]);
}

#[test]
fn the_terms_x_and_y_mean() {
    let d = doc(
        "(c) The terms \"United States\" and \"this country\" mean the United States of America, its territories and possessions.\n",
        &[],
    );
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["united states", "this country"]);
    assert_eq!(defs[0].span, defs[1].span);
    assert!(defs[1].text.ends_with("possessions."));
}

#[test]
fn as_herein_defined_aside() {
    let d = doc("\"Maritime transactions\", as herein defined, means charter parties; \"commerce\", as herein defined, means commerce among the States.", &[]);
    assert_eq!(terms(&find_definitions(&d)), ["maritime transactions", "commerce"]);
}

#[test]
fn lead_in_with_a_qualifier_and_a_list_definition() {
    let text = "(i)(1) The term \"effective filing date\" for a claimed invention in a patent means—\n(A) the actual filing date; or\n(B) the earliest date.\n(j) Other text.";
    let d = doc(text, &[]);
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["effective filing date"]);
    assert!(defs[0].text.ends_with("(B) the earliest date."), "{}", defs[0].text);
}

#[test]
fn abbreviations_do_not_end_the_sentence() {
    let d = doc(
        "The term \"agency\" means an agency as defined in section 551 of title 5, U.S.C. and e.g. Sec. 3 of Pub. L. 112–29 as amended. Next sentence.\n",
        &[],
    );
    let defs = find_definitions(&d);
    assert_eq!(defs.len(), 1);
    assert!(defs[0].text.ends_with("as amended."), "{}", defs[0].text);
}

#[test]
fn semicolon_ends_the_definition() {
    let d = doc("(1) \"Board\" means the Patent Trial and Appeal Board; and\n(2) more", &[]);
    assert_eq!(find_definitions(&d)[0].text, "\"Board\" means the Patent Trial and Appeal Board;");
}

#[test]
fn text_is_capped() {
    let long = "word ".repeat(300);
    let d = doc(&format!("\"Long\" means {long}end."), &[]);
    let defs = find_definitions(&d);
    assert!(defs[0].text.len() <= MAX_TEXT);
}

#[test]
fn unquoted_means_only_in_a_definitions_section() {
    let text = "1. Definitions\n(3) Director means the Director of the Office.\nThe term user agent refers to any client program.\n2. Scope\nDirector means nothing here. This means nothing.\n";
    let d = doc(text, &[(1, "1. Definitions"), (1, "2. Scope")]);
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["director", "user agent"]);
    assert_eq!(defs[0].text, "Director means the Director of the Office.");
    assert_eq!(defs[1].text, "The term user agent refers to any client program.");
}

#[test]
fn unquoted_plural_lead_in() {
    let d = doc(
        "3. Terminology\nThe terms sender and recipient refer to any implementation.\n",
        &[(1, "3. Terminology")],
    );
    assert_eq!(terms(&find_definitions(&d)), ["sender", "recipient"]);
}

#[test]
fn child_of_a_definitions_section_counts_grandchild_does_not() {
    let text = "1 Terminology\n1.1 Roles\nClient means a program.\n1.1.1 Deep\nServer means a program.\n";
    let d = doc(text, &[(1, "1 Terminology"), (2, "1.1 Roles"), (3, "1.1.1 Deep")]);
    assert_eq!(terms(&find_definitions(&d)), ["client"]);
}

#[test]
fn glossary_entries() {
    let text = "Appendix A. Acronyms\nAPI: Application Programming Interface\nwrapped text\nin UNIX: not an entry\n\nidempotent: a lowercase entry\n- **TLS** — Transport Layer Security\nURI - Uniform Resource Identifier\nNote: not a term.\nfoo-bar baz\n# Other\nXML: not in a glossary\n";
    let d = doc(text, &[(1, "Appendix A. Acronyms"), (1, "# Other")]);
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["api", "idempotent", "tls", "uri"]);
    assert_eq!(defs[0].text, "API: Application Programming Interface");
    assert_eq!(defs[2].text, "- **TLS** — Transport Layer Security");
}

#[test]
fn prose_about_a_phrase_is_not_a_definition() {
    let d = doc("The phrase \"and other\" is added to include legal works.", &[]);
    assert!(find_definitions(&d).is_empty());
}

#[test]
fn glossary_skips_code_and_sentences() {
    let text = "Glossary\nHost: www.example.com\nRelatively few resources allow the DELETE method — its use is rare.\nHTTP: a protocol\n";
    let mut d = doc(text, &[(1, "Glossary")]);
    let host = text.find("Host").unwrap();
    d.blocks = vec![strata_core::Block::new(BlockKind::Code, Span::new(host, host + 22))];
    assert_eq!(terms(&find_definitions(&d)), ["http"]);
}

#[test]
fn quotes_paired_across_strings_are_not_terms() {
    let d = doc(
        "inserted \"(a)\", struck out the colon after \"shall include\", and \"x\", then \"y\" means z.",
        &[],
    );
    assert_eq!(terms(&find_definitions(&d)), ["y"]);
}

#[test]
fn markdown_emphasis_marks_a_term() {
    let d = doc(
        "Here, a _sequential media type_ is defined as any media type that repeats. A **Path** means a route. The *flag* includes x. my_snake_case_ means nothing.",
        &[],
    );
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["sequential media type", "path"]);
    assert_eq!(defs[0].text, "_sequential media type_ is defined as any media type that repeats.");
}

#[test]
fn junk_terms_are_dropped() {
    let long = "a very long quoted phrase that goes on and on well past eight words";
    let d = doc(&format!("\"{long}\" means x. \"  \" means y. \"42\" means z."), &[]);
    assert!(find_definitions(&d).is_empty());
}

#[test]
fn prose_with_quotes_is_not_a_definition() {
    let d = doc(
        "The \"Accept\" header field, which the client sends, means nothing. He said \"hi\" and it includes x.",
        &[],
    );
    assert!(find_definitions(&d).is_empty(), "{:?}", find_definitions(&d));
}

#[test]
fn duplicates_are_kept() {
    let d = doc("\"Director\" means A. Later, \"Director\" means B.", &[]);
    let defs = find_definitions(&d);
    assert_eq!(terms(&defs), ["director", "director"]);
    assert_ne!(defs[0].text, defs[1].text);
}

#[test]
fn section_titles() {
    for (title, yes) in [
        ("§100. Definitions", true),
        ("1.2 Terminology", true),
        ("Appendix A. Acronyms", true),
        ("Glossary", true),
        ("Terms and Conditions", true),
        ("Determinations", false),
        ("4.3 Method Definitions", false),
        ("Type Definitions", false),
        ("1.1 Defined Terms", true),
        ("1.2. Terms and Definitions", true),
        ("Common Definitions", true),
        ("Interpretations of law", false),
    ] {
        assert_eq!(is_definitions_title(title), yes, "{title}");
    }
}

#[test]
fn sentence_end_rules() {
    let t = "x means y. Z";
    assert_eq!(sentence_end(t, 7, t.len(), false), 10);
    let t = "x means 35 U.S.C. 102 applies. Z";
    assert_eq!(&t[..sentence_end(t, 7, t.len(), false)], "x means 35 U.S.C. 102 applies.");
    let t = "x means see Appendix A. Then";
    assert_eq!(&t[..sentence_end(t, 7, t.len(), false)], "x means see Appendix A.");
    let t = "x means the \"thing.\" Then";
    assert_eq!(&t[..sentence_end(t, 7, t.len(), false)], "x means the \"thing.\"");
    let t = "x means a\n\nnew paragraph.";
    assert_eq!(&t[..sentence_end(t, 7, t.len(), false)], "x means a");
}
