//! MCP over a byte stream, one JSON-RPC message per line: what `strata mcp` speaks on stdin
//! and stdout.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word (on purpose, to
//! avoid error storms with peers that echo: modelcontextprotocol/rust-sdk#938), so a client
//! whose message was cut short waited for an answer that never came. JSON-RPC 2.0 answers
//! such a line with a parse error (-32700, id null), and this transport does: a line that is
//! not JSON, is cut short, nests deeper than serde_json's recursion limit or is longer than
//! [`MAX_LINE_BYTES`] gets one. JSON that is not a message gets -32600 (as rmcp answers it,
//! with the request's id when it has one), and a notification gets nothing, as JSON-RPC
//! requires. The replies and rmcp's own messages go out through one writer task, so lines
//! never interleave.

use std::future::Future;
use std::io;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::sync::mpsc;

/// The longest line read, as rmcp's stdio transport allows.
const MAX_LINE_BYTES: usize = 16 << 20;

/// Messages in flight each way before the sending side waits.
const QUEUE: usize = 64;

/// A transport over `read` and `write`, each driven by a task of its own.
pub(super) struct Lines {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    outgoing: mpsc::Sender<String>,
}

impl Lines {
    pub(super) fn new<R, W>(read: R, write: W) -> Lines
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (messages, incoming) = mpsc::channel(QUEUE);
        let (outgoing, lines) = mpsc::channel(QUEUE);
        tokio::spawn(write_lines(write, lines));
        tokio::spawn(read_lines(BufReader::new(read), messages, outgoing.clone()));
        Lines { incoming, outgoing }
    }
}

impl rmcp::transport::Transport<RoleServer> for Lines {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        async move {
            let line = serde_json::to_string(&item)?;
            outgoing
                .send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client is gone"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> io::Result<()> {
        self.incoming.close();
        Ok(())
    }
}

/// Writes each line and flushes it, until every sender is gone or the client stops reading.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut lines: mpsc::Receiver<String>) {
    while let Some(mut line) = lines.recv().await {
        line.push('\n');
        let written = async {
            write.write_all(line.as_bytes()).await?;
            write.flush().await
        };
        if let Err(e) = written.await {
            tracing::warn!("writing to the MCP client: {e}");
            return;
        }
    }
}

/// What a line asks for.
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// A blank line, or a notification no one answers.
    Nothing,
    /// An error response to send back.
    Reply(String),
}

/// Reads lines until the end of input, handing messages to rmcp and errors to the writer.
async fn read_lines<R: AsyncBufRead + Unpin>(
    mut read: R,
    messages: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    replies: mpsc::Sender<String>,
) {
    let mut line = Vec::new();
    loop {
        let incoming = match read_line(&mut read, &mut line).await {
            Ok(Some(true)) => parse(&line),
            Ok(Some(false)) => error_reply(
                Value::Null,
                -32700,
                format!("Parse error: the line is over {MAX_LINE_BYTES} bytes; send smaller messages"),
            ),
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("reading from the MCP client: {e}");
                return;
            }
        };
        let sent = match incoming {
            Incoming::Message(message) => messages.send(*message).await.is_ok(),
            Incoming::Nothing => true,
            Incoming::Reply(reply) => replies.send(reply).await.is_ok(),
        };
        if !sent {
            return;
        }
    }
}

/// Reads the next line into `line`: `Some(true)` when it fits in [`MAX_LINE_BYTES`],
/// `Some(false)` when it did not (the rest of it is skipped unread), `None` at the end.
async fn read_line<R: AsyncBufRead + Unpin>(read: &mut R, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    let limit = MAX_LINE_BYTES as u64 + 1;
    line.clear();
    if (&mut *read).take(limit).read_until(b'\n', line).await? == 0 {
        return Ok(None);
    }
    if line.len() <= MAX_LINE_BYTES || line.ends_with(b"\n") {
        return Ok(Some(true));
    }
    loop {
        line.clear();
        let n = (&mut *read).take(limit).read_until(b'\n', line).await?;
        if n == 0 || line.ends_with(b"\n") {
            line.clear();
            return Ok(Some(false));
        }
    }
}

/// A line as a message, or the error that answers it.
fn parse(line: &[u8]) -> Incoming {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return Incoming::Nothing;
    }
    match serde_json::from_slice(line) {
        Ok(message) => Incoming::Message(Box::new(message)),
        Err(e) => match serde_json::from_slice::<Value>(line) {
            Err(e) => error_reply(
                Value::Null,
                -32700,
                format!("Parse error: {e}; send one JSON-RPC 2.0 message per line, in UTF-8 JSON"),
            ),
            Ok(value) => not_a_message(&value, &e),
        },
    }
}

/// JSON that is not a message rmcp reads: a request gets -32600 with its id; a notification
/// gets nothing, as JSON-RPC answers none (rmcp, too, ignores other protocols' notifications).
fn not_a_message(value: &Value, e: &serde_json::Error) -> Incoming {
    let message = format!("Invalid Request: {e}");
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => error_reply(id.clone(), -32600, message),
        None if value.get("method").is_some() => Incoming::Nothing,
        _ => error_reply(Value::Null, -32600, message),
    }
}

fn error_reply(id: Value, code: i64, message: String) -> Incoming {
    Incoming::Reply(
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string(),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::Value;
    use strata_core::Config;
    use strata_engine::{Engine, OpenOptions};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    async fn engine(dir: &std::path::Path) -> Arc<Engine> {
        let mut config = Config::default();
        config.dense.enabled = false;
        let dir = dir.to_path_buf();
        let open = OpenOptions { create: true, ..OpenOptions::default() };
        Arc::new(
            tokio::task::spawn_blocking(move || Engine::open(config, &dir, &open)).await.unwrap().unwrap(),
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stdio_answers_a_parse_error_to_lines_that_are_not_json() {
        let dir = tempfile::tempdir().unwrap();
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = tokio::spawn(super::super::transport::serve_lines(
            engine(dir.path()).await,
            server_read,
            server_write,
        ));
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut replies = BufReader::new(client_read).lines();
        let mut exchange = async |line: &str| -> Value {
            client_write.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            let reply = tokio::time::timeout(Duration::from_secs(10), replies.next_line()).await;
            let reply = reply.unwrap_or_else(|_| panic!("no answer to {:.60}", line)).unwrap().unwrap();
            serde_json::from_str(&reply).unwrap()
        };

        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        for bad in ["not json at all", r#"{"jsonrpc":"2.0","id":1,"method":"tools/li"#, deep.as_str()] {
            let reply = exchange(bad).await;
            assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
            assert_eq!(reply.get("id"), Some(&Value::Null), "{reply}");
            assert_eq!(reply["error"]["code"], -32700, "{reply}");
            assert!(reply["error"]["message"].as_str().unwrap().starts_with("Parse error"), "{reply}");
        }
        let reply = exchange(r#"{"jsonrpc":"2.0","id":3}"#).await;
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (3.into(), (-32600).into()),
            "{reply}"
        );

        // The server is still there: it answers the handshake.
        let initialize = r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#;
        let reply = exchange(initialize).await;
        assert_eq!(reply["id"], 7, "{reply}");
        assert!(reply["result"]["serverInfo"].is_object(), "{reply}");
        client_write.shutdown().await.unwrap();
        let _ = tokio::time::timeout(Duration::from_secs(10), serving)
            .await
            .expect("the server did not stop at EOF");
    }
}
