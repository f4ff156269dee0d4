//! Enrichment on the shared corpus. Each test skips (with a message) when the corpus is not
//! in this checkout. Run with `--nocapture` to see counts and samples.

use std::collections::BTreeSet;
use std::time::Instant;

use strata_core::{ChunkKind, Document, Reference};

use super::testdoc::{chunks, corpus_doc};
use super::{definitions, enrich, references};

fn distinct_terms(doc: &Document) -> BTreeSet<String> {
    definitions::find_definitions(doc).into_iter().map(|d| d.normalized).collect()
}

fn print_definitions(name: &str, doc: &Document, samples: usize) -> usize {
    let defs = definitions::find_definitions(doc);
    let distinct: BTreeSet<_> = defs.iter().map(|d| d.normalized.as_str()).collect();
    eprintln!("{name}: {} definitions, {} distinct terms", defs.len(), distinct.len());
    let step = (defs.len() / samples.max(1)).max(1);
    for d in defs.iter().step_by(step).take(samples) {
        let text: String = d.text.chars().take(110).collect();
        eprintln!("  [{}] {:?} — {}", d.node, d.term, text.replace('\n', " "));
    }
    distinct.len()
}

struct RefStats {
    total: usize,
    resolved: usize,
    exact: usize,
    external: usize,
}

fn ref_stats(refs: &[&Reference]) -> RefStats {
    RefStats {
        total: refs.len(),
        resolved: refs.iter().filter(|r| r.resolved.is_some()).count(),
        exact: refs.iter().filter(|r| r.exact).count(),
        external: refs.iter().filter(|r| r.external.is_some()).count(),
    }
}

fn pct(n: usize, of: usize) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

#[test]
fn usc_title35_definitions_and_references() {
    let Some(doc) = corpus_doc("html/usc-title35-patents.htm") else { return };
    let n = print_definitions("usc-title35", &doc, 12);
    let terms = distinct_terms(&doc);
    assert!(n >= 35, "only {n} distinct terms: {terms:?}");
    let defs = definitions::find_definitions(&doc);
    let invention = defs.iter().find(|d| d.normalized == "invention").expect("invention is defined");
    assert_eq!(invention.text, "The term \"invention\" means invention or discovery.");
    assert_eq!(invention.span.slice(&doc.text), invention.text);
    for t in [
        "process",
        "united states",
        "this country",
        "patentee",
        "inventor",
        "joint inventor",
        "effective filing date",
    ] {
        assert!(terms.contains(t), "{t} missing");
    }

    let refs = references::find_references(&doc);
    let all: Vec<&Reference> = refs.iter().collect();
    let s = ref_stats(&all);
    eprintln!(
        "usc-title35: {} references, resolved {:.1}% (exact {:.1}%), external {:.1}%",
        s.total,
        pct(s.resolved, s.total),
        pct(s.exact, s.total),
        pct(s.external, s.total)
    );
    let internal: Vec<&Reference> = refs.iter().filter(|r| r.external.is_none()).collect();
    let si = ref_stats(&internal);
    eprintln!(
        "  internal only: {} resolved of {} ({:.1}%)",
        si.resolved,
        si.total,
        pct(si.resolved, si.total)
    );
    for r in refs.iter().filter(|r| r.external.is_some()).step_by(97).take(6) {
        eprintln!("  external: {:?} -> {:?} {:?}", r.raw, r.target, r.external);
    }
    for r in internal.iter().filter(|r| r.resolved.is_none()).step_by(31).take(8) {
        eprintln!("  unresolved: {:?} -> {:?} in [{}]", r.raw, r.target, r.from);
    }
    assert!(s.total > 1000, "{} references", s.total);
    assert!(pct(si.resolved, si.total) > 70.0);
    // `section 102` resolves to §102 exactly.
    let sec102 = refs.iter().find(|r| r.target == "102" && r.external.is_none()).unwrap();
    let node = doc.tree.get(sec102.resolved.unwrap()).unwrap();
    assert!(node.title.starts_with("§102."), "{}", node.title);
}

#[test]
fn usc_title09_definitions() {
    let Some(doc) = corpus_doc("html/usc-title09-arbitration.htm") else { return };
    print_definitions("usc-title09", &doc, 10);
    let terms = distinct_terms(&doc);
    assert!(terms.contains("maritime transactions") && terms.contains("commerce"), "{terms:?}");
    let refs = references::find_references(&doc);
    let all: Vec<&Reference> = refs.iter().collect();
    let s = ref_stats(&all);
    eprintln!(
        "usc-title09: {} references, resolved {:.1}%, external {:.1}%",
        s.total,
        pct(s.resolved, s.total),
        pct(s.external, s.total)
    );
}

#[test]
fn rfc9110_section_references_resolve() {
    let Some(doc) = corpus_doc("html/rfc9110-http-semantics.html") else { return };
    print_definitions("rfc9110", &doc, 12);
    let refs = references::find_references(&doc);
    let section_style: Vec<&Reference> = refs
        .iter()
        .filter(|r| r.external.is_none() && r.raw.to_ascii_lowercase().starts_with("section"))
        .collect();
    let s = ref_stats(&section_style);
    let ratio = pct(s.resolved, s.total);
    let all: Vec<&Reference> = refs.iter().collect();
    let a = ref_stats(&all);
    eprintln!(
        "rfc9110: {} references ({} external, {:.1}% of all resolved); internal `Section N.N`: {} of {} resolve ({ratio:.1}%, exact {:.1}%)",
        a.total,
        a.external,
        pct(a.resolved, a.total),
        s.resolved,
        s.total,
        pct(s.exact, s.total)
    );
    for r in section_style.iter().filter(|r| r.resolved.is_none()).take(8) {
        eprintln!("  unresolved: {:?} -> {:?} in [{}]", r.raw, r.target, r.from);
    }
    for r in refs.iter().filter(|r| r.external.is_some()).step_by(53).take(5) {
        eprintln!("  external: {:?} -> {:?} {:?}", r.raw, r.target, r.external);
    }
    assert!(s.total > 300, "{} section references", s.total);
    assert!(ratio >= 80.0, "{ratio:.1}% resolve");
}

