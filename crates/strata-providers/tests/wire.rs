//! The provider clients of `strata-providers` against a real HTTP server on 127.0.0.1 that
//! speaks each API's wire format, scripted per test ([`support::Server`]).
//!
//! Checked, request side as well as answer side:
//! - Anthropic Messages: path, headers, body (the document block marked for caching), usage;
//!   retries on 429 (Retry-After waited out, concurrency halved), 5xx and 529, timeouts and
//!   malformed 2xx bodies; giving up after `max_retries + 1` attempts; 401 failing at once
//!   with the key cut out of every message;
//! - OpenAI-compatible chat completions: path, Bearer key, shared part first, cached-token
//!   usage; Azure's `api-key` header and `?api-version`; no key, no header;
//! - the LLM contextualizer: one answer per chunk, the first call alone and then bounded
//!   concurrency, structural fallback for a failing chunk, cutting a long document, the
//!   context cache, and estimates without calls;
//! - the listwise reranker and the Cohere / Jina / Voyage `/rerank` shapes.

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use strata_core::config::{AuthHeader, ChatConfig, RerankConfig};
use strata_core::{Chunk, Config, Document, DocumentRecord, Error, Format, Source};
use strata_ingest::context::{situate, structural, ContextCache, NoCache};
use strata_ingest::pipeline::{Cut, Pipeline};
use strata_model::context::{ContextSource, Contextualizer, Usage};
use strata_model::rerank::{order, Reranker};
use strata_providers::chat::{ChatClient, Prompt, Provider};
use strata_providers::contextualize::{LlmContextualizer, CHUNK_PROMPT, DOCUMENT_PROMPT};
use strata_providers::listwise::ListwiseReranker;
use strata_providers::rerank_api::{ApiReranker, Flavor};
use strata_text::tokenize::Tokenizer;
use support::{Event, Reply, Seen, Server};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Environment variable `STRATA_TEST_KEY_{name}` (unique per test), set to `value` or unset.
fn key_var(name: &str, value: Option<&str>) -> String {
    let var = format!("STRATA_TEST_KEY_{name}");
    match value {
        Some(value) => std::env::set_var(&var, value),
        None => std::env::remove_var(&var),
    }
    var
}

/// A chat configuration for `server`: model `test-model`, fast retries, 1 s timeouts.
fn chat_config(server: &Server, key_var: &str) -> ChatConfig {
    ChatConfig {
        model: "test-model".into(),
        base_url: server.url.clone(),
        api_key_env: key_var.into(),
        max_retries: 3,
        backoff_ms: 10,
        timeout_secs: 1,
        ..Default::default()
    }
}

fn client(provider: Provider, config: &ChatConfig) -> ChatClient {
    ChatClient::new(provider, config).unwrap()
}

/// A one-part prompt with a shared document.
fn prompt<'a>(shared: &'a str, text: &'a str) -> Prompt<'a> {
    Prompt { shared: Some(shared), text, max_tokens: None }
}

/// An Anthropic Messages answer with `text` and `usage`.
fn anthropic_answer_with(text: &str, usage: Value) -> Reply {
    Reply::Json(
        200,
        vec![],
        json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": usage,
        }),
    )
}

/// An Anthropic Messages answer with `text` and a small usage.
fn anthropic_answer(text: &str) -> Reply {
    anthropic_answer_with(
        text,
        json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}),
    )
}

/// An OpenAI chat completion answer.
fn openai_answer(text: &str, prompt_tokens: u64, completion_tokens: u64, cached: u64) -> Reply {
    Reply::Json(
        200,
        vec![],
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }),
    )
}

/// An error answer in Anthropic's shape.
fn error_answer(status: u16, kind: &str, message: &str) -> Reply {
    Reply::Json(status, vec![], json!({"type": "error", "error": {"type": kind, "message": message}}))
}

/// The `Error::Remote` parts of `err`, or a panic naming what it was.
fn remote(err: impl Into<Error>) -> (String, String) {
    match err.into() {
        Error::Remote { service, reason } => (service, reason),
        other => panic!("expected Error::Remote, got {other:?}"),
    }
}

/// A Markdown guide: a title, an introduction, then `sections` sections of `sentences`
/// distinct sentences each (about 20 tokens a sentence).
fn guide(sections: usize, sentences: usize) -> String {
    let mut text = String::from(
        "# Field guide\n\nThis guide opens with an introduction that situates every later part.\n\n",
    );
    for i in 0..sections {
        text.push_str(&format!("## Section {i}\n\n"));
        for j in 0..sentences {
            text.push_str(&format!(
                "Paragraph {j} of section {i} explains topic {i}.{j} in plain words, with detail number {}. ",
                i * 100 + j
            ));
        }
        text.push_str("\n\n");
    }
    text
}

