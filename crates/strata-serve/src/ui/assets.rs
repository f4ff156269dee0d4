//! The web page's files, embedded in the binary and compressed once per process.
//!
//! Every file is compiled in (`include_bytes!`), so the server needs nothing on disk and no
//! Node at run time. On first use (the server warms it at startup, on the blocking pool) each
//! file is compressed with brotli and gzip, kept when smaller, and hashed: the blake3 of all
//! names and bytes is the [`Assets::version`] in every asset's URL (`/ui/{version}/app.js`),
//! so those URLs never change content and are cached as immutable, while `index.html`, which
//! names them, is revalidated by its ETag.

use std::io::Write;
use std::sync::OnceLock;

/// The page, with `__UI_VERSION__` where the asset folder's version goes.
const INDEX_HTML: &str = include_str!("../../ui/index.html");

/// The files under `/ui/{version}/`: name and bytes.
const FILES: &[(&str, &[u8])] = &[
    ("app.css", include_bytes!("../../ui/app.css")),
    ("app.js", include_bytes!("../../ui/app.js")),
    ("api.js", include_bytes!("../../ui/api.js")),
    ("dom.js", include_bytes!("../../ui/dom.js")),
    ("search.js", include_bytes!("../../ui/search.js")),
    ("read.js", include_bytes!("../../ui/read.js")),
    ("pdfpage.js", include_bytes!("../../ui/pdfpage.js")),
    ("manage.js", include_bytes!("../../ui/manage.js")),
    ("favicon.svg", include_bytes!("../../ui/favicon.svg")),
    ("vendor/pdfjs/pdf.min.mjs", include_bytes!("../../ui/vendor/pdfjs/pdf.min.mjs")),
    ("vendor/pdfjs/pdf.worker.min.mjs", include_bytes!("../../ui/vendor/pdfjs/pdf.worker.min.mjs")),
    ("vendor/pdfjs/LICENSE", include_bytes!("../../ui/vendor/pdfjs/LICENSE")),
];

/// One file, as served.
pub struct Asset {
    pub content_type: &'static str,
    pub identity: Vec<u8>,
    /// Brotli, when smaller than the file.
    pub br: Option<Vec<u8>>,
    /// Gzip, when smaller than the file.
    pub gzip: Option<Vec<u8>>,
    /// The quoted strong ETag: blake3 of the bytes.
    pub etag: String,
}

/// The page and its files.
pub struct Assets {
    /// Hex digest naming this set of files in their URLs.
    pub version: String,
    pub index: Asset,
    files: Vec<(&'static str, Asset)>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

impl Assets {
    /// The process's assets, compressed on first call (a second or so: call it off the
    /// async threads).
    pub fn get() -> &'static Assets {
        ASSETS.get_or_init(Assets::build)
    }

    /// The assets when they are compressed already.
    pub fn ready() -> Option<&'static Assets> {
        ASSETS.get()
    }

    /// The file `name` under `/ui/{version}/`.
    pub fn file(&self, name: &str) -> Option<&Asset> {
        self.files.iter().find(|(n, _)| *n == name).map(|(_, a)| a)
    }

    /// Every file with its name, the page first (as `index.html`).
    pub fn all(&self) -> impl Iterator<Item = (&str, &Asset)> {
        std::iter::once(("index.html", &self.index)).chain(self.files.iter().map(|(n, a)| (*n, a)))
    }

    fn build() -> Assets {
        let started = std::time::Instant::now();
        let mut hasher = blake3::Hasher::new();
        for (name, bytes) in FILES {
            hasher.update(name.as_bytes()).update(&[0]).update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        let version = hasher.finalize().to_hex()[..16].to_string();
        let index = Asset::new("index.html", INDEX_HTML.replace("__UI_VERSION__", &version).into_bytes());
        let files = FILES.iter().map(|(name, bytes)| (*name, Asset::new(name, bytes.to_vec()))).collect();
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "web page assets compressed");
        Assets { version, index, files }
    }
}

impl Asset {
    fn new(name: &str, identity: Vec<u8>) -> Asset {
        let smaller = |c: Vec<u8>| (c.len() < identity.len()).then_some(c);
        let br = smaller(brotli(&identity));
        let gzip = smaller(gzip(&identity));
        let etag = format!("\"{}\"", &blake3::hash(&identity).to_hex()[..32]);
        Asset { content_type: content_type(name), identity, br, gzip, etag }
    }
}

/// The `Content-Type` of a file, by its extension.
pub fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        _ => "text/plain; charset=utf-8",
    }
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 3);
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).expect("compressing into memory");
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("compressing into memory");
    encoder.finish().expect("compressing into memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_files_decompress_to_the_originals() {
        use std::io::Read;
        for (name, asset) in Assets::get().all() {
            if let Some(br) = &asset.br {
                let mut out = Vec::new();
                brotli::BrotliDecompress(&mut &br[..], &mut out).unwrap();
                assert_eq!(out, asset.identity, "{name} (br)");
            }
            if let Some(gz) = &asset.gzip {
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut out).unwrap();
                assert_eq!(out, asset.identity, "{name} (gzip)");
            }
        }
    }

    /// Issue 25: the page with pdf.js weighs under 1.5 MB as served (brotli). The files as
    /// they are (pdf.js's worker is 1.08 MB of it) are bounded too, so growth shows here.
    #[test]
    fn page_weight_stays_under_budget() {
        let (mut raw, mut br) = (0, 0);
        for (_, asset) in Assets::get().all() {
            raw += asset.identity.len();
            br += asset.br.as_ref().map_or(asset.identity.len(), Vec::len);
        }
        assert!(br < 1_500_000, "{br} bytes compressed");
        assert!(raw < 1_700_000, "{raw} bytes uncompressed");
    }

    #[test]
    fn the_page_names_its_files_by_version() {
        let assets = Assets::get();
        let page = std::str::from_utf8(&assets.index.identity).unwrap();
        assert!(!page.contains("__UI_VERSION__"));
        assert!(page.contains(&format!("/ui/{}/app.js", assets.version)), "{page}");
        assert!(assets.file("app.js").is_some() && assets.file("nope.js").is_none());
    }
}
