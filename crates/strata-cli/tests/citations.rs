//! Citations that exist (issue 56), on corpus documents, through the CLI and the HTTP API:
//!
//! - a page is cited only where a document has pages (the PDF, the paginated RFC 7231);
//!   Markdown and plain text without pages cite the source lines a passage covers, HTML its
//!   heading path alone;
//! - heading paths never repeat the document's title.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use serde_json::{json, Value};

use common::{corpus, json, strata, Ingested};

const MARKDOWN: &str = "markdown/uslm-user-guide.md";
const HTML: &str = "html/usc-title35-patents.htm";
const UNPAGED: &str = "txt/rfc9000-quic-unpaginated.txt";
const PAGED: &str = "txt/rfc7231-http11-semantics.txt";
const PDF: &str = "pdf/nist-sp-800-207-zero-trust-architecture.pdf";
/// The API key of the served index.
const KEY: &str = "citations-test-key-0123456789";
/// A Word file that records no page breaks.
const DOCX: &str = "docx/fedramp-working-with-oscal.docx";

/// Queries that reach each document above, with the document.
const QUERIES: [(&str, &str); 6] = [
    ("legislative markup elements attributes", MARKDOWN),
    ("section 102(b) novelty prior art", HTML),
    ("stream flow control limits", UNPAGED),
    ("conditional request preconditions", PAGED),
    ("zero trust tenets", PDF),
    ("OSCAL XML and JSON formats", DOCX),
];

/// The documents above, and a copy of the Markdown guide under four lines of front matter.
fn ingested() -> Option<&'static Ingested> {
    static INGESTED: OnceLock<Option<Ingested>> = OnceLock::new();
    INGESTED
        .get_or_init(|| {
            let corpus = corpus()?;
            let dir = tempfile::tempdir().unwrap();
            let fronted = dir.path().join("fronted-guide.md");
            let guide = std::fs::read_to_string(corpus.join(MARKDOWN)).unwrap();
            std::fs::write(&fronted, format!("---\ntitle: Fronted guide\nlang: en\n---\n{guide}")).unwrap();
            let index = dir.path().join("index");
            let mut paths: Vec<String> = [MARKDOWN, HTML, UNPAGED, PAGED, PDF, DOCX]
                .iter()
                .map(|p| corpus.join(p).display().to_string())
                .collect();
            paths.push(fronted.display().to_string());
            let mut args = vec!["ingest"];
            args.extend(paths.iter().map(String::as_str));
            let summary = json(&index, &args);
            assert_eq!(summary["failed"], 0, "{summary:#}");
            Some(Ingested { _dir: dir, index })
        })
        .as_ref()
}

/// The source file behind a document id (its `source_path`).
fn source_lines(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.strip_prefix('\u{feff}').unwrap_or(&text).split('\n').map(str::to_string).collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks one cited passage (a hit, a definition, a reference) of a document of `format`:
/// pages only with pages, lines only in Markdown and unpaged text, and the lines hold the
/// passage's first and last lines of text; the heading path starts below the title.
fn assert_cited(item: &Value, doc: &Doc, text: &str, what: &str) {
    let title = item["doc_title"].as_str().unwrap();
    let path: Vec<&str> =
        item["heading_path"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert!(
        path.first().is_none_or(|top| squash(top) != squash(title)),
        "{what}: title repeated in {path:?}"
    );
    let citation = item["citation"].as_str().unwrap();
    assert!(!citation.contains(&format!("{title} › {title}")), "{what}: {citation}");
    match (doc.has_pages, doc.format.as_str()) {
        (true, _) => {
            assert!(item.get("pages").is_some() && item.get("lines").is_none(), "{what}: {item:#}");
            assert!(citation.contains(", p. ") || citation.contains(", pp. "), "{what}: {citation}");
        }
        (false, "markdown" | "text") => {
            assert!(item.get("pages").is_none(), "{what} cites a page that does not exist: {item:#}");
            let lines = &item["lines"];
            let (first, last) =
                (lines["first"].as_u64().unwrap() as usize, lines["last"].as_u64().unwrap() as usize);
            assert!(citation.ends_with(&format!("{}]", line_label(first, last))), "{what}: {citation}");
            let source = source_lines(&doc.path);
            // Every word of the first and last lines shown is on the cited lines (a hit's
            // heading is shown apart, and Markdown without its marks).
            let cited = source[first - 1..last].join("\n");
            let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            for line in body.first().into_iter().chain(body.last()) {
                for word in line.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                    assert!(
                        cited.contains(word),
                        "{what}: {word:?} of {line:?} is not on lines {first}–{last}:\n{cited}"
                    );
                }
            }
        }
        _ => {
            assert!(item.get("pages").is_none() && item.get("lines").is_none(), "{what}: {item:#}");
            assert!(!citation.contains(", p. ") && !citation.contains(", line"), "{what}: {citation}");
        }
    }
}

fn line_label(first: usize, last: usize) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}–{last}")
    }
}

