//! A scripted HTTP/1.1 server on 127.0.0.1 for the provider tests (copied from
//! `strata-embed/tests/http.rs` and extended).
//!
//! `Server::start(script)` answers the `n`-th request (0-based, across connections) with
//! `script(n, &request)`. It keeps every request it saw ([`Seen`]), the order in which
//! requests arrived and replies went out ([`Event`]), and how many requests were in flight
//! at once ([`Server::max_in_flight`]).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// How long [`Reply::Hang`] holds a connection without answering: longer than any client
/// timeout the tests configure.
const HANG: Duration = Duration::from_secs(3);

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body, parsed (every client under test sends JSON).
    pub body: Value,
}

impl Seen {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Anthropic: the text of content block `i` of the first message.
    pub fn block(&self, i: usize) -> &str {
        self.body["messages"][0]["content"][i]["text"].as_str().expect("a text block")
    }

    /// The part of the prompt that changes per call, whatever the wire format: Anthropic's
    /// last content block, or the OpenAI message's content.
    pub fn prompt(&self) -> &str {
        let content = &self.body["messages"][0]["content"];
        match content.as_array() {
            Some(blocks) => blocks.last().and_then(|b| b["text"].as_str()).expect("a text block"),
            None => content.as_str().expect("a string content"),
        }
    }

    /// The chunk text inside `<chunk>…</chunk>` of a contextualization request.
    pub fn chunk(&self) -> Option<&str> {
        let prompt = self.prompt();
        let start = prompt.find("<chunk>\n")? + "<chunk>\n".len();
        let end = prompt[start..].find("\n</chunk>")? + start;
        Some(&prompt[start..end])
    }
}

/// What the server does with a request.
pub enum Reply {
    /// Answer with this status, extra headers and JSON body.
    Json(u16, Vec<(&'static str, String)>, Value),
    /// Answer with this status, headers (give the content-type) and any body at all.
    Raw(u16, Vec<(&'static str, String)>, String),
    /// Hold the connection open without answering, then drop it.
    Hang,
}

/// What happened, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Request `n` was read.
    Request(usize),
    /// The reply to request `n` is complete and about to be written: logged before its
    /// first byte leaves, so no request the client sends after reading it can come first.
    Reply(usize),
}

type Script = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

#[derive(Default)]
struct State {
    seen: Mutex<Vec<Seen>>,
    events: Mutex<Vec<Event>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// A scripted server.
pub struct Server {
    /// `http://127.0.0.1:PORT/v1`.
    pub url: String,
    /// `http://127.0.0.1:PORT`.
    pub root: String,
    state: Arc<State>,
}

impl Server {
    pub fn start(script: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let root = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let script: Arc<Script> = Arc::new(script);
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (state, script) = (shared.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &state, &*script));
            }
        });
        Server { url: format!("{root}/v1"), root, state }
    }

    /// Every request so far, in arrival order.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// Requests so far.
    pub fn count(&self) -> usize {
        self.state.seen.lock().unwrap().len()
    }

    /// Arrivals and replies, in order.
    pub fn events(&self) -> Vec<Event> {
        self.state.events.lock().unwrap().clone()
    }

    /// Most requests read and not yet answered at any one time. A request counts from the
    /// moment it is read until its reply is ready to be written (the count drops before the
    /// write, so a request the client sends on reading a reply never overlaps that reply
    /// in the count: the maximum never exceeds what the client really had in flight).
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }
}

/// A request line, headers and body; `None` when the client closed the connection.
fn read_request(reader: &mut impl BufRead) -> Option<Seen> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .expect("the client sends Content-Length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).expect("the client sends JSON");
    Some(Seen { method, target, headers, body })
}

/// Answers requests on one connection until the client closes it.
fn serve(stream: TcpStream, state: &State, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    while let Some(seen) = read_request(&mut reader) {
        let n = {
            let mut log = state.seen.lock().unwrap();
            log.push(seen.clone());
            let n = log.len() - 1;
            state.events.lock().unwrap().push(Event::Request(n));
            n
        };
        let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        state.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let (status, extra, body) = match script(n, &seen) {
            Reply::Hang => {
                std::thread::sleep(HANG);
                state.in_flight.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            Reply::Json(status, mut extra, body) => {
                extra.push(("content-type", "application/json".into()));
                (status, extra, body.to_string())
            }
            Reply::Raw(status, extra, body) => (status, extra, body),
        };
        let mut head = format!("HTTP/1.1 {status} Scripted\r\ncontent-length: {}\r\n", body.len());
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        state.events.lock().unwrap().push(Event::Reply(n));
        state.in_flight.fetch_sub(1, Ordering::SeqCst);
        if stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).is_err() {
            return;
        }
    }
}
