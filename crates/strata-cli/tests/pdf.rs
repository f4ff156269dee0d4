//! PDF and DOCX through the CLI on the shared corpus: ingest, `read --pages`, and search hits
//! that cite the right page. Skips, saying why, when `../shared/data/corpus` is absent.

mod common;

use std::sync::OnceLock;

use common::{ingest_corpus, json, strata, Ingested};

fn ingested() -> Option<&'static Ingested> {
    static INDEX: OnceLock<Option<Ingested>> = OnceLock::new();
    INDEX.get_or_init(|| ingest_corpus(&["pdf", "docx"])).as_ref()
}

#[test]
fn read_pages_prints_those_pages_and_refuses_pages_past_the_end() {
    let Some(ing) = ingested() else { return };
    let out = json(&ing.index, &["read", "nist-sp-800-207", "--pages", "14-15"]);
    let pages = out["pages"].as_array().unwrap();
    assert_eq!(pages.iter().map(|p| p["number"].as_u64().unwrap()).collect::<Vec<_>>(), [14, 15]);
    assert_eq!(out["page_count"], 59);
    let text = pages[0]["text"].as_str().unwrap();
    assert!(text.contains("policy decision point (PDP)"), "{text}");
    assert!(!text.contains("available free of charge"), "the rotated margin stamp is left out");
    let bad = strata(&ing.index, &["read", "nist-sp-800-207", "--pages", "70"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("59 pages"), "{err}");
}

#[test]
fn pdf_hits_cite_the_page_their_text_is_on_by_its_printed_number() {
    let Some(ing) = ingested() else { return };
    let out = json(&ing.index, &["search", "\"Attacker Response to ZTA\"", "--mode", "exact", "-k", "3"]);
    let hits = out["hits"].as_array().unwrap();
    let section = hits
        .iter()
        .find(|h| h["heading_path"].as_array().unwrap().last().unwrap() == "B.4.5 Attacker Response to ZTA")
        .unwrap_or_else(|| panic!("the section is among the hits: {out:#}"));
    assert_eq!(section["pages"]["first"], 58, "{section:#}");
    let page = json(&ing.index, &["read", "nist-sp-800-207", "--pages", "58"]);
    assert!(page["pages"][0]["text"].as_str().unwrap().contains("Attacker Response to ZTA"));
    assert_eq!(page["pages"][0]["label"], "49");
    // Physical page 58 prints "49": the context block cites the printed number.
    let context = out["context"]["text"].as_str().unwrap();
    assert!(context.contains("› B.4.5 Attacker Response to ZTA, p. 49]"), "{context}");
}

#[test]
fn docx_sections_are_numbered_and_searchable() {
    let Some(ing) = ingested() else { return };
    let tree = json(&ing.index, &["tree", "usc-title13"]);
    let text = tree.to_string();
    assert!(text.contains("Definitions"), "the § 1 Definitions section is in the tree");
    let out = json(&ing.index, &["search", "\"Bureau\" means", "-k", "3"]);
    assert!(out["hits"].as_array().is_some_and(|h| !h.is_empty()), "{out:#}");
}