/// `text` read and chunked by the real pipeline with chunks of at most `max_tokens`.
fn ingest(text: &str, max_tokens: usize) -> (Document, Vec<Chunk>, Arc<dyn Tokenizer>) {
    let mut config = Config::default();
    config.chunk.max_tokens = max_tokens;
    let pipeline = Pipeline::new(&config).unwrap();
    let source = Source {
        path: "/tmp/field-guide.md".into(),
        format: Format::Markdown,
        content_hash: format!("wire-test-{}", text.len()),
        size: text.len() as u64,
        mtime: None,
    };
    let doc = pipeline.document(source, text.as_bytes()).unwrap();
    let DocumentRecord { document, chunks, .. } = pipeline.process(doc, &Cut::Chunker).unwrap();
    (document, chunks, pipeline.tokenizer().clone())
}

/// Whitespace collapsed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The context the echo server writes for a chunk text.
fn context_for(chunk_text: &str) -> String {
    format!("Context for: {}", collapse(chunk_text))
}

/// The summary the echo server writes for a document.
const SUMMARY: &str = "A guide to the procedures of the operators.";

/// An Anthropic answer naming the chunk the request asked about, or the document's summary.
fn echo_context(seen: &Seen) -> Reply {
    match seen.chunk() {
        Some(chunk) => anthropic_answer(&context_for(chunk)),
        None => {
            assert!(seen.prompt().contains("summary of the whole document"), "{}", seen.prompt());
            anthropic_answer(SUMMARY)
        }
    }
}

fn refs(chunks: &[Chunk]) -> Vec<&Chunk> {
    chunks.iter().collect()
}

/// Contexts written earlier, in memory.
#[derive(Default)]
struct MemCache(HashMap<String, String>);

impl ContextCache for MemCache {
    fn get(&self, keys: &[String]) -> strata_core::Result<HashMap<String, String>> {
        Ok(keys.iter().filter_map(|k| self.0.get(k).map(|v| (k.clone(), v.clone()))).collect())
    }
}

// ---------------------------------------------------------------------------------------
// Anthropic Messages API
// ---------------------------------------------------------------------------------------

/// A call goes to `POST /v1/messages` with `x-api-key` and `anthropic-version` (no
/// `Authorization`), the document as a first content block marked `cache_control:
/// ephemeral` and the prompt as a second, unmarked one; the answer's text blocks are joined
/// and trimmed and its four usage counts are mapped.
#[test]
fn anthropic_request_shape_and_usage() {
    let key = "sk-ant-wire-0001";
    let server = Server::start(|_, _| {
        Reply::Json(
            200,
            vec![],
            json!({
                "type": "message",
                "content": [{"type": "text", "text": "  the situating "}, {"type": "text", "text": "context \n"}],
                "usage": {"input_tokens": 12, "output_tokens": 7, "cache_creation_input_tokens": 1500, "cache_read_input_tokens": 3},
            }),
        )
    });
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_1", Some(key))));
    assert_eq!(chat.id(), "anthropic:test-model");
    assert_eq!(chat.service(), format!("test-model at {}/messages", server.url));

    let reply = chat.complete(&prompt("THE DOCUMENT", "THE PROMPT")).unwrap();
    assert_eq!(reply.text, "the situating context");
    assert_eq!(reply.usage, Usage { calls: 1, input: 12, output: 7, cache_write: 1500, cache_read: 3 });
    assert_eq!(reply.attempts, 1);

    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!((s.method.as_str(), s.target.as_str()), ("POST", "/v1/messages"));
    assert_eq!(s.header("x-api-key"), Some(key));
    assert_eq!(s.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(s.header("content-type"), Some("application/json"));
    assert_eq!(s.header("authorization"), None);
    assert!(
        s.header("user-agent").is_some_and(|ua| ua.starts_with("strata/")),
        "{:?}",
        s.header("user-agent")
    );
    assert_eq!(s.body["model"], "test-model");
    assert_eq!(s.body["max_tokens"], 100);
    assert_eq!(s.body["temperature"], 0);
    assert_eq!(s.body["messages"].as_array().unwrap().len(), 1);
    assert_eq!(s.body["messages"][0]["role"], "user");
    assert_eq!(
        s.body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "THE DOCUMENT", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "THE PROMPT"},
        ])
    );

    // Without a shared part there is one block; a prompt's own max_tokens wins.
    chat.complete(&Prompt { shared: None, text: "ALONE", max_tokens: Some(7) }).unwrap();
    let s = &server.seen()[1];
    assert_eq!(s.body["max_tokens"], 7);
    assert_eq!(s.body["messages"][0]["content"], json!([{"type": "text", "text": "ALONE"}]));
}

/// A 429 with `Retry-After: 1` is waited out (≥ 1 s) and retried, and it halves the
/// client's concurrency limit (10 → 5).
#[test]
fn anthropic_429_waits_for_retry_after_and_halves_concurrency() {
    let server = Server::start(|n, _| match n {
        0 => Reply::Json(
            429,
            vec![("retry-after", "1".into())],
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}),
        ),
        _ => anthropic_answer("ok"),
    });
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_2", Some("k2"))));
    assert_eq!(chat.limiter().limit(), 10);
    let started = Instant::now();
    let reply = chat.complete(&prompt("doc", "q")).unwrap();
    let elapsed = started.elapsed();
    assert_eq!((reply.text.as_str(), reply.attempts), ("ok", 2));
    assert_eq!(server.count(), 2);
    assert!(elapsed >= Duration::from_secs(1), "Retry-After: 1 not honoured: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(chat.limiter().limit(), 5, "a 429 halves the concurrency");
}

