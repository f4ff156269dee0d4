//! `HttpEmbedder` against a real HTTP server on 127.0.0.1 that answers from a script.
//!
//! Properties checked:
//! 1. inputs go in batches of `batch_size`, and rows come back in input order whatever order
//!    the server lists them in;
//! 2. every row is L2-normalized;
//! 3. 503 and connection failures are retried, 429's `Retry-After` is waited out;
//! 4. other 4xx fail at once, with the status and the server's message, never the key;
//! 5. the key goes in the configured header, and only when its variable is set;
//! 6. a server that never answers fails after `(max_retries + 1) * timeout` and backoff;
//! 7. an answer of the wrong size or dimension is an error.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use strata_embed::http::{AuthHeader, HttpEmbedder, HttpEmbedderConfig};
use strata_model::Embedder;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn inputs(&self) -> Vec<String> {
        self.body["input"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    }
}

/// What the server does with a request.
enum Reply {
    /// Answer with this status, extra headers and JSON body.
    Json(u16, Vec<(&'static str, String)>, Value),
    /// Hold the connection open without answering.
    Hang,
}

type Script = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

/// A scripted server: `script(n, request)` answers the `n`-th request (0-based).
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start(script: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (log, script) = (log.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &log, &*script));
            }
        });
        Server { url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Answers requests on one connection until the client closes it.
fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap().to_string(), parts.next().unwrap().to_string());
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map(|(_, v)| v.parse().unwrap())
            .expect("the client sends Content-Length");
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let seen = Seen { method, target, headers, body: serde_json::from_slice(&body).unwrap() };
        let n = {
            let mut log = log.lock().unwrap();
            log.push(seen.clone());
            log.len() - 1
        };
        match script(n, &seen) {
            Reply::Hang => {
                std::thread::sleep(Duration::from_secs(30));
                return;
            }
            Reply::Json(status, extra, body) => {
                let body = body.to_string();
                let mut head = format!(
                    "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                    body.len()
                );
                for (name, value) in extra {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                if stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).is_err()
                {
                    return;
                }
            }
        }
    }
}

/// A deterministic, unnormalized vector of `dim` values for `text`.
fn vector_for(text: &str, dim: usize) -> Vec<f32> {
    let sum: u32 = text.bytes().map(u32::from).sum();
    (0..dim).map(|i| 1.0 + ((sum as usize * 31 + i * 17 + text.len()) % 97) as f32).collect()
}

fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// A 200 answer embedding every input at `dim`, listed in reverse `index` order.
fn embeddings(seen: &Seen, dim: usize) -> Reply {
    let mut data: Vec<Value> = seen
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": vector_for(text, dim)}))
        .collect();
    data.reverse();
    Reply::Json(200, vec![], json!({"object": "list", "data": data, "model": "m"}))
}

fn config(server: &Server, env: &str) -> HttpEmbedderConfig {
    HttpEmbedderConfig {
        base_url: server.url.clone(),
        model: "test-model".into(),
        api_key_env: env.into(),
        max_retries: 3,
        timeout_secs: 5,
        ..Default::default()
    }
}

/// A variable name no other test uses, unset.
fn unset_env(name: &str) -> String {
    let name = format!("STRATA_HTTP_TEST_{name}");
    std::env::remove_var(&name);
    name
}

/// A variable name no other test uses, set to `value`.
fn set_env(name: &str, value: &str) -> String {
    let name = format!("STRATA_HTTP_TEST_{name}");
    std::env::set_var(&name, value);
    name
}

fn assert_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{got:?} != {want:?}");
    }
}

