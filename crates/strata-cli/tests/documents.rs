//! Documents at the top of the hierarchy: metadata from `--meta` and sidecars, shown by
//! `strata docs`, and the document leg that lifts the documents a query names.

mod common;

use std::fs;

use common::{json, strata};

/// Two companies' reports that say the same things in the same words: only their names,
/// given as metadata, tell them apart.
fn reports(dir: &std::path::Path) -> (String, String) {
    let body =
        "# Annual report\n\n## Results\n\nRevenue grew by eight percent and the dividend was raised.\n\n\
                ## Outlook\n\nWe expect revenue to keep growing next year.\n";
    let a = dir.join("report-a.md");
    let b = dir.join("report-b.md");
    fs::write(&a, body).unwrap();
    fs::write(&b, body.replace("eight", "nine")).unwrap();
    fs::write(dir.join("report-b.meta.json"), r#"{"company": "Globex Corporation", "year": 2021}"#).unwrap();
    (a.to_str().unwrap().to_string(), b.to_str().unwrap().to_string())
}

#[test]
fn metadata_from_meta_and_sidecars_is_listed_and_names_documents() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, b) = reports(dir.path());
    assert_eq!(
        json(&index, &["ingest", &a, "--meta", "company=Initech", "--meta", "year=2020"])["ingested"],
        1
    );
    assert_eq!(json(&index, &["ingest", &b])["ingested"], 1);

    let docs = json(&index, &["docs"]);
    let meta = |i: usize| docs[i]["metadata"].clone();
    assert_eq!(meta(0)["company"], "Initech");
    assert_eq!(meta(0)["year"], "2020");
    assert_eq!(meta(1)["company"], "Globex Corporation", "the sidecar's");
    assert_eq!(meta(1)["year"], 2021);
    let listed = String::from_utf8(strata(&index, &["docs"]).stdout).unwrap();
    assert!(listed.contains("company: Globex Corporation; year: 2021"), "{listed}");

    for (query, want) in
        [("How much did Globex raise the dividend?", "report-b"), ("Initech revenue growth", "report-a")]
    {
        let r = json(&index, &["search", query, "--mode", "hybrid"]);
        let top = &r["hits"][0];
        assert!(top["source_path"].as_str().unwrap().ends_with(&format!("{want}.md")), "{query}: {r:#}");
        assert_eq!(top["document_rank"], 1, "{query}");
        assert_eq!(top["legs"]["document"]["rank"], 1);
        assert!(r["timings"]["documents"].is_number());
    }
    let r = json(&index, &["search", "revenue growth next year", "--mode", "hybrid"]);
    assert!(
        r["hits"].as_array().unwrap().iter().all(|h| h.get("document_rank").is_none()),
        "no name, no lift: {r:#}"
    );

    // --where keeps the documents whose metadata holds every condition, in every mode.
    for mode in ["hybrid", "keyword", "hierarchical", "exact"] {
        let r = json(
            &index,
            &["search", "revenue \"dividend\"", "--mode", mode, "--where", "company=globex corporation"],
        );
        let hits = r["hits"].as_array().unwrap();
        assert!(!hits.is_empty() || mode == "exact", "{mode}: {r:#}");
        assert!(
            hits.iter().all(|h| h["source_path"].as_str().unwrap().ends_with("report-b.md")),
            "{mode}: {r:#}"
        );
    }
    let both = json(&index, &["search", "revenue", "--mode", "keyword", "-k", "20"]);
    let initech =
        json(&index, &["search", "revenue", "--mode", "keyword", "-k", "20", "--where", "year=2020"]);
    assert!(initech["hits"].as_array().unwrap().len() < both["hits"].as_array().unwrap().len());
    let out = strata(&index, &["search", "revenue", "--where", "company=Hooli"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no document has company=Hooli"));
    let out = strata(&index, &["search", "revenue", "--where", "company"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--where company=Acme"));
}

#[test]
fn bad_metadata_is_a_clear_error_and_a_bad_sidecar_fails_its_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let (a, b) = reports(dir.path());
    let out = strata(&index, &["ingest", &a, "--meta", "company"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--meta company=Acme"));
    let out = strata(&index, &["ingest", &a, "--meta", "bad key=1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"bad key\""));
    // The options are checked before the index is opened: a bad flag leaves no empty index.
    assert!(!index.exists(), "a refused ingest created {}", index.display());

    fs::write(dir.path().join("report-b.meta.json"), "{not json").unwrap();
    let out = strata(&index, &["--json", "ingest", &a, &b]);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["ingested"], 1, "{summary:#}");
    assert_eq!(summary["failed"], 1);
    assert!(summary.to_string().contains("report-b.meta.json"), "the error names the sidecar: {summary:#}");
}