/// What the checks need of a listed document.
struct Doc {
    format: String,
    has_pages: bool,
    /// The source file.
    path: String,
}

type Docs = std::collections::HashMap<String, Doc>;

/// The listed documents by id (`strata docs --json`, `GET /v1/documents`).
fn formats(docs: &Value) -> Docs {
    docs.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let doc = Doc {
                format: d["format"].as_str().unwrap().to_string(),
                has_pages: d.get("pages").is_some(),
                path: d["path"].as_str().unwrap().to_string(),
            };
            (d["id"].as_str().unwrap().to_string(), doc)
        })
        .collect()
}

/// Every hit, definition and reference of a search response is cited as it should be.
fn assert_response_cited(r: &Value, docs: &Docs, query: &str) {
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{query}: no hits");
    let empty = Vec::new();
    let items = hits.iter().map(|h| ("hit", h)).chain(
        ["definitions", "references"]
            .into_iter()
            .flat_map(|list| r[list].as_array().unwrap_or(&empty).iter().map(move |x| (list, x))),
    );
    for (i, (what, item)) in items.enumerate() {
        let doc = &docs[item["doc_id"].as_str().unwrap()];
        assert_cited(item, doc, item["text"].as_str().unwrap(), &format!("{query}: {what} {i}"));
    }
}