/// 500, 529 (Anthropic's "overloaded") and 503 are retried; the reply says how many
/// attempts it took.
#[test]
fn anthropic_5xx_and_overloaded_are_retried() {
    let server = Server::start(|n, _| match n {
        0 => error_answer(500, "api_error", "Internal server error"),
        1 => error_answer(529, "overloaded_error", "Overloaded"),
        2 => Reply::Raw(503, vec![("content-type", "text/plain".into())], "upstream unavailable".into()),
        _ => anthropic_answer("finally"),
    });
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_3", Some("k3"))));
    let reply = chat.complete(&prompt("doc", "q")).unwrap();
    assert_eq!((reply.text.as_str(), reply.attempts), ("finally", 4));
    assert_eq!(server.count(), 4);
    assert_eq!(chat.limiter().limit(), 10, "only 429 cuts the concurrency");
}

/// When every attempt fails the error is `Error::Remote` naming the service (model and
/// endpoint), the last failure and "gave up after 3 attempts" (max_retries = 2), after
/// exactly 3 requests.
#[test]
fn anthropic_gives_up_after_max_retries_plus_one() {
    let server = Server::start(|_, _| error_answer(503, "api_error", "try later"));
    let config = ChatConfig { max_retries: 2, ..chat_config(&server, &key_var("ANTHROPIC_4", Some("k4"))) };
    let chat = client(Provider::Anthropic, &config);
    let err = chat.complete(&prompt("doc", "q")).unwrap_err();
    assert!(!err.permanent, "spent retries on a 503 may succeed later");
    let (service, reason) = remote(err);
    assert_eq!(service, format!("test-model at {}/messages", server.url));
    assert!(reason.contains("HTTP 503 Service Unavailable: try later"), "{reason}");
    assert!(reason.contains("gave up after 3 attempts"), "{reason}");
    assert_eq!(server.count(), 3);
}

/// A 401 whose message echoes the key fails at once (one request); neither the error's
/// `Display` nor its `Debug`, nor the client's `Debug`, contains the key.
#[test]
fn anthropic_401_fails_at_once_and_never_shows_the_key() {
    let key = "sk-ant-wire-SECRET-5555";
    let server = Server::start(move |_, _| {
        error_answer(401, "authentication_error", &format!("invalid x-api-key {key}"))
    });
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_5", Some(key))));
    let err = chat.complete(&prompt("doc", "q")).unwrap_err();
    assert!(err.permanent, "a 401 cannot succeed by waiting");
    let (shown, debugged) = (err.to_string(), format!("{err:?}"));
    assert_eq!(server.count(), 1, "a 401 is not retried");
    for text in [&shown, &debugged] {
        assert!(!text.contains(key), "{text}");
        assert!(text.contains("HTTP 401 Unauthorized: invalid x-api-key ***"), "{text}");
        assert!(!text.contains("gave up"), "{text}");
    }
    let client_debug = format!("{chat:?}");
    assert!(!client_debug.contains(key) && client_debug.contains("***"), "{client_debug}");
}

/// A key echoed where the server message is cut to its first 500 characters is still cut
/// out: no prefix of it shows (the key is redacted before the message is shortened).
#[test]
fn a_key_at_the_message_length_limit_does_not_leak_in_part() {
    let key = "sk-ant-wire-SECRET-6666-abcdefghijklmnop";
    // The key starts at character 480 of the message, so a cut at 500 splits it.
    let message = format!("{} {key} trailing words", "x".repeat(479));
    let server = Server::start(move |_, _| error_answer(403, "permission_error", &message));
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_6", Some(key))));
    let err = chat.complete(&prompt("doc", "q")).unwrap_err().to_string();
    assert!(err.contains("HTTP 403 Forbidden"), "{err}");
    assert!(!err.contains(&key[..12]), "a prefix of the key leaked: {err}");
}

/// A server that never answers fails each attempt at `timeout_secs`; after
/// `max_retries + 1` attempts the error says the request timed out.
#[test]
fn anthropic_timeouts_are_retried_then_reported() {
    let server = Server::start(|_, _| Reply::Hang);
    let config = ChatConfig { max_retries: 1, ..chat_config(&server, &key_var("ANTHROPIC_7", None)) };
    let chat = client(Provider::Anthropic, &config);
    let started = Instant::now();
    let (_, reason) = remote(chat.complete(&prompt("doc", "q")).unwrap_err());
    let elapsed = started.elapsed();
    assert!(reason.contains("timed out") && reason.contains("gave up after 2 attempts"), "{reason}");
    assert_eq!(server.count(), 2);
    assert!(elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(6), "{elapsed:?}");
}

