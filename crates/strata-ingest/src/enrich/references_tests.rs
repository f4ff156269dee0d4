//! Tests of [`super`]: one per form, positive and negative.

use super::*;
use crate::enrich::testdoc::doc;

/// The references outside heading lines (those in headings are kept by
/// [`find_references`] but would clutter these tests).
fn refs(text: &str, headings: &[(u32, &str)]) -> (Document, Vec<Reference>) {
    let d = doc(text, headings);
    let mut r = find_references(&d);
    r.retain(|r| !d.tree.nodes().iter().any(|n| n.heading.contains(r.span.start)));
    (d, r)
}

#[test]
fn references_in_headings_are_kept() {
    let d = doc(STATUTE, STATUTE_H);
    assert_eq!(targets(&find_references(&d)), ["101", "102", "103"]);
}

fn targets(r: &[Reference]) -> Vec<&str> {
    r.iter().map(|r| r.target.as_str()).collect()
}

const STATUTE: &str =
    "§101. Inventions\nText.\n§102. Novelty\n(a) In general.\n(b) Exceptions.\n§103. Obviousness\nbody\n";
const STATUTE_H: &[(u32, &str)] = &[(1, "§101. Inventions"), (1, "§102. Novelty"), (1, "§103. Obviousness")];

#[test]
fn section_with_subsections_falls_back_to_the_parent() {
    let text = format!("{STATUTE}See section 102(b)(1) and Section 103.");
    let (_, r) = refs(&text, STATUTE_H);
    assert_eq!(targets(&r), ["102(b)(1)", "103"]);
    assert_eq!(r[0].raw, "section 102(b)(1)");
    assert_eq!(r[0].resolved, Some(NodeId(2)));
    assert!(!r[0].exact);
    assert_eq!(r[0].via.as_deref(), Some("see"));
    assert_eq!(r[1].resolved, Some(NodeId(3)));
    assert!(r[1].exact);
    assert_eq!(r[1].from, NodeId(3));
}

#[test]
fn section_lists_and_ranges() {
    let (_, r) = refs(
        "sections 101 through 105; sections 3, 4, and 5; sections 7 to 8; §§ 1–3; sections 4.1 through 4.9",
        &[],
    );
    assert_eq!(
        targets(&r),
        ["101", "102", "103", "104", "105", "3", "4", "5", "7", "8", "1", "2", "3", "4.1", "4.9"]
    );
    assert_eq!(r[0].raw, "sections 101");
    assert_eq!(r[1].raw, "sections 101 through 105");
    assert_eq!(r[4].raw, "105");
    assert_eq!(r[6].raw, "4");
}

#[test]
fn long_ranges_keep_only_the_ends() {
    let (_, r) = refs("sections 1 through 500", &[]);
    assert_eq!(targets(&r), ["1", "500"]);
}

#[test]
fn singular_section_takes_or() {
    let (_, r) = refs("under section 102 or 103, and section 3, 4 bytes", &[]);
    assert_eq!(targets(&r), ["102", "103", "3"]);
    assert_eq!(r[0].via.as_deref(), Some("under"));
}

#[test]
fn section_sign_and_dotted_numbers() {
    let text =
        "1. Intro\nx\n4. Body\n4.2. Detail\ny\nAs described in § 4.2 and Section 4.2.7, not section 9.";
    let (_, r) = refs(text, &[(1, "1. Intro"), (1, "4. Body"), (2, "4.2. Detail")]);
    assert_eq!(targets(&r), ["4.2", "4.2.7", "9"]);
    assert_eq!(r[0].resolved, Some(NodeId(3)));
    assert!(r[0].exact);
    assert_eq!(r[0].via.as_deref(), Some("as described in"));
    assert_eq!((r[1].resolved, r[1].exact), (Some(NodeId(3)), false));
    assert_eq!(r[2].resolved, None);
}