#[test]
fn batches_keep_input_order_and_prefixes() {
    let server = Server::start(|_, seen| embeddings(seen, 8));
    let config = HttpEmbedderConfig {
        batch_size: 64,
        passage_prefix: "passage: ".into(),
        query_prefix: "query: ".into(),
        ..config(&server, &unset_env("BATCH"))
    };
    let embedder = HttpEmbedder::connect(config).unwrap();
    let info = embedder.info();
    assert_eq!((info.model_id.as_str(), info.dim, info.max_seq_len), ("http:test-model", 8, 8191));

    let texts: Vec<String> = (0..150).map(|i| format!("text number {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let out = embedder.embed_passages(&refs).unwrap();
    assert_eq!((out.len(), out.dim()), (150, 8));
    for (i, text) in texts.iter().enumerate() {
        assert_close(out.row(i), &normalized(vector_for(&format!("passage: {text}"), 8)));
    }

    let seen = server.seen();
    let sizes: Vec<usize> = seen.iter().map(|s| s.inputs().len()).collect();
    assert_eq!(sizes, [1, 64, 64, 22], "the probe, then 150 inputs in batches of 64");
    let sent: Vec<String> = seen[1..].iter().flat_map(Seen::inputs).collect();
    assert_eq!(sent, texts.iter().map(|t| format!("passage: {t}")).collect::<Vec<_>>());
    for s in &seen {
        assert_eq!((s.method.as_str(), s.target.as_str()), ("POST", "/v1/embeddings"));
        assert_eq!(s.body["model"], "test-model");
        assert_eq!(s.body["encoding_format"], "float");
        assert!(s.body.get("dimensions").is_none(), "dimensions is sent only when set");
        assert_eq!(s.header("content-type"), Some("application/json"));
        assert_eq!(s.header("authorization"), None, "no key variable, no Authorization header");
    }

    let query = embedder.embed_query("what is x").unwrap();
    assert_close(&query, &normalized(vector_for("query: what is x", 8)));
    assert!(embedder.embed_passages(&[]).unwrap().is_empty());
    assert_eq!(server.seen().len(), 5, "an empty batch sends nothing");
}

#[test]
fn rows_are_normalized() {
    let server = Server::start(|_, seen| {
        let data: Vec<Value> =
            (0..seen.inputs().len()).map(|i| json!({"index": i, "embedding": [3.0, 4.0, 0.0]})).collect();
        Reply::Json(200, vec![], json!({"data": data}))
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("NORM"))).unwrap();
    let out = embedder.embed_passages(&["a", "b"]).unwrap();
    assert_close(out.as_slice(), &[0.6, 0.8, 0.0, 0.6, 0.8, 0.0]);
}

#[test]
fn bearer_key_comes_from_the_variable_and_never_shows() {
    let key = "sk-test-0123456789abcdef";
    let server = Server::start(|_, seen| embeddings(seen, 4));
    let embedder = HttpEmbedder::connect(config(&server, &set_env("BEARER", key))).unwrap();
    embedder.embed_passages(&["x"]).unwrap();
    for s in server.seen() {
        assert_eq!(s.header("authorization"), Some(format!("Bearer {key}").as_str()));
        assert_eq!(s.header("api-key"), None);
    }
    let debug = format!("{embedder:?}");
    assert!(!debug.contains(key) && debug.contains("***"), "{debug}");
}

#[test]
fn azure_style_key_header_and_url_with_query() {
    let server = Server::start(|_, seen| embeddings(seen, 4));
    let config = HttpEmbedderConfig {
        base_url: server.url.replace("/v1", "/openai/deployments/emb?api-version=2024-02-01"),
        auth_header: AuthHeader::ApiKey,
        dimensions: Some(4),
        ..config(&server, &set_env("AZURE", "azure-key"))
    };
    HttpEmbedder::connect(config).unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].target, "/openai/deployments/emb/embeddings?api-version=2024-02-01");
    assert_eq!(seen[0].header("api-key"), Some("azure-key"));
    assert_eq!(seen[0].header("authorization"), None);
    assert_eq!(seen[0].body["dimensions"], 4);
}