/// A 2xx answer that is not the Messages shape (an HTML page, JSON without `content`, a
/// `content` without a text block) is retried, then reported as a malformed answer.
#[test]
fn anthropic_malformed_answers_are_retried_then_reported() {
    let server = Server::start(|n, _| match n {
        0 => Reply::Raw(
            200,
            vec![("content-type", "text/html".into())],
            "<html><body>Bad gateway</body></html>".into(),
        ),
        1 => Reply::Json(200, vec![], json!({"type": "message", "usage": {"input_tokens": 1}})),
        _ => Reply::Json(
            200,
            vec![],
            json!({"type": "message", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}),
        ),
    });
    let config = ChatConfig { max_retries: 2, ..chat_config(&server, &key_var("ANTHROPIC_8", None)) };
    let chat = client(Provider::Anthropic, &config);
    let (_, reason) = remote(chat.complete(&prompt("doc", "q")).unwrap_err());
    assert!(reason.contains("malformed answer") && reason.contains("gave up after 3 attempts"), "{reason}");
    assert!(reason.contains("no text block"), "the last failure is reported: {reason}");
    assert_eq!(server.count(), 3);

    // And a malformed answer followed by a good one is a success on the second attempt.
    let server = Server::start(|n, _| match n {
        0 => Reply::Raw(200, vec![("content-type", "text/html".into())], "<html>".into()),
        _ => anthropic_answer("good"),
    });
    let chat = client(Provider::Anthropic, &chat_config(&server, &key_var("ANTHROPIC_8B", None)));
    let reply = chat.complete(&prompt("doc", "q")).unwrap();
    assert_eq!((reply.text.as_str(), reply.attempts), ("good", 2));
}

// ---------------------------------------------------------------------------------------
// OpenAI-compatible chat completions
// ---------------------------------------------------------------------------------------