#[test]
fn relative_subsection_resolves_in_the_enclosing_section() {
    let text = STATUTE.replace(
        "(b) Exceptions.",
        "(b) Exceptions under subsection (a)(1) and paragraph (2) of subsection (b).",
    );
    let (_, r) = refs(&text, STATUTE_H);
    assert_eq!(targets(&r), ["102(a)(1)", "102(b)(2)"]);
    let sub = &r[0];
    assert_eq!(sub.raw, "subsection (a)(1)");
    assert_eq!((sub.resolved, sub.exact), (Some(NodeId(2)), false));
    assert_eq!(sub.via.as_deref(), Some("under"));
}

#[test]
fn relative_without_a_section_stays_unresolved_and_lone_paragraph_is_skipped() {
    let (_, r) = refs("subsection (c) applies; paragraph (2) too; subsection (a) of section 7", &[]);
    assert_eq!(targets(&r), ["(c)", "7(a)"]);
    assert_eq!(r[0].resolved, None);
}

#[test]
fn units() {
    let text = "Chapter 10 Patents\nx\nArticle V\ny\nAppendix A. Notes\nz\nA.1. More\nw\nSee Chapter 10, Article V, Appendix A, Appendix A.1 and chapters 10 and 11; part of the text.";
    let h = [(1, "Chapter 10 Patents"), (1, "Article V"), (1, "Appendix A. Notes"), (2, "A.1. More")];
    let (_, r) = refs(text, &h);
    let tail: Vec<_> = r.iter().filter(|r| r.span.start > text.find("See").unwrap()).collect();
    let keys: Vec<_> = tail.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(keys, ["chapter 10", "article v", "appendix a", "appendix a.1", "chapter 10", "chapter 11"]);
    assert_eq!(tail[0].resolved, Some(NodeId(1)));
    assert_eq!(tail[1].resolved, Some(NodeId(2)));
    assert_eq!(tail[2].resolved, Some(NodeId(3)));
    assert_eq!((tail[3].resolved, tail[3].exact), (Some(NodeId(4)), true));
    assert_eq!(tail[5].resolved, None);
}

#[test]
fn rfc_style_external() {
    let (_, r) = refs("See Section 4.2 of [RFC9110] and [URI], Section 3.3, and Section 7 of RFC 3986.", &[]);
    assert_eq!(targets(&r), ["4.2", "3.3", "7"]);
    let ext: Vec<_> = r.iter().map(|r| r.external.as_deref().unwrap()).collect();
    assert_eq!(ext, ["RFC9110", "URI", "RFC3986"]);
    assert!(r.iter().all(|r| r.resolved.is_none()));
    assert_eq!(r[0].via.as_deref(), Some("see"));
    assert_eq!(r[0].raw, "Section 4.2");
}

#[test]
fn us_code_external_and_internal() {
    let text = "TITLE 35—PATENTS\n§102. Novelty\nx\nsection 1498 of title 28; section 102 of this title; section 102 of title 35; 28 U.S.C. 1338; 35 U.S.C. 102(a); section 501 of the Internal Revenue Code of 1986; section 3 of the Leahy-Smith America Invents Act; Pub. L. 112–29, §3(n)(1); section 5 of Pub. L. 96-517; act July 19, 1952, ch. 950, §1.";
    let (_, r) = refs(text, &[(1, "TITLE 35—PATENTS"), (2, "§102. Novelty")]);
    let got: Vec<_> =
        r.iter().map(|r| (r.target.as_str(), r.external.as_deref(), r.resolved.map(|n| n.0))).collect();
    assert_eq!(
        got,
        [
            ("1498", Some("title 28"), None),
            ("102", None, Some(2)),
            ("102", None, Some(2)),
            ("1338", Some("title 28"), None),
            ("102(a)", None, Some(2)),
            ("501", Some("Internal Revenue Code of 1986"), None),
            ("3", Some("Leahy-Smith America Invents Act"), None),
            ("3(n)(1)", Some("Pub. L. 112–29"), None),
            ("5", Some("Pub. L. 96-517"), None),
            ("1", Some("ch. 950"), None),
        ]
    );
    assert_eq!(r[0].raw, "section 1498");
}