#[test]
fn documents_list_pages_only_where_they_have_them() {
    let Some(ing) = ingested() else { return };
    let docs = json(&ing.index, &["docs"]);
    for d in docs.as_array().unwrap() {
        let path = d["path"].as_str().unwrap();
        let paged = path.ends_with(PDF) || path.ends_with(PAGED);
        assert_eq!(formats(&docs)[d["id"].as_str().unwrap()].has_pages, paged);
        assert_eq!(d.get("pages").is_some(), paged, "{path}: {d:#}");
    }
    let out = strata(&ing.index, &["docs"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(" 1 pages"), "{text}");
    assert!(text.contains("[pdf; 59 pages,"), "{text}");
}

#[test]
fn search_cites_pages_lines_or_the_heading_path_by_format() {
    let Some(ing) = ingested() else { return };
    let docs = formats(&json(&ing.index, &["docs"]));
    for (query, _) in QUERIES {
        for mode in ["hybrid", "hierarchical", "keyword"] {
            let r = json(&ing.index, &["search", query, "-k", "8", "--mode", mode, "--refs"]);
            assert_response_cited(&r, &docs, &format!("{query} ({mode})"));
        }
        // Merged sections and whole pages.
        let r = json(&ing.index, &["search", query, "-k", "5", "--merge", "0.01"]);
        assert_response_cited(&r, &docs, &format!("{query} (merged)"));
    }
}

#[test]
fn front_matter_does_not_shift_the_cited_lines() {
    let Some(ing) = ingested() else { return };
    let docs = formats(&json(&ing.index, &["docs"]));
    let fronted = docs.keys().find(|id| id.starts_with("fronted-guide")).unwrap().clone();
    let r =
        json(&ing.index, &["search", "legislative markup elements attributes", "--doc", &fronted, "-k", "5"]);
    assert_response_cited(&r, &docs, "fronted guide");
    let plain = json(
        &ing.index,
        &["search", "legislative markup elements attributes", "--doc", "uslm-user-guide", "-k", "5"],
    );
    let lines = |r: &Value| r["hits"][0]["lines"]["first"].as_u64().unwrap();
    assert_eq!(r["hits"][0]["text"], plain["hits"][0]["text"]);
    assert_eq!(lines(&r), lines(&plain) + 4, "four lines of front matter come first");
}

#[test]
fn the_human_output_names_no_page_one_and_no_title_twice() {
    let Some(ing) = ingested() else { return };
    for (query, doc) in QUERIES {
        let out = strata(&ing.index, &["search", query, "-k", "5", "--refs"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{query}: {text}");
        if doc == MARKDOWN || doc == UNPAGED || doc == HTML {
            assert!(!text.contains("p. 1 ") && !text.contains("(p. 1)"), "{query}:\n{text}");
        }
        if doc == MARKDOWN || doc == UNPAGED {
            assert!(text.contains(" · line"), "{query}: no source lines:\n{text}");
        }
        assert!(!text.contains("TITLE 35—PATENTS › TITLE 35—PATENTS"), "{query}:\n{text}");
        assert!(!text.contains("Markup › United States Legislative Markup"), "{query}:\n{text}");
    }
}

#[test]
fn navigation_cites_the_same_way() {
    let Some(ing) = ingested() else { return };
    let docs = formats(&json(&ing.index, &["docs"]));
    let id = |part: &str| docs.keys().find(|d| d.starts_with(part)).unwrap().clone();
    let section = json(&ing.index, &["show", &format!("{}#4.1", id("rfc9000"))]);
    assert!(section.get("pages").is_none(), "{section:#}");
    let lines = &section["lines"];
    let source = source_lines(&Path::new(&corpus().unwrap()).join(UNPAGED).display().to_string());
    assert!(
        source[lines["first"].as_u64().unwrap() as usize - 1].starts_with("4.1.  Data Flow Control"),
        "{section:#}"
    );
    let statute = json(&ing.index, &["show", &format!("{}#102", id("usc-title35"))]);
    assert!(statute.get("pages").is_none() && statute.get("lines").is_none(), "{statute:#}");
    assert_ne!(statute["heading_path"][0], statute["doc_title"], "{statute:#}");
    let defined = json(&ing.index, &["define", "claimed invention"]);
    for d in defined.as_array().unwrap() {
        assert!(d.get("pages").is_none(), "{d:#}");
        assert_ne!(d["heading_path"][0], d["doc_title"], "{d:#}");
    }
    let out = strata(&ing.index, &["read", &id("rfc9000"), "--pages", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("has no pages") && err.contains("strata show"), "{err}");
    let pdf = json(&ing.index, &["read", &id("nist"), "--pages", "3"]);
    assert_eq!(pdf["pages"][0]["number"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_api_cites_the_same_way() {
    let Some(ing) = ingested() else { return };
    let served = common::served::serve(&ing.index, &[], KEY, &[("STRATA_DENSE_ENABLED", "false")]);
    let (base, http) = (served.base(), reqwest::Client::new());
    let get = |path: String| {
        let http = http.clone();
        async move { http.get(path).bearer_auth(KEY).send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let listed = get(format!("{base}/v1/documents")).await;
    let docs = formats(&listed);
    assert_eq!(docs.values().filter(|d| d.has_pages).count(), 2, "{listed:#}");
    for (query, _) in QUERIES {
        let body = json!({ "query": query, "mode": "hybrid", "k": 8, "refs": true, "budget": 2000 });
        let r: Value = http
            .post(format!("{base}/v1/search"))
            .bearer_auth(KEY)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_response_cited(&r, &docs, query);
        assert!(bounded(&r), "{query}: {r:#}");
        assert_no_markup(&r, query);
        // The context block cites each hit it holds as the hit does.
        let context = r["context"]["text"].as_str().unwrap();
        for i in r["context"]["hits"].as_array().unwrap() {
            let citation = r["hits"][i.as_u64().unwrap() as usize]["citation"].as_str().unwrap();
            assert!(context.contains(citation), "{query}: {citation} not in {context}");
        }
    }
    let (status, _, log) = served.stop();
    assert!(status.success(), "{log}");
}

/// What an agent reads over MCP (`strata mcp`, stdio) cites the same way: hit lists, sections
/// and definitions; pages are read where a document has them, and a document without pages
/// says which tools read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_cite_the_same_way() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let Some(ing) = ingested() else { return };
    let docs = formats(&json(&ing.index, &["docs"]));
    let id = |part: &str| docs.keys().find(|d| d.starts_with(part)).unwrap().clone();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.arg("--index").arg(&ing.index).arg("mcp");
    cmd.env_remove("STRATA_INDEX").env_remove("STRATA_CONFIG").env("STRATA_DENSE_ENABLED", "false");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.expect("initialize over stdio");
    let call = |tool: &'static str, args: Value| {
        let client = &client;
        async move {
            let Value::Object(args) = args else { unreachable!() };
            let result =
                client.call_tool(CallToolRequestParams::new(tool).with_arguments(args)).await.unwrap();
            let text: Vec<String> =
                result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
            (result.is_error == Some(true), text.join("\n"))
        }
    };
    let (_, found) =
        call("search", json!({ "query": "stream flow control limits", "doc": id("rfc9000") })).await;
    assert!(found.contains(", lines ") && !found.contains("(p. 1)"), "{found}");
    assert!(!found.contains("Secure Transport › RFC 9000"), "{found}");
    let (_, statute) = call("search", json!({ "query": "section 102(b)", "doc": id("usc-title35") })).await;
    assert!(
        !statute.contains("p. 1") && !statute.contains("TITLE 35—PATENTS › TITLE 35—PATENTS"),
        "{statute}"
    );
    // The definitions left out past the bound are named for the define tool, as the CLI's
    // JSON lists them for the same search.
    let same = json(&ing.index, &["search", "section 102(b)", "--doc", &id("usc-title35")]);
    match same["more_definitions"].as_array() {
        Some(more) => {
            let first = more[0]["term"].as_str().unwrap();
            assert!(
                statute.contains("Also defined (the define tool reads them): ") && statute.contains(first),
                "{statute}"
            );
        }
        None => assert!(!statute.contains("Also defined"), "{statute}"),
    }
    let (_, section) = call("read_section", json!({ "doc": id("rfc9000"), "node": "4.1" })).await;
    assert!(section.contains("(node ") && section.contains(", lines 1035–"), "{section}");
    let (failed, pages) = call("read_pages", json!({ "doc": id("uslm-user-guide"), "pages": "1" })).await;
    assert!(failed && pages.contains("has no pages") && pages.contains("read_section"), "{pages}");
    let (failed, pages) = call("read_pages", json!({ "doc": id("nist"), "pages": "3" })).await;
    assert!(!failed && pages.starts_with("--- page 3 ---"), "{pages}");
    client.cancel().await.unwrap();
}

/// At most as many definitions as hits, or as terms the query names when those are more.
fn bounded(r: &Value) -> bool {
    let empty = Vec::new();
    let defs = r["definitions"].as_array().unwrap_or(&empty);
    let named = defs.iter().filter(|d| d["in_query"] == true).count();
    defs.len() <= r["hits"].as_array().unwrap().len().max(named)
}

/// Definitions are those the answer needs (issue 56, part 2): the query's terms first, then
/// those the most shown hits use, at most as many as the hits unless `--definitions` says;
/// the rest are named with where to read them.
#[test]
fn definitions_are_bounded_by_the_hits_shown() {
    let Some(ing) = ingested() else { return };
    for k in ["2", "5"] {
        let r =
            json(&ing.index, &["search", "section 102(b) novelty prior art", "-k", k, "--mode", "hybrid"]);
        let (hits, defs) = (r["hits"].as_array().unwrap(), r["definitions"].as_array().unwrap());
        assert!(!defs.is_empty() && bounded(&r), "k {k}: {} definitions for {} hits", defs.len(), hits.len());
        let more =
            r["more_definitions"].as_array().expect("Title 35's hits use more terms than there are hits");
        let uses = |d: &Value| d["used_by"].as_array().map_or(0, Vec::len);
        // The query's terms, then by how many hits use each: none left out is used by more.
        let least = defs.iter().filter(|d| d["in_query"] == false).map(uses).min().unwrap_or(usize::MAX);
        for m in more {
            assert!(
                m["in_query"] == false && m["used_by"].as_u64().unwrap() as usize <= least,
                "{m} over {least}"
            );
        }
        for pair in defs.windows(2) {
            assert!(pair[0]["in_query"] == true || pair[1]["in_query"] == false, "{defs:#?}");
        }
    }
    let one =
        json(&ing.index, &["search", "section 102(b) novelty prior art", "-k", "5", "--definitions", "1"]);
    assert_eq!(one["definitions"].as_array().unwrap().len(), 1, "{one:#}");
    let named = one["more_definitions"][0].clone();
    let defined = json(&ing.index, &["define", named["term"].as_str().unwrap()]);
    assert!(
        defined.as_array().unwrap().iter().any(|d| d["node_id"] == named["node_id"]),
        "{named} {defined:#}"
    );
    let out =
        strata(&ing.index, &["search", "section 102(b) novelty prior art", "-k", "5", "--definitions", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("also defined: ") && text.contains("(strata define TERM)"), "{text}");
    let refused = strata(&ing.index, &["search", "x", "--definitions", "101"]);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("definitions must be between 0 and 100"));
}

/// No Markdown marks in a response's hit text, highlights or context block.
fn assert_no_markup(r: &Value, query: &str) {
    for h in r["hits"].as_array().unwrap() {
        let highlights =
            h["highlights"].as_array().into_iter().flatten().map(|x| x["text"].as_str().unwrap());
        for text in std::iter::once(h["text"].as_str().unwrap()).chain(highlights) {
            for mark in ["## ", "**", "](", "`"] {
                assert!(!text.contains(mark), "{query}: {mark:?} shown in {text:?}");
            }
        }
    }
    // The block's own headers are its only `#` lines: one per document, definitions,
    // referenced sections.
    let context = r["context"]["text"].as_str().unwrap_or_default();
    let titles: Vec<String> = r["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("## {}", h["doc_title"].as_str().unwrap()))
        .collect();
    for line in context.lines().filter(|l| l.starts_with('#')) {
        let header =
            ["## Definitions", "## Referenced sections"].contains(&line) || titles.iter().any(|t| t == line);
        assert!(header, "{query}: a heading's marks in the context block: {line:?}");
    }
    assert!(!context.contains("**"), "{query}: {context}");
}

/// Hits show text, not markup: no Markdown marks in a hit's text, its highlights or the
/// context block, and a hit that starts with its section's heading gives it apart.
#[test]
fn markdown_hits_show_no_markup_and_their_heading_apart() {
    let Some(ing) = ingested() else { return };
    let docs = formats(&json(&ing.index, &["docs"]));
    let guide = docs.keys().find(|d| d.starts_with("uslm-user-guide")).unwrap().clone();
    let mut apart = 0;
    for query in
        ["legislative markup elements attributes", "namespace", "identifier references", "table of contents"]
    {
        let r = json(&ing.index, &["search", query, "--doc", &guide, "-k", "10", "--budget", "3000"]);
        assert_no_markup(&r, query);
        for h in r["hits"].as_array().unwrap() {
            if let Some(heading) = h["heading"].as_str() {
                apart += 1;
                assert!(
                    !h["text"].as_str().unwrap().starts_with(heading),
                    "{query}: heading not apart: {h:#}"
                );
            }
        }
    }
    assert!(apart > 0, "no hit started with its heading");
    let out =
        strata(&ing.index, &["search", "legislative markup elements attributes", "--doc", &guide, "-k", "5"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("» #") && !text.contains("    #"), "{text}");
}