/// A call goes to `POST /v1/chat/completions` with `Authorization: Bearer KEY`; the message
/// is the shared part, a blank line, then the prompt; `prompt_tokens` less the cached ones
/// is full-rate input and the cached ones are cache reads.
#[test]
fn openai_request_shape_and_cached_usage() {
    let key = "sk-openai-wire-0009";
    let server = Server::start(|_, _| openai_answer("  an answer\n", 1200, 9, 1024));
    let chat = client(Provider::OpenAi, &chat_config(&server, &key_var("OPENAI_9", Some(key))));
    assert_eq!(chat.id(), "openai:test-model");
    let reply = chat.complete(&prompt("SHARED DOCUMENT", "THE PROMPT")).unwrap();
    assert_eq!(reply.text, "an answer");
    assert_eq!(reply.usage, Usage { calls: 1, input: 176, output: 9, cache_write: 0, cache_read: 1024 });

    let s = &server.seen()[0];
    assert_eq!((s.method.as_str(), s.target.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(s.header("authorization"), Some(format!("Bearer {key}").as_str()));
    assert_eq!(
        (s.header("api-key"), s.header("x-api-key"), s.header("anthropic-version")),
        (None, None, None)
    );
    assert_eq!(s.header("content-type"), Some("application/json"));
    assert_eq!(s.body["model"], "test-model");
    assert_eq!(s.body["max_tokens"], 100);
    assert_eq!(s.body["temperature"], 0);
    assert_eq!(s.body["messages"].as_array().unwrap().len(), 1);
    assert_eq!(s.body["messages"][0]["role"], "user");
    assert_eq!(s.body["messages"][0]["content"], "SHARED DOCUMENT\n\nTHE PROMPT");

    // No usage at all (some local servers) counts zeros, not an error.
    let server = Server::start(|_, _| {
        Reply::Json(200, vec![], json!({"choices": [{"message": {"role": "assistant", "content": "x"}}]}))
    });
    let chat = client(Provider::OpenAi, &chat_config(&server, &key_var("OPENAI_9B", None)));
    let reply = chat.complete(&Prompt { shared: None, text: "alone", max_tokens: None }).unwrap();
    assert_eq!(reply.usage, Usage { calls: 1, ..Usage::default() });
    assert_eq!(server.seen()[0].body["messages"][0]["content"], "alone");
}

/// Azure OpenAI: `auth_header = "api-key"` sends the key as `api-key` (no
/// `Authorization`), and `/chat/completions` goes before the `?api-version` query.
#[test]
fn azure_api_key_header_and_api_version_query() {
    let key = "azure-wire-key-0010";
    let server = Server::start(|_, _| openai_answer("azure says hi", 20, 3, 0));
    let config = ChatConfig {
        base_url: format!("{}/openai/deployments/d?api-version=2024-06-01", server.root),
        auth_header: AuthHeader::ApiKey,
        ..chat_config(&server, &key_var("AZURE_10", Some(key)))
    };
    let chat = client(Provider::OpenAi, &config);
    assert_eq!(
        chat.service(),
        format!("test-model at {}/openai/deployments/d/chat/completions", server.root)
    );
    assert_eq!(chat.complete(&prompt("d", "q")).unwrap().text, "azure says hi");
    let s = &server.seen()[0];
    assert_eq!(s.target, "/openai/deployments/d/chat/completions?api-version=2024-06-01");
    assert_eq!(s.header("api-key"), Some(key));
    assert_eq!(s.header("authorization"), None);
}

/// With the key variable unset or blank (local vLLM, Ollama) no key header is sent at all,
/// by either wire format.
#[test]
fn no_key_no_auth_header() {
    let server = Server::start(|_, seen| {
        if seen.target.ends_with("/messages") {
            anthropic_answer("a")
        } else {
            openai_answer("o", 1, 1, 0)
        }
    });
    let unset = key_var("NONE_11", None);
    let blank = key_var("BLANK_11", Some("   "));
    for var in [&unset, &blank] {
        for provider in [Provider::Anthropic, Provider::OpenAi] {
            client(provider, &chat_config(&server, var)).complete(&prompt("d", "q")).unwrap();
        }
        let azure = ChatConfig { auth_header: AuthHeader::ApiKey, ..chat_config(&server, var) };
        client(Provider::OpenAi, &azure).complete(&prompt("d", "q")).unwrap();
    }
    let seen = server.seen();
    assert_eq!(seen.len(), 6);
    for s in &seen {
        for header in ["authorization", "api-key", "x-api-key"] {
            assert_eq!(s.header(header), None, "{header} sent to {}", s.target);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The LLM contextualizer
// ---------------------------------------------------------------------------------------

/// Every chunk gets ITS model context; the document goes whole in `<document>` as the
/// shared block and the chunk in `<chunk>`; the first call completes before any other
/// starts (it writes the prompt cache), then calls overlap but never more than
/// `concurrency` at once; the provider's usage is summed.
#[test]
fn contextualizer_answers_each_chunk_first_alone_then_bounded() {
    let (doc, chunks, tokenizer) = ingest(&guide(4, 3), 32);
    assert!(chunks.len() >= 8, "want at least 8 chunks, got {}", chunks.len());
    let server = Server::start(|_, seen| {
        std::thread::sleep(Duration::from_millis(50));
        echo_context(seen)
    });
    let config = ChatConfig { concurrency: 3, ..chat_config(&server, &key_var("CTX_12", Some("ctx-key"))) };
    let contextualizer = LlmContextualizer::new(client(Provider::Anthropic, &config), tokenizer, structural);
    assert_eq!(contextualizer.id(), "anthropic:test-model@1");

    let situated = contextualizer.contextualize(&doc, &refs(&chunks)).unwrap();
    assert_eq!(situated.len(), chunks.len());
    for (chunk, s) in chunks.iter().zip(&situated) {
        assert_eq!(s.source, ContextSource::Model);
        assert!(!s.truncated);
        assert_eq!(s.context, context_for(chunk.span.slice(&doc.text)), "chunk {}", chunk.id);
    }

    let seen = server.seen();
    assert_eq!(seen.len(), chunks.len(), "one call per chunk");
    let shared = format!("<document>\n{}\n</document>", doc.text);
    for s in &seen {
        assert_eq!(s.block(0), shared, "the whole document is the shared block");
        assert_eq!(s.body["messages"][0]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
        let chunk = s.chunk().unwrap();
        assert_eq!(s.block(1), CHUNK_PROMPT.replace("{chunk}", chunk));
    }
    let asked: HashSet<&str> = seen.iter().map(|s| s.chunk().unwrap()).collect();
    let all: HashSet<&str> = chunks.iter().map(|c| c.span.slice(&doc.text)).collect();
    assert_eq!(asked, all, "every chunk asked about once");
    assert_eq!(seen[0].chunk(), Some(chunks[0].span.slice(&doc.text)), "the first chunk goes first");

    let events = server.events();
    assert_eq!(
        &events[..2],
        &[Event::Request(0), Event::Reply(0)],
        "the first call completes alone: {events:?}"
    );
    let most = server.max_in_flight();
    assert!(most > 1 && most <= 3, "in flight at once: {most}");
    assert!(contextualizer.client().limiter().peak() <= 3);

    let usage = contextualizer.usage();
    let n = chunks.len() as u64;
    assert_eq!(usage, Usage { calls: n, input: 10 * n, output: 5 * n, cache_write: 0, cache_read: 0 });
}

/// A chunk whose calls always fail falls back to its structural context (source
/// `Fallback`); the other chunks keep their model contexts, and `situate` does not cache
/// the fallback.
#[test]
fn contextualizer_falls_back_to_structural_for_a_failing_chunk() {
    let text = format!(
        "{}## Islands\n\nThe zanzibar archipelago lies offshore.\n\n{}",
        guide(2, 3),
        "## Coda\n\nThe end of the guide.\n"
    );
    let (doc, chunks, tokenizer) = ingest(&text, 32);
    let marked: Vec<usize> =
        (0..chunks.len()).filter(|&i| chunks[i].span.slice(&doc.text).contains("zanzibar")).collect();
    assert_eq!(marked.len(), 1, "exactly one chunk holds the marker");
    let server = Server::start(|_, seen| {
        if seen.chunk().unwrap().contains("zanzibar") {
            error_answer(500, "api_error", "boom")
        } else {
            echo_context(seen)
        }
    });
    let config = ChatConfig { max_retries: 1, ..chat_config(&server, &key_var("CTX_13", None)) };
    let contextualizer = LlmContextualizer::new(client(Provider::Anthropic, &config), tokenizer, structural);

    let situated = contextualizer.contextualize(&doc, &refs(&chunks)).unwrap();
    for (i, (chunk, s)) in chunks.iter().zip(&situated).enumerate() {
        if i == marked[0] {
            assert_eq!(s.source, ContextSource::Fallback);
            assert_eq!(s.context, structural(&doc, chunk));
        } else {
            assert_eq!(s.source, ContextSource::Model);
            assert_eq!(s.context, context_for(chunk.span.slice(&doc.text)));
        }
    }
    let failing = server.seen().iter().filter(|s| s.chunk().unwrap().contains("zanzibar")).count();
    assert_eq!(failing, 2, "the failing chunk was tried max_retries + 1 times");

    let mut again = chunks.clone();
    let situation = situate(&contextualizer, &NoCache, &doc, &mut again).unwrap();
    assert_eq!((situation.written, situation.fallbacks, situation.cached), (chunks.len() - 1, 1, 0));
    assert_eq!(situation.to_cache.len(), chunks.len() - 1, "fallbacks are not cached");
    assert_eq!(again[marked[0]].context.as_deref(), Some(structural(&doc, &chunks[marked[0]]).as_str()));
}

/// A refusal no retry can mend (401) stops the calls: one request in all, every chunk gets
/// its structural context, and the contextualizer says why it stopped.
#[test]
fn a_refused_key_stops_the_calls_after_the_first() {
    let (doc, chunks, tokenizer) = ingest(&guide(3, 4), 32);
    assert!(chunks.len() >= 4);
    let server = Server::start(|_, _| error_answer(401, "authentication_error", "invalid x-api-key"));
    let contextualizer = LlmContextualizer::new(
        client(Provider::Anthropic, &chat_config(&server, &key_var("CTX_STOP", Some("bad")))),
        tokenizer,
        structural,
    );
    let situated = contextualizer.contextualize(&doc, &refs(&chunks)).unwrap();
    assert!(situated.iter().all(|s| s.source == ContextSource::Fallback));
    assert_eq!(server.count(), 1, "no call after the refusal");
    assert!(contextualizer.stopped().unwrap().contains("HTTP 401"), "{:?}", contextualizer.stopped());
}

/// A document longer than the window (`window_tokens = 1024`, the least allowed) is shown
/// cut: its beginning, a marker saying how many tokens were left out, and its end; every
/// chunk is flagged truncated.
#[test]
fn contextualizer_cuts_a_long_document_keeping_both_ends() {
    let (doc, chunks, tokenizer) = ingest(&guide(20, 8), 128);
    let tokens = tokenizer.count(&doc.text);
    assert!(tokens > 3000, "the document has {tokens} tokens");
    let server = Server::start(|_, seen| echo_context(seen));
    let config = ChatConfig { window_tokens: 1024, ..chat_config(&server, &key_var("CTX_14", None)) };
    let contextualizer =
        LlmContextualizer::new(client(Provider::Anthropic, &config), tokenizer.clone(), structural);

    let situated = contextualizer.contextualize(&doc, &refs(&chunks)).unwrap();
    assert!(situated.iter().all(|s| s.truncated && s.source == ContextSource::Model));

    let seen = server.seen();
    assert_eq!(seen.len(), chunks.len());
    let shared = seen[0].block(0);
    assert!(seen.iter().all(|s| s.block(0) == shared), "one view of the document for every chunk");
    assert!(shared.contains("tokens of the document left out"), "{shared}");
    let body = shared.strip_prefix("<document>\n").and_then(|s| s.strip_suffix("\n</document>")).unwrap();
    assert!(body.starts_with(&doc.text[..200]), "the beginning is kept");
    assert!(body.ends_with(&doc.text[doc.text.len() - 200..]), "the end is kept");
    let shown = tokenizer.count(body);
    assert!(shown < 1024 && shown > 256, "the view has {shown} tokens");
}

/// `situate` with a cache: a first run writes every context and lists them to cache; with
/// them cached, a second run makes no request and sets identical contexts; another model
/// (another contextualizer id) misses them all.
#[test]
fn situate_reuses_cached_contexts_and_another_model_misses_them() {
    let (doc, chunks, tokenizer) = ingest(&guide(3, 3), 32);
    let n = chunks.len();
    let server = Server::start(|_, seen| echo_context(seen));
    let var = key_var("CTX_15", None);
    let first = LlmContextualizer::new(
        client(Provider::Anthropic, &chat_config(&server, &var)),
        tokenizer.clone(),
        structural,
    );

    let mut cache = MemCache::default();
    let mut written = chunks.clone();
    let situation = situate(&first, &cache, &doc, &mut written).unwrap();
    assert_eq!((situation.written, situation.cached, situation.fallbacks, situation.truncated), (n, 0, 0, 0));
    // Every chunk's context and, asked last, the document's summary.
    assert_eq!(situation.to_cache.len(), n + 1);
    assert_eq!(situation.summary.as_deref(), Some(SUMMARY));
    assert_eq!(server.count(), n + 1);
    assert!(server.seen()[n].prompt().contains("summary of the whole document"));
    for chunk in &written {
        assert_eq!(chunk.context.as_deref(), Some(context_for(chunk.span.slice(&doc.text)).as_str()));
    }
    cache.0.extend(situation.to_cache);

    let mut reread = chunks.clone();
    let situation = situate(&first, &cache, &doc, &mut reread).unwrap();
    assert_eq!((situation.cached, situation.written), (n, 0));
    assert!(situation.to_cache.is_empty());
    assert_eq!(situation.summary.as_deref(), Some(SUMMARY), "the summary comes from the cache");
    assert_eq!(server.count(), n + 1, "a cached document makes no request");
    let contexts = |cs: &[Chunk]| cs.iter().map(|c| c.context.clone()).collect::<Vec<_>>();
    assert_eq!(contexts(&reread), contexts(&written));

    let other_config = ChatConfig { model: "other-model".into(), ..chat_config(&server, &var) };
    let other = LlmContextualizer::new(client(Provider::Anthropic, &other_config), tokenizer, structural);
    let mut fresh = chunks.clone();
    let situation = situate(&other, &cache, &doc, &mut fresh).unwrap();
    assert_eq!((situation.cached, situation.written), (0, n), "another model reuses nothing");
    assert_eq!(server.count(), 2 * (n + 1), "its summary included");
    assert!(server.seen()[n + 1..].iter().all(|s| s.body["model"] == "other-model"));
}

/// `estimate` makes no request. For Anthropic on a document of ≥ 1024 tokens it bills one
/// cache write of the document and `chunks − 1` cache reads of it; OpenAI bills the
/// document once at the input rate and reads it `chunks − 1` times; a short document is
/// billed in full on every call.
#[test]
fn estimates_make_no_request_and_count_the_document_once() {
    let (doc, chunks, tokenizer) = ingest(&guide(20, 8), 128);
    let server = Server::start(|_, _| panic!("an estimate must not call the model"));
    let var = key_var("CTX_16", None);
    let n = chunks.len() as u64;
    let document = (tokenizer.count(&doc.text) + tokenizer.count(DOCUMENT_PROMPT)) as u64;
    assert!(document >= 1024);
    let per_chunk: u64 =
        chunks.iter().map(|c| (tokenizer.count(CHUNK_PROMPT) + c.tokens as usize) as u64).sum();

    let anthropic = LlmContextualizer::new(
        client(Provider::Anthropic, &chat_config(&server, &var)),
        tokenizer.clone(),
        structural,
    );
    let usage = anthropic.estimate(&doc, &refs(&chunks));
    assert_eq!(
        usage,
        Usage {
            calls: n,
            input: per_chunk,
            cache_write: document,
            cache_read: document * (n - 1),
            output: 100 * n
        }
    );

    let openai = LlmContextualizer::new(
        client(Provider::OpenAi, &chat_config(&server, &var)),
        tokenizer.clone(),
        structural,
    );
    let usage = openai.estimate(&doc, &refs(&chunks));
    assert_eq!(
        usage,
        Usage {
            calls: n,
            input: per_chunk + document,
            cache_write: 0,
            cache_read: document * (n - 1),
            output: 100 * n
        }
    );

    let (short, short_chunks, _) = ingest(&guide(2, 2), 32);
    let m = short_chunks.len() as u64;
    let short_doc = (tokenizer.count(&short.text) + tokenizer.count(DOCUMENT_PROMPT)) as u64;
    assert!(short_doc < 1024 && m > 1);
    let usage = anthropic.estimate(&short, &refs(&short_chunks));
    assert_eq!((usage.calls, usage.cache_write, usage.cache_read), (m, 0, 0));
    let short_per_chunk: u64 =
        short_chunks.iter().map(|c| (tokenizer.count(CHUNK_PROMPT) + c.tokens as usize) as u64).sum();
    assert_eq!(usage.input, short_per_chunk + short_doc * m);

    // Through the cache: chunks already cached are not estimated.
    let cache = MemCache(
        chunks[..2]
            .iter()
            .map(|c| (strata_ingest::context::cache_key(&doc, c, anthropic.id()), "cached".to_string()))
            .collect(),
    );
    let (hits, usage) = strata_ingest::context::estimate(&anthropic, &cache, &doc, &chunks).unwrap();
    assert_eq!((hits, usage.calls), (2, n - 2 + 1), "the chunks not cached, and the summary");
    assert_eq!(server.count(), 0);
}

// ---------------------------------------------------------------------------------------
// The listwise reranker
// ---------------------------------------------------------------------------------------

/// The request holds the query and the numbered passages (no shared block); an answer
/// "2, 3, 1" orders the passages [1, 2, 0]; an answer naming no passage is an error.
#[test]
fn listwise_reranker_reads_the_ranking() {
    let server = Server::start(|n, _| match n {
        0 => anthropic_answer("2, 3, 1"),
        1 => openai_answer("[2] > [3] > [1]", 50, 9, 0),
        _ => anthropic_answer("None of these passages answer the query."),
    });
    let var = key_var("LIST_17", None);
    let config = ChatConfig { max_tokens: 10, ..chat_config(&server, &var) };
    let passages = ["alpha passage about cats", "beta passage about dogs", "gamma passage about birds"];

    let reranker = ListwiseReranker::new(client(Provider::Anthropic, &config));
    assert_eq!(reranker.id(), "listwise:anthropic:test-model@1");
    let scores = reranker.score("  which pets bark? ", &passages).unwrap();
    assert_eq!(order(&scores), vec![1, 2, 0]);

    let s = &server.seen()[0];
    let content = s.body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "no shared block");
    assert!(content[0].get("cache_control").is_none());
    let text = s.prompt();
    assert!(text.contains("3 numbered passages"), "{text}");
    assert!(text.contains("<query>which pets bark?</query>"), "{text}");
    for (i, p) in passages.iter().enumerate() {
        assert!(text.contains(&format!("<passage id=\"{}\">{p}</passage>", i + 1)), "{text}");
    }
    assert_eq!(s.body["max_tokens"], 28, "room for every number even with max_tokens = 10");

    let openai = ListwiseReranker::new(client(Provider::OpenAi, &config));
    assert_eq!(order(&openai.score("which pets bark?", &passages).unwrap()), vec![1, 2, 0]);
    assert!(
        server.seen()[1].prompt().starts_with("Here is a search query"),
        "no shared part before the prompt"
    );

    let err = reranker.score("which pets bark?", &passages).unwrap_err().to_string();
    assert!(err.contains("names no passage between 1 and 3"), "{err}");
    assert!(reranker.score("q", &[]).unwrap().is_empty());
    assert_eq!(server.count(), 3, "no passages, no request");
}

// ---------------------------------------------------------------------------------------
// Rerank APIs (Cohere, Jina, Voyage)
// ---------------------------------------------------------------------------------------

fn rerank_config(server: &Server, key_var: &str) -> RerankConfig {
    RerankConfig {
        base_url: server.url.clone(),
        api_key_env: key_var.into(),
        model: "m".into(),
        max_retries: 1,
        timeout_secs: 1,
        ..Default::default()
    }
}

/// The three flavors post to `/v1/rerank` with a Bearer key and their own body shape
/// (Cohere `top_n`; Jina `top_n` and `return_documents: false`; Voyage `top_k`), and scores
/// come back by input index from `results` (Cohere, Jina) or `data` (Voyage).
#[test]
fn rerank_apis_request_shapes_and_scores_by_index() {
    let rows = json!([{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.1}]);
    let server = Server::start(move |_, seen| {
        let list = if seen.body.get("top_k").is_some() { "data" } else { "results" };
        Reply::Json(200, vec![], json!({"id": "r", list: rows.clone(), "meta": {}}))
    });
    let key = "rerank-wire-key-0018";
    let var = key_var("RERANK_18", Some(key));
    let passages = ["first passage", "second passage"];
    let cases = [
        (Flavor::Cohere, "cohere:m", json!({"model": "m", "query": "q", "documents": passages, "top_n": 2})),
        (
            Flavor::Jina,
            "jina:m",
            json!({"model": "m", "query": "q", "documents": passages, "top_n": 2, "return_documents": false}),
        ),
        (Flavor::Voyage, "voyage:m", json!({"model": "m", "query": "q", "documents": passages, "top_k": 2})),
    ];
    for (i, (flavor, id, body)) in cases.into_iter().enumerate() {
        let reranker = ApiReranker::new(flavor, &rerank_config(&server, &var)).unwrap();
        assert_eq!(reranker.id(), id);
        let scores = reranker.score("q", &passages).unwrap();
        assert_eq!(scores, vec![0.1, 0.9], "{flavor:?}");
        assert_eq!(order(&scores), vec![1, 0]);
        let s = &server.seen()[i];
        assert_eq!((s.method.as_str(), s.target.as_str()), ("POST", "/v1/rerank"), "{flavor:?}");
        assert_eq!(s.header("authorization"), Some(format!("Bearer {key}").as_str()));
        assert_eq!(s.header("content-type"), Some("application/json"));
        assert_eq!(s.body, body, "{flavor:?}");
    }
}

/// A rerank API's 429 is retried; an answer missing an index is retried, then an error
/// naming the malformed answer.
#[test]
fn rerank_api_retries_429_and_rejects_incomplete_answers() {
    let server = Server::start(|n, _| match n {
        0 => Reply::Json(
            429,
            vec![("retry-after", "0".into())],
            json!({"message": "You are using a Trial key"}),
        ),
        1 => Reply::Json(
            200,
            vec![],
            json!({"results": [{"index": 0, "relevance_score": 0.3}, {"index": 1, "relevance_score": 0.7}]}),
        ),
        _ => Reply::Json(200, vec![], json!({"results": [{"index": 1, "relevance_score": 0.7}]})),
    });
    let reranker =
        ApiReranker::new(Flavor::Cohere, &rerank_config(&server, &key_var("RERANK_19", None))).unwrap();
    assert_eq!(reranker.score("q", &["a", "b"]).unwrap(), vec![0.3, 0.7]);
    assert_eq!(server.count(), 2);

    let (service, reason) = remote(reranker.score("q", &["a", "b"]).unwrap_err());
    assert_eq!(service, format!("m at {}/rerank", server.url));
    assert!(reason.contains("malformed answer: 1 of 2 passages have no score"), "{reason}");
    assert!(reason.contains("gave up after 2 attempts"), "{reason}");
    assert_eq!(server.count(), 4);
}