#[test]
fn markdown_links_and_drafts_are_external() {
    let (_, r) = refs(
        "as defined by [[RFC3986]] [Section 4.1](https://x/y#section-4.1), [[!RFC9512|YAML]] [Section 3.4](u), [RFC 3986, section 3.3](u), [[RFC6265]], [section 5.6 of draft-ietf-httpbis-rfc6265bis](u)",
        &[],
    );
    let ext: Vec<_> = r.iter().map(|r| r.external.as_deref().unwrap_or("-")).collect();
    assert_eq!(ext, ["RFC3986", "RFC9512", "RFC3986", "draft-ietf-httpbis-rfc6265bis"]);
    assert_eq!(r[0].via.as_deref(), None);
}

#[test]
fn singular_head_with_an_en_dash_range() {
    let (_, r) =
        refs("[[RFC3986]] [Section 5.1.1 – 5.1.4](u) and Section 4 – 6 here; section 3-4 stays", &[]);
    assert_eq!(targets(&r), ["5.1.1", "5.1.4", "4", "5", "6", "3-4"]);
}

#[test]
fn other_us_code_titles_are_external() {
    let text = "TITLE 35—PATENTS\n§1. Office\ntitle 5, United States Code; title 35; chapter 17 of title 28; section 3 [as amended] of title 5";
    let (_, r) = refs(text, &[(1, "TITLE 35—PATENTS"), (2, "§1. Office")]);
    let got: Vec<_> = r.iter().map(|r| (r.target.as_str(), r.external.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("title 5", Some("title 5")),
            ("title 35", None),
            ("chapter 17", Some("title 28")),
            ("3", Some("title 5"))
        ]
    );
}

#[test]
fn more_us_code_citation_forms() {
    let text = "TITLE 35—PATENTS\n§1. Office\n[§2011 et seq. of Title 42]; [sections 151 to 152 of former Title 35]; 68 | T. 28 §1498 69; Appendix C.2.2 of [HTTP/1.1]";
    let (_, r) = refs(text, &[(1, "TITLE 35—PATENTS"), (2, "§1. Office")]);
    let got: Vec<_> = r.iter().map(|r| (r.target.as_str(), r.external.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("2011", Some("title 42")),
            ("151", Some("former title 35")),
            ("152", Some("former title 35")),
            ("1498", Some("title 28")),
            ("appendix c.2.2", Some("HTTP/1.1")),
        ]
    );
}

#[test]
fn lead_ins() {
    for (lead, via) in [
        ("pursuant to", "pursuant to"),
        ("as defined in", "as defined in"),
        ("described in", "described in"),
        ("specified in", "specified in"),
        ("in accordance with", "in accordance with"),
        ("subject to", "subject to"),
        ("(see", "see"),
        ("as  defined\nin", "as defined in"),
    ] {
        let (_, r) = refs(&format!("x {lead} section 5."), &[]);
        assert_eq!(r[0].via.as_deref(), Some(via), "{lead}");
    }
    let (_, r) = refs("the section 5 list", &[]);
    assert_eq!(r[0].via, None);
}

#[test]
fn nearest_node_before_the_reference_wins() {
    let text = "Part I\nChapter 1\na\nPart II\nChapter 1\nb see Chapter 1.";
    let h = [(1, "Part I"), (2, "Chapter 1"), (1, "Part II"), (2, "Chapter 1")];
    let (_, r) = refs(text, &h);
    let last = r.last().unwrap();
    assert_eq!(last.target, "chapter 1");
    assert_eq!(last.resolved, Some(NodeId(4)));
}

#[test]
fn not_references() {
    let (_, r) = refs("this section applies; in part because; the title of; a section header; 4 parts", &[]);
    assert!(r.is_empty(), "{r:?}");
}

#[test]
fn pub_l_citation_run_is_external() {
    let (_, r) = refs("Pub. L. 106–113, div. B, §1000(a)(9) [title IV, §4507(1)], Nov. 29, 1999", &[]);
    assert!(r.iter().all(|r| r.external.as_deref() == Some("Pub. L. 106–113")), "{r:?}");
    assert_eq!(targets(&r), ["1000(a)(9)", "title iv", "4507(1)"]);
}
