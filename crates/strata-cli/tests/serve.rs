//! `strata mcp` and `strata serve` as agents meet them: the official Rust MCP SDK's client
//! (rmcp) over stdio and over streamable HTTP, calling every tool on an ingested corpus
//! document; and the HTTP API with the embedding model on, its request logs checked for the
//! API key.

mod common;

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

const TITLE13: &str = "docx/usc-title13-census-converted.docx";
const KEY: &str = "serve-test-key-5f0c9a7e1d";

type Client = RunningService<RoleClient, ()>;

async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

/// Calls `tool` and asserts it answered without a tool error.
async fn ok(client: &Client, tool: &'static str, args: Value) -> (String, Value) {
    let result = call(client, tool, args.clone()).await;
    assert_ne!(result.is_error, Some(true), "{tool} {args}: {}", text(&result));
    (text(&result), result.structured_content.clone().unwrap_or(Value::Null))
}

/// initialize, tools/list, a call of every tool, resources/list and resources/read.
async fn exercise(client: &Client) {
    let info = client.peer_info().expect("the server answered initialize");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("strata"));
    assert!(info.instructions.as_deref().unwrap_or_default().contains("search"));

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        ["define", "follow_reference", "list_documents", "outline", "read_pages", "read_section", "search"]
    );
    for tool in &tools {
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 30),
            "{} needs a description",
            tool.name
        );
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
    }
    let search = tools.iter().find(|t| t.name == "search").unwrap();
    assert_eq!(search.input_schema["required"], json!(["query"]));

    let (listing, docs) = ok(client, "list_documents", json!({})).await;
    let doc = docs["documents"][0]["id"].as_str().expect("a document id").to_string();
    assert!(listing.contains(&doc), "{listing}");

    let (outline, tree) = ok(client, "outline", json!({ "doc": doc, "depth": 2 })).await;
    assert!(outline.contains("CHAPTER 1"), "{outline}");
    assert!(outline.contains("deeper]"), "depth 2 hides the sections: {outline}");
    assert!(tree["children"].as_array().is_some_and(|c| !c.is_empty()), "{tree}");

    let (context, found) =
        ok(client, "search", json!({ "query": "confidentiality of census information", "k": 5 })).await;
    let hits = found["hits"].as_array().unwrap();
    assert!(
        hits.iter().any(|h| h["heading_path"].to_string().contains("§9. Information as confidential")),
        "{found:#}"
    );
    assert!(context.contains("Hits (doc_id#node_id)"), "{context}");

    let (section, _) = ok(client, "read_section", json!({ "doc": doc, "node": "9" })).await;
    assert!(section.contains("§9. Information as confidential"), "{section}");

    // The converted Word file records no page breaks: it has no page 1 to read, and the
    // error names the tools that read it.
    let paged = call(client, "read_pages", json!({ "doc": doc, "pages": "1" })).await;
    assert_eq!(paged.is_error, Some(true));
    assert!(
        text(&paged).contains("has no pages") && text(&paged).contains("read_section"),
        "{}",
        text(&paged)
    );

    let (_, defined) = ok(client, "define", json!({ "term": "Bureau" })).await;
    let def = &defined["definitions"][0];
    assert_eq!(def["term"], "Bureau", "{defined}");
    // The node id comes back as the outline writes it, and reads the definition's section.
    let node = def["node_id"].as_str().unwrap();
    assert_eq!(node.len(), 4, "{def}");
    let (definitions, _) = ok(client, "read_section", json!({ "doc": doc, "node": node })).await;
    assert!(definitions.contains("\"Bureau\" means"), "{definitions}");

    let (listed, refs) = ok(client, "follow_reference", json!({ "doc": doc, "node": "9" })).await;
    let resolved = refs["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["to_node_id"].is_string())
        .unwrap_or_else(|| panic!("§9 cites a section of the title: {listed}"));
    let raw = resolved["raw"].as_str().unwrap();
    let (followed, target) =
        ok(client, "follow_reference", json!({ "doc": doc, "node": "9", "target": raw })).await;
    assert_eq!(target["node_id"], resolved["to_node_id"], "{followed}");

    // A mistake is a tool error the model can read, not a protocol error.
    let bad = call(client, "read_section", json!({ "doc": doc, "node": "9999" })).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("no node"), "{}", text(&bad));
    let bad = call(client, "read_pages", json!({ "doc": doc, "pages": "7-5" })).await;
    assert_eq!(bad.is_error, Some(true));

    let resources = client.list_all_resources().await.unwrap();
    let uri = format!("strata://documents/{doc}");
    assert!(resources.iter().any(|r| r.uri == uri), "{resources:?}");
    for (uri, needle) in
        [(uri.clone(), "TITLE 13"), (format!("{uri}/sections/9"), "Information as confidential")]
    {
        let read = client.read_resource(ReadResourceRequestParams::new(uri.clone())).await.unwrap();
        match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => assert!(text.contains(needle), "{uri}"),
            other => panic!("{uri}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_stdio_answers_every_tool_on_a_corpus_document() {
    let Some(ingested) = common::ingest_corpus(&[TITLE13]) else { return };
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.arg("--index").arg(&ingested.index).arg("mcp");
    cmd.env_remove("STRATA_INDEX").env_remove("STRATA_CONFIG").env("STRATA_DENSE_ENABLED", "false");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.expect("initialize over stdio");
    exercise(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_mcp_over_http_and_search_with_the_model_and_never_logs_the_key() {
    if !common::model_ready() {
        return;
    }
    let Some(corpus) = common::corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    // Ingested through the API, with the embedding model: the dense leg is on.
    let served = common::served::serve(&index, &[], KEY, &[("STRATA_DENSE_ENABLED", "true")]);
    let base = served.base();
    let http = reqwest::Client::new();
    let bytes = std::fs::read(corpus.join(TITLE13)).unwrap();
    let accepted: Value = http
        .post(format!("{base}/v1/documents?filename=usc-title13.docx"))
        .bearer_auth(KEY)
        .header("content-type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        .body(bytes)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let job = accepted["job"]["id"].as_str().unwrap().to_string();
    let started = Instant::now();
    let done = loop {
        let status: Value = http
            .get(format!("{base}/v1/jobs/{job}"))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if status["state"] == "done" || status["state"] == "failed" {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(600), "ingest never finished: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["summary"]["failed"], 0, "{done}");
    assert!(done["summary"]["embedded"].as_u64().unwrap() > 100, "{done}");

    let response: Value = http
        .post(format!("{base}/v1/search"))
        .bearer_auth(KEY)
        .json(&json!({ "query": "how long are census records kept secret", "mode": "hybrid", "k": 5 }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let hits = response["hits"].as_array().unwrap();
    assert!(hits.iter().any(|h| h["legs"].get("dense").is_some()), "the dense leg ran: {response:#}");
    assert!(response["context"]["text"].as_str().is_some_and(|t| !t.is_empty()), "{response:#}");

    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")).auth_header(KEY);
    let client =
        ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("initialize over HTTP");
    exercise(&client).await;
    client.cancel().await.unwrap();

    let (status, _, log) = served.stop();
    assert!(status.success(), "strata serve exited with {status}: {log}");
    assert!(log.contains("finished processing request"), "request logs: {log}");
    assert!(log.contains("path=/v1/search"), "{log}");
    assert!(!log.contains(KEY), "the API key reached the log:\n{log}");
    assert!(!log.contains("census records kept secret"), "a query reached the log:\n{log}");
}

#[test]
fn serve_refuses_a_public_address_without_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::strata(&dir.path().join("index"), &["serve", "--addr", "0.0.0.0:0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without API keys") && err.contains("--public"), "{err}");
    // Refused before anything is created or loaded.
    assert!(!dir.path().join("index").exists());
}
