//! The web page as a browser fetches it: `/` and `/ui/{version}/*` are public but keep the
//! loopback `Host` rule and open no CORS; each file comes in the encoding the client accepts,
//! with its type, an ETag and cache headers; and `GET /v1/documents/{id}/source`, which the
//! page reads PDFs from, serves only what was indexed, behind the key.
//!
//! The page's behaviour in a real browser is `scripts/ui-checks.sh`'s business.

mod common;

use std::io::Read;

use reqwest::header::{HeaderMap, ACCEPT_ENCODING};
use reqwest::StatusCode;
use strata_core::Config;
use tokio_util::sync::CancellationToken;

const KEY: &str = "ui-key-0123456789abcdef";
const READ_KEY: &str = "ui-read-0123456789abcdef";

struct Server {
    base: String,
    client: reqwest::Client,
    shutdown: CancellationToken,
    handle: tokio::task::JoinHandle<strata_core::Result<()>>,
    _index: tempfile::TempDir,
}

impl Server {
    async fn start() -> Server {
        let index = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.dense.enabled = false;
        config.serve.api_keys = vec![KEY.into(), format!("read:{READ_KEY}")];
        let common::Running { base, shutdown, handle } = common::serve(config, index.path(), false).await;
        Server { base, client: reqwest::Client::new(), shutdown, handle, _index: index }
    }

    fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(format!("{}{path}", self.base))
    }

    /// The asset folder the page names (`/ui/{version}`).
    async fn asset_base(&self) -> String {
        let page = self.get("/").send().await.unwrap().text().await.unwrap();
        let at = page.find("/ui/").expect("the page names its assets");
        let version: String = page[at + 4..].chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        assert_eq!(version.len(), 16, "{page}");
        format!("/ui/{version}")
    }

    async fn stop(self) {
        self.shutdown.cancel();
        self.handle.await.unwrap().unwrap();
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_public_but_keeps_the_host_rule_and_opens_no_cors() {
    let server = Server::start().await;
    let page = server.get("/").send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let h = page.headers().clone();
    assert_eq!(header(&h, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&h, "cache-control"), "no-cache");
    assert!(header(&h, "content-security-policy").contains("script-src 'self'"), "{h:?}");
    assert!(header(&h, "content-security-policy").contains("frame-ancestors 'none'"));
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");
    assert!(page.text().await.unwrap().contains("<title>strata</title>"));
    // The API behind it still needs the key.
    let api = server.get("/v1/documents").send().await.unwrap();
    assert_eq!(api.status(), StatusCode::UNAUTHORIZED);
    // A rebound name is refused for the page as for the API.
    let base = server.asset_base().await;
    for path in ["/".to_string(), format!("{base}/app.js")] {
        let rebound = server.get(&path).header("host", "evil.example").send().await.unwrap();
        assert_eq!(rebound.status(), StatusCode::FORBIDDEN, "{path}");
    }
    // No CORS: neither a preflight nor a cross-origin GET gets an Access-Control header.
    let preflight = server
        .client
        .request(reqwest::Method::OPTIONS, format!("{}/v1/search", server.base))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.headers().get("access-control-allow-origin").is_none());
    let cross = server.get("/").header("origin", "https://evil.example").send().await.unwrap();
    assert!(cross.headers().get("access-control-allow-origin").is_none());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_come_compressed_as_accepted_with_their_type_and_cache_headers() {
    let server = Server::start().await;
    let base = server.asset_base().await;
    let url = format!("{base}/app.js");
    let plain = server.get(&url).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::OK);
    let h = plain.headers().clone();
    assert_eq!(header(&h, "content-type"), "text/javascript; charset=utf-8");
    assert_eq!(header(&h, "cache-control"), "public, max-age=31536000, immutable");
    assert_eq!(header(&h, "vary"), "Accept-Encoding");
    assert_eq!(header(&h, "content-encoding"), "");
    let etag = header(&h, "etag").to_string();
    let original = plain.bytes().await.unwrap().to_vec();
    assert!(std::str::from_utf8(&original).unwrap().contains("import"));

    let br = server.get(&url).header(ACCEPT_ENCODING, "gzip, deflate, br, zstd").send().await.unwrap();
    assert_eq!(header(br.headers(), "content-encoding"), "br");
    assert_eq!(header(br.headers(), "etag"), etag);
    let body = br.bytes().await.unwrap();
    assert!(body.len() < original.len());
    let mut unpacked = Vec::new();
    brotli::BrotliDecompress(&mut &body[..], &mut unpacked).unwrap();
    assert_eq!(unpacked, original);

    let gz = server.get(&url).header(ACCEPT_ENCODING, "gzip, br;q=0").send().await.unwrap();
    assert_eq!(header(gz.headers(), "content-encoding"), "gzip");
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&gz.bytes().await.unwrap()[..]).read_to_end(&mut unpacked).unwrap();
    assert_eq!(unpacked, original);

    let again = server.get(&url).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());
    let page = server.get("/").send().await.unwrap();
    let page_etag = header(page.headers(), "etag").to_string();
    let page_again = server.get("/").header("if-none-match", &page_etag).send().await.unwrap();
    assert_eq!(page_again.status(), StatusCode::NOT_MODIFIED);

    for (file, kind) in [
        ("app.css", "text/css; charset=utf-8"),
        ("vendor/pdfjs/pdf.min.mjs", "text/javascript; charset=utf-8"),
        ("vendor/pdfjs/pdf.worker.min.mjs", "text/javascript; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let r = server.get(&format!("{base}/{file}")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{file}");
        assert_eq!(header(r.headers(), "content-type"), kind, "{file}");
    }
    // Another version's URL, or a file that is not there: 404, never a stale immutable answer.
    let other = server.get("/ui/0123456789abcdef/app.js").send().await.unwrap();
    assert_eq!(other.status(), StatusCode::NOT_FOUND);
    let missing = server.get(&format!("{base}/nope.js")).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let escape = server.get(&format!("{base}/..%2F..%2FCargo.toml")).send().await.unwrap();
    assert_eq!(escape.status(), StatusCode::NOT_FOUND);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn source_serves_the_indexed_bytes_behind_the_key_and_refuses_a_changed_file() {
    let server = Server::start().await;
    let text = "# Notes\n\n## 1. Scope\n\nThe <script>alert(1)</script> scope of these notes.\n";
    let accepted: serde_json::Value = server
        .client
        .post(format!("{}/v1/documents?filename=notes.md", server.base))
        .bearer_auth(KEY)
        .header("content-type", "text/markdown")
        .body(text)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let job = accepted["job"]["id"].as_str().unwrap().to_string();
    let started = std::time::Instant::now();
    let path = loop {
        let job: serde_json::Value = server
            .get(&format!("/v1/jobs/{job}"))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if job["state"] == "done" {
            break job["inputs"][0].as_str().unwrap().to_string();
        }
        assert!(started.elapsed().as_secs() < 60 && job["state"] != "failed", "{job}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };

    let none = server.get("/v1/documents/notes.md/source").send().await.unwrap();
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    // A read key may read it (a GET); the bytes are the file's, never shown as a page.
    let r = server.get("/v1/documents/notes.md/source").bearer_auth(READ_KEY).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let h = r.headers().clone();
    assert_eq!(header(&h, "content-type"), "application/octet-stream");
    assert_eq!(header(&h, "content-disposition"), "attachment");
    assert_eq!(header(&h, "content-security-policy"), "sandbox");
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");
    assert_eq!(r.text().await.unwrap(), text);

    // Changed on disk since it was indexed: refused, naming why.
    std::fs::write(&path, "# Something else\n").unwrap();
    let changed = server.get("/v1/documents/notes.md/source").bearer_auth(KEY).send().await.unwrap();
    assert_eq!(changed.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = changed.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("changed since it was indexed"), "{body}");
    std::fs::remove_file(&path).unwrap();
    let gone = server.get("/v1/documents/notes.md/source").bearer_auth(KEY).send().await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    let unknown = server.get("/v1/documents/nothing-such/source").bearer_auth(KEY).send().await.unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    server.stop().await;
}