#[test]
fn a_503_is_retried() {
    let server = Server::start(|n, seen| match n {
        1 => Reply::Json(503, vec![], json!({"error": {"message": "overloaded"}})),
        _ => embeddings(seen, 4),
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("R503"))).unwrap();
    let out = embedder.embed_passages(&["a", "b"]).unwrap();
    assert_close(out.row(1), &normalized(vector_for("b", 4)));
    assert_eq!(server.seen().len(), 3, "probe, 503, retry");
}

#[test]
fn a_429_waits_out_retry_after() {
    let server = Server::start(|n, seen| match n {
        1 => Reply::Json(429, vec![("retry-after", "1".into())], json!({"error": {"message": "slow down"}})),
        _ => embeddings(seen, 4),
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("R429"))).unwrap();
    let start = Instant::now();
    embedder.embed_passages(&["a"]).unwrap();
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(950), "waited only {waited:?}");
    assert!(waited < Duration::from_secs(5), "waited {waited:?}");
    assert_eq!(server.seen().len(), 3);
}

#[test]
fn a_401_fails_at_once_with_the_message_and_without_the_key() {
    let key = "sk-live-SECRET-987654321";
    let server = Server::start(move |_, _| {
        Reply::Json(
            401,
            vec![],
            json!({"error": {
                "message": format!("Incorrect API key provided: {key}."),
                "type": "invalid_request_error",
            }}),
        )
    });
    let config = HttpEmbedderConfig { max_retries: 5, ..config(&server, &set_env("R401", key)) };
    let start = Instant::now();
    let err = HttpEmbedder::connect(config).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, strata_core::Error::Remote { .. }), "{err:?}");
    assert!(text.contains("401") && text.contains("Incorrect API key provided"), "{text}");
    assert!(!text.contains(key) && !format!("{err:?}").contains(key), "{text}");
    assert_eq!(server.seen().len(), 1, "no retry");
    assert!(start.elapsed() < Duration::from_millis(400));
}

#[test]
fn a_400_is_not_retried() {
    let server = Server::start(|n, seen| match n {
        0 => embeddings(seen, 4),
        _ => Reply::Json(400, vec![], json!({"error": "input too long"})),
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("R400"))).unwrap();
    let err = embedder.embed_passages(&["a"]).unwrap_err().to_string();
    assert!(err.contains("HTTP 400") && err.contains("input too long"), "{err}");
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let server = Server::start(|_, _| Reply::Hang);
    let config =
        HttpEmbedderConfig { timeout_secs: 1, max_retries: 1, ..config(&server, &unset_env("HANG")) };
    let start = Instant::now();
    let err = HttpEmbedder::connect(config).unwrap_err().to_string();
    let took = start.elapsed();
    assert!(err.contains("timed out") && err.contains("2 attempts"), "{err}");
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn a_refused_connection_is_retried_then_reported() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = HttpEmbedderConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "m".into(),
        api_key_env: unset_env("REFUSED"),
        max_retries: 2,
        ..Default::default()
    };
    let start = Instant::now();
    let err = HttpEmbedder::connect(config).unwrap_err().to_string();
    assert!(err.contains("network error") && err.contains("3 attempts"), "{err}");
    // Two backoffs: 0.25..0.5 s then 0.5..1 s.
    assert!(start.elapsed() >= Duration::from_millis(700), "{:?}", start.elapsed());
}

#[test]
fn a_later_answer_of_another_dimension_is_an_error() {
    let server = Server::start(|n, seen| embeddings(seen, if n == 0 { 4 } else { 5 }));
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("DIM"))).unwrap();
    let err = embedder.embed_passages(&["a"]).unwrap_err().to_string();
    assert!(err.contains("5 dimensions, expected 4"), "{err}");
}

#[test]
fn rows_of_mixed_dimensions_are_an_error() {
    let server = Server::start(|n, seen| match n {
        0 => embeddings(seen, 3),
        _ => Reply::Json(
            200,
            vec![],
            json!({"data": [
                {"index": 0, "embedding": [1.0, 0.0, 0.0]},
                {"index": 1, "embedding": [1.0, 0.0]},
            ]}),
        ),
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("MIXED"))).unwrap();
    let err = embedder.embed_passages(&["a", "b"]).unwrap_err().to_string();
    assert!(err.contains("embedding 1 has 2 dimensions, expected 3"), "{err}");
}