#[test]
fn openapi_markdown_is_sensible() {
    let Some(doc) = corpus_doc("markdown/openapi-spec-3.2.0.md") else { return };
    let n = print_definitions("openapi-3.2.0.md", &doc, 12);
    let refs = references::find_references(&doc);
    let all: Vec<&Reference> = refs.iter().collect();
    let s = ref_stats(&all);
    eprintln!(
        "openapi-3.2.0.md: {} references, resolved {:.1}%, external {:.1}%",
        s.total,
        pct(s.resolved, s.total),
        pct(s.external, s.total)
    );
    for r in refs.iter().step_by(40).take(6) {
        eprintln!("  ref: {:?} -> {:?} {:?} {:?}", r.raw, r.target, r.external, r.resolved);
    }
    for d in definitions::find_definitions(&doc) {
        eprintln!("  {:?} — {}", d.term, d.text.chars().take(100).collect::<String>());
    }
    // A specification without a glossary defines few terms, and none of them is junk.
    assert!(n < 60, "{n} terms");
    let mut c = chunks(&doc, 2000);
    enrich(&doc, &mut c);
    let requirement = c.iter().filter(|c| c.kind == ChunkKind::Requirement).count();
    eprintln!("openapi-3.2.0.md: {} chunks, {requirement} requirement", c.len());
    assert!(requirement > 0);
}

#[test]
fn enrich_title35_is_fast_and_complete() {
    let Some(doc) = corpus_doc("html/usc-title35-patents.htm") else { return };
    let mut c = chunks(&doc, 1500);
    let t = Instant::now();
    let e = enrich(&doc, &mut c);
    let cold = t.elapsed();
    // Again, with the regexes compiled: the steady state of an ingest run.
    let t = Instant::now();
    let e2 = enrich(&doc, &mut c);
    let took = t.elapsed();
    assert_eq!(e.references, e2.references);
    let t = Instant::now();
    let _ = definitions::find_definitions(&doc);
    let defs_t = t.elapsed();
    let t = Instant::now();
    let _ = references::find_references(&doc);
    let refs_t = t.elapsed();
    eprintln!("enrich: cold {cold:?}, warm {took:?} (definitions {defs_t:?}, references {refs_t:?})");
    let mut kinds = std::collections::BTreeMap::new();
    for ch in &c {
        *kinds.entry(ch.kind.name()).or_insert(0) += 1;
    }
    let with_uses = c.iter().filter(|c| !c.uses.is_empty()).count();
    eprintln!(
        "enrich usc-title35 ({} bytes, {} chunks): {took:?}; kinds {kinds:?}; {} chunks use defined terms",
        doc.text.len(),
        c.len(),
        with_uses
    );
    // Every definition and reference lands in exactly one chunk.
    let defined: usize = c.iter().map(|c| c.references.len()).sum();
    assert_eq!(defined, e.references.len());
    assert!(c.iter().any(|c| c.defines.contains(&"invention".to_string())));
    assert!(with_uses > c.len() / 4);
    if !cfg!(debug_assertions) {
        assert!(took.as_millis() < 100, "enrich took {took:?}");
    }
}

/// Plain-text RFCs: every internal `Section N.N` reference resolves to a section (there are
/// hundreds: a reader that lost the numbered headings would leave them dangling), and RFC
/// 9000's "Terms and Definitions" (its section 1.2, `Term:  definition` paragraphs) are found.
#[test]
fn plain_text_rfcs_resolve_their_section_references_and_find_their_terms() {
    for (rel, least_references, terms) in [
        ("txt/rfc7231-http11-semantics.txt", 200, &[][..]),
        (
            "txt/rfc9000-quic-unpaginated.txt",
            400,
            &["quic", "endpoint", "client", "server", "quic packet"][..],
        ),
    ] {
        let Some(doc) = corpus_doc(rel) else { continue };
        let distinct = print_definitions(rel, &doc, 6);
        let refs = references::find_references(&doc);
        let internal: Vec<&Reference> = refs
            .iter()
            .filter(|r| r.external.is_none() && r.raw.to_ascii_lowercase().starts_with("section"))
            .collect();
        let s = ref_stats(&internal);
        eprintln!(
            "{rel}: {} references; internal `Section N.N`: {} of {} resolve ({:.1}%)",
            refs.len(),
            s.resolved,
            s.total,
            pct(s.resolved, s.total)
        );
        let unresolved: Vec<_> =
            internal.iter().filter(|r| r.resolved.is_none()).take(5).map(|r| &r.raw).collect();
        assert!(
            s.total >= least_references,
            "{rel}: {} internal references, expected {least_references}+",
            s.total
        );
        assert_eq!(s.resolved, s.total, "{rel}: unresolved, e.g. {unresolved:?}");
        let found: BTreeSet<String> =
            definitions::find_definitions(&doc).into_iter().map(|d| d.normalized).collect();
        assert!(distinct >= terms.len(), "{rel}: {distinct} defined terms");
        for term in terms {
            assert!(found.contains(*term), "{rel}: {term:?} is not among the defined terms {found:?}");
        }
    }
}