#[test]
fn configured_dimensions_that_the_server_ignores_fail_the_probe() {
    let server = Server::start(|_, seen| embeddings(seen, 3));
    let config = HttpEmbedderConfig { dimensions: Some(256), ..config(&server, &unset_env("IGNORED")) };
    let err = HttpEmbedder::connect(config).unwrap_err().to_string();
    assert!(err.contains("asked for 256 dimensions but got 3"), "{err}");
}

#[test]
fn a_wrong_row_count_or_bad_indexes_are_errors() {
    let server = Server::start(|n, seen| match n {
        0 => embeddings(seen, 2),
        1 => Reply::Json(200, vec![], json!({"data": [{"index": 0, "embedding": [1.0, 0.0]}]})),
        _ => Reply::Json(
            200,
            vec![],
            json!({"data": [{"index": 1, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [0.0, 1.0]}]}),
        ),
    });
    let embedder = HttpEmbedder::connect(config(&server, &unset_env("COUNT"))).unwrap();
    let err = embedder.embed_passages(&["a", "b"]).unwrap_err().to_string();
    assert!(err.contains("sent 2 inputs but got 1 embeddings"), "{err}");
    let err = embedder.embed_passages(&["a", "b"]).unwrap_err().to_string();
    assert!(err.contains("indexes"), "{err}");
}

#[test]
fn config_has_defaults_and_refuses_unknown_keys() {
    let config: HttpEmbedderConfig = serde_json::from_value(json!({"model": "m"})).unwrap();
    assert_eq!(config.base_url, "https://api.openai.com/v1");
    assert_eq!(config.api_key_env, "OPENAI_API_KEY");
    assert_eq!(config.auth_header, AuthHeader::Bearer);
    assert_eq!((config.batch_size, config.timeout_secs, config.max_retries), (64, 30, 5));
    assert_eq!((config.max_seq_len, config.dimensions), (8191, None));
    let azure: HttpEmbedderConfig =
        serde_json::from_value(json!({"model": "m", "auth_header": "api-key"})).unwrap();
    assert_eq!(azure.auth_header, AuthHeader::ApiKey);
    let err =
        serde_json::from_value::<HttpEmbedderConfig>(json!({"model": "m", "batchsize": 3})).unwrap_err();
    assert!(err.to_string().contains("batchsize"), "{err}");
}

/// The cache id was the model's name, endpoint and shape (issue 54): a server that swapped
/// the model behind one name (TEI ignores `model`, Ollama tags are pulled again) kept
/// serving the old model's cached vectors. The probe's vector at connect is part of it now.
#[test]
fn regression_a_server_that_swaps_its_model_behind_one_name_is_another_cache_id() {
    let swapped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = swapped.clone();
    let server = Server::start(move |_, seen| {
        if !flag.load(std::sync::atomic::Ordering::SeqCst) {
            return embeddings(seen, 8);
        }
        // Another model: same name, same dimension, other vectors.
        let data: Vec<Value> = seen
            .inputs()
            .iter()
            .enumerate()
            .map(|(i, text)| json!({"index": i, "embedding": vector_for(&format!("{text}!"), 8)}))
            .collect();
        Reply::Json(200, vec![], json!({"data": data, "model": "test-model"}))
    });
    let env = unset_env("SWAP");
    let id = |config| {
        HttpEmbedder::connect(config)
            .unwrap()
            .cache_id()
            .unwrap()
            .expect("an HTTP embedder declares its cache id")
    };
    let before = id(config(&server, &env));
    assert_eq!(id(config(&server, &env)), before, "the same model is the same id");
    swapped.store(true, std::sync::atomic::Ordering::SeqCst);
    assert_ne!(id(config(&server, &env)), before, "the swapped model is another id");
}
