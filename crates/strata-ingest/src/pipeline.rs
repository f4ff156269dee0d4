//! The document half of the ingest stages for one file, read → annotate → tree → chunk →
//! enrich ([`Stage`]), each a method of [`Pipeline`] named after it. The ingest driver
//! (`strata_engine::driver`) runs them, then context → embed → record.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use strata_core::{
    document_lead, Annotation, Chunk, Config, DocId, Document, DocumentRecord, Error, Format, Page, Result,
    Source, Span,
};

use crate::annotate::{title_is_placeholder, Annotators, View};
use crate::chunk::Chunker;
use crate::enrich::{enrich, Enrichment};
use crate::open::{self, Roots};
use crate::read::pdf::ocr::{OcrOptions, PageCache};
use crate::read::{reader_with, Parsed, ReadError, ReadLimits};
use crate::stage::Stage;
use crate::tokenize;
use crate::tree::{build_tree, keep_headings};
use strata_text::tokenize::Tokenizer;

/// A document with everything ingest found in it, ready for the index.
pub type Ingested = DocumentRecord;

/// A document between the read and the tree stages.
#[derive(Debug)]
pub struct Draft {
    /// Where it came from.
    pub source: Source,
    /// What the reader made of it; annotate adds to its metadata.
    pub parsed: Parsed,
    /// Its pages, from the reader's page breaks.
    pub pages: Vec<Page>,
    /// Its title once annotate chose one; the tree stage names a document without one by
    /// its file.
    pub title: Option<String>,
    /// The annotators that ran on it, and why.
    pub annotations: Vec<Annotation>,
}

/// How the chunk stage cuts a document.
#[derive(Debug, Clone, Default)]
pub enum Cut {
    /// strata's chunker (`[chunk]`).
    #[default]
    Chunker,
    /// At these spans of the document's text (data sets that come with their own chunks;
    /// see [`Chunker::chunk_at`]).
    Spans(Vec<Span>),
}

/// Runs the ingest stages with one configuration.
pub struct Pipeline {
    annotators: Annotators,
    chunker: Chunker,
    max_file_bytes: u64,
    limits: ReadLimits,
    metadata: BTreeMap<String, String>,
    ocr: OcrOptions,
    ocr_cache: Option<Arc<dyn PageCache>>,
    roots: Option<Arc<Roots>>,
}

impl Pipeline {
    /// Builds the pipeline: loads the tokenizer the configuration names.
    pub fn new(config: &Config) -> Result<Pipeline> {
        let tokenizer = tokenize::from_config(&config.tokenizer)?;
        Ok(Pipeline::with_tokenizer(config, tokenizer))
    }

    /// Builds the pipeline with a given tokenizer.
    pub fn with_tokenizer(config: &Config, tokenizer: Arc<dyn Tokenizer>) -> Pipeline {
        Pipeline {
            annotators: Annotators::new(&config.ingest.annotators),
            chunker: Chunker::new(tokenizer, &config.chunk),
            max_file_bytes: config.ingest.max_file_bytes,
            limits: ReadLimits::from_config(&config.ingest),
            metadata: config.ingest.metadata.clone(),
            ocr: OcrOptions::from_config(&config.ingest),
            ocr_cache: None,
            roots: None,
        }
    }

    /// This pipeline, reading the pages it OCRs from `cache` when they are there and putting
    /// them there when not.
    pub fn with_ocr_cache(mut self, cache: Arc<dyn PageCache>) -> Pipeline {
        self.ocr_cache = Some(cache);
        self
    }

    /// This pipeline, reading only files whose real path lies under `roots` (a server's path
    /// ingest: the check is on the file opened, not on the name the job was given).
    pub fn with_roots(mut self, roots: Arc<Roots>) -> Pipeline {
        self.roots = Some(roots);
        self
    }

    /// Whether PDF pages may be OCR'd (`[ingest] ocr` is not `off`).
    pub fn ocrs(&self) -> bool {
        self.ocr.mode != crate::read::pdf::ocr::OcrMode::Off
    }

    /// The tokenizer in use.
    pub fn tokenizer(&self) -> &Arc<dyn Tokenizer> {
        self.chunker.tokenizer()
    }

    /// The format of a path, from its extension.
    pub fn format_of(path: &Path) -> Result<Format> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        Format::from_extension(ext)
            .ok_or_else(|| Error::read(path, ReadError::Unsupported(ext.to_string()).to_string()))
    }

    /// Loads a file's bytes and describes its source (content hash included), without
    /// parsing, so that an unchanged file can be skipped cheaply. The file is opened once
    /// ([`open::open`]): only a regular file is read (a device or FIFO is refused without
    /// blocking), its source path is the real path of the file opened, which must lie under
    /// the roots when the pipeline has them, and never more than the size limit is read,
    /// even from a file that grows while it is read.
    pub fn load(&self, path: &Path) -> Result<(Source, Vec<u8>)> {
        let format = Self::format_of(path)?;
        let opened = open::open(path).map_err(|e| Error::read(path, e.to_string()))?;
        if let Some(roots) = self.roots.as_ref().filter(|r| !r.contains(&opened.real)) {
            return Err(Error::read(
                path,
                format!(
                    "it resolves to a file outside the ingest roots ({}), a symlink put in its place; nothing was read",
                    roots.describe()
                ),
            ));
        }
        let size = opened.meta.len();
        if size > self.max_file_bytes {
            return Err(Error::read(
                path,
                ReadError::TooLarge { size, limit: self.max_file_bytes }.to_string(),
            ));
        }
        let bytes = read_bounded(opened.file, self.max_file_bytes)
            .map_err(|e| Error::read(path, format!("cannot read: {e}")))?
            .ok_or_else(|| {
                Error::read(path, ReadError::GrewTooLarge { limit: self.max_file_bytes }.to_string())
            })?;
        let mtime = opened
            .meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64);
        let source = Source {
            path: Source::path_of(&opened.real),
            format,
            content_hash: blake3::hash(&bytes).to_hex().to_string(),
            size: bytes.len() as u64,
            mtime,
        };
        Ok((source, bytes))
    }

    /// Loads a file and runs read → annotate → tree on it.
    pub fn document_file(&self, path: &Path) -> Result<Document> {
        let (source, bytes) = self.load(path)?;
        self.document(source, &bytes)
    }

    /// read → annotate → tree: the bytes of a known source as a document. A stage that
    /// panics is reported as this file's error.
    pub fn document(&self, source: Source, bytes: &[u8]) -> Result<Document> {
        let path = source.path.clone();
        let mut draft = Stage::Read.run(&path, || self.read(source, bytes))?;
        Stage::Annotate.run(&path, || self.annotate(&mut draft))?;
        Stage::Tree.run(&path, || Ok(self.tree(draft)))
    }

    /// chunk → enrich: `document` cut as `cut` says, its chunks tagged and its definitions
    /// and references found. A stage that panics is reported as this file's error.
    pub fn process(&self, document: Document, cut: &Cut) -> Result<Ingested> {
        let path = document.source.path.clone();
        let mut chunks = Stage::Chunk.run(&path, || self.chunk(&document, cut))?;
        let Enrichment { definitions, references } =
            Stage::Enrich.run(&path, || Ok(self.enrich(&document, &mut chunks)))?;
        tracing::debug!(
            chunks = chunks.len(),
            definitions = definitions.len(),
            references = references.len(),
            "processed"
        );
        Ok(Ingested::new(document, chunks, definitions, references))
    }

    /// Loads a file and runs read → annotate → tree → chunk → enrich on it, with strata's
    /// chunker.
    pub fn ingest_file(&self, path: &Path) -> Result<Ingested> {
        self.process(self.document_file(path)?, &Cut::Chunker)
    }

    /// The read stage: the format's reader on `bytes`, and the pages its page breaks make.
    pub fn read(&self, source: Source, bytes: &[u8]) -> Result<Draft> {
        let path = source.path.as_str();
        let reader = reader_with(source.format, &self.ocr, self.ocr_cache.as_ref()).ok_or_else(|| {
            Error::read(path, format!("{} files are not supported by this build yet", source.format.name()))
        })?;
        let parsed = reader.read_with(bytes, &self.limits).map_err(|e| Error::read(path, e.to_string()))?;
        let pages = pages(&parsed);
        Ok(Draft { source, parsed, pages, title: None, annotations: Vec::new() })
    }

    /// The annotate stage: the annotators that claim the document ([`crate::annotate`])
    /// fill its metadata, under the configuration's and a sidecar's metadata; and its title,
    /// which an annotator gives a document whose own title names nothing.
    pub fn annotate(&self, draft: &mut Draft) -> Result<()> {
        let parsed = &mut draft.parsed;
        let view = View { text: &parsed.text, pages: &draft.pages, title: parsed.title.as_deref() };
        let ran = self.annotators.run(view);
        for (key, value) in ran.iter().flat_map(|r| &r.fields.metadata) {
            parsed.metadata.entry(key.to_string()).or_insert_with(|| value.clone());
        }
        let given_title =
            crate::metadata::apply(&mut parsed.metadata, &self.metadata, Path::new(&draft.source.path))?;
        // A title the reader found names the document unless an annotator reads it as its
        // convention's boilerplate.
        let read_title = parsed.title.take().filter(|_| !ran.iter().any(|r| r.title_names_nothing));
        let own_title = given_title.or(read_title).filter(|t| !title_is_placeholder(t));
        // The first annotator to give a title names a document whose own names nothing.
        let titled =
            if own_title.is_some() { None } else { ran.iter().position(|r| r.fields.title.is_some()) };
        draft.title = own_title.or_else(|| titled.and_then(|i| ran[i].fields.title.clone()));
        for (i, run) in ran.into_iter().enumerate() {
            draft.annotations.push(run.record(&draft.parsed.metadata, titled == Some(i)));
        }
        Ok(())
    }

    /// The tree stage: the reader's heading marks, at most `[ingest] max_sections` of them,
    /// as the document's heading tree.
    pub fn tree(&self, draft: Draft) -> Document {
        let Draft { source, parsed, pages, title, annotations } = draft;
        let path = source.path.as_str();
        let title = title.unwrap_or_else(|| file_stem(path));
        let mut warnings = parsed.warnings;
        // Readers keep `max_sections` headings as they read; kept here again for any reader.
        let (headings, dropped) = keep_headings(parsed.headings, self.limits.max_headings);
        let dropped = dropped + parsed.dropped_headings;
        if dropped > 0 {
            warnings.push(format!(
                "{} headings, more than ingest.max_sections ({}): the {dropped} deepest (the last first) are read as text of the section above them; raise [ingest] max_sections to keep them",
                headings.len() + dropped,
                self.limits.max_headings
            ));
        }
        let tree = build_tree(&title, parsed.text.len(), &headings, &pages);
        let lead = document_lead(&parsed.text, &pages);
        Document {
            id: DocId::from_source(path),
            source,
            title,
            text: parsed.text,
            pages,
            blocks: parsed.blocks,
            tree,
            metadata: parsed.metadata,
            lead,
            warnings,
            first_line: parsed.first_line,
            annotations,
        }
    }

    /// The chunk stage: `document` cut by the chunker, or at the spans given.
    pub fn chunk(&self, document: &Document, cut: &Cut) -> Result<Vec<Chunk>> {
        match cut {
            Cut::Chunker => Ok(self.chunker.chunk(document)),
            Cut::Spans(spans) => {
                self.chunker.chunk_at(document, spans).map_err(|e| Error::read(&document.source.path, e))
            }
        }
    }

    /// The enrich stage: chunk kinds, defined terms, cross-references resolved to sections.
    pub fn enrich(&self, document: &Document, chunks: &mut [Chunk]) -> Enrichment {
        enrich(document, chunks)
    }
}

/// The pages of `parsed`, from its page breaks: an empty page (two equal breaks) is left out,
/// and the pages after it keep their numbers.
fn pages(parsed: &Parsed) -> Vec<Page> {
    let text_len = parsed.text.len();
    let mut pages = Vec::with_capacity(parsed.page_breaks.len() + 1);
    let mut at = 0;
    for (i, &b) in parsed.page_breaks.iter().chain(std::iter::once(&text_len)).enumerate() {
        if b < at || (b == at && b != text_len) {
            continue;
        }
        pages.push(Page {
            number: i as u32 + 1,
            label: parsed.page_labels.get(i).cloned().flatten(),
            span: Span::new(at, b),
            ocr: parsed.ocr.get(i).copied().flatten().map(|c| c.round().clamp(0.0, 100.0) as u8),
        });
        at = b;
    }
    pages
}

/// Reads `source` to its end if it holds at most `limit` bytes; `None` as soon as more
/// arrive, so no source can make strata read more than `limit + 1` bytes.
fn read_bounded(source: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    source.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

fn file_stem(path: &str) -> String {
    Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// Runs `load` on its own thread: a regression would block or read without end, so the
    /// test gives up after a few seconds instead of hanging.
    fn load_within(path: &Path, seconds: u64) -> Result<(Source, Vec<u8>)> {
        let (tx, rx) = mpsc::channel();
        let path = path.to_path_buf();
        std::thread::spawn(move || {
            let mut config = Config::default();
            config.ingest.max_file_bytes = 1024 * 1024;
            let _ = tx.send(Pipeline::new(&config).unwrap().load(&path));
        });
        rx.recv_timeout(Duration::from_secs(seconds)).expect("load did not return in time")
    }

    #[cfg(unix)]
    #[test]
    fn symlink_to_dev_zero_named_md_is_refused_not_read_without_end() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("z.md");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let err = load_within(&link, 10).unwrap_err().to_string();
        assert!(err.contains("z.md") && err.contains("not a regular file"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn fifo_named_on_the_command_line_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo failed");
        let err = load_within(&fifo, 10).unwrap_err().to_string();
        assert!(err.contains("pipe.txt") && err.contains("FIFO"), "{err}");
    }

    /// Issue 51: a server checked a path job's files when it accepted the job and opened
    /// them later without the check, so a symlink swapped in meanwhile had `/etc/passwd`
    /// indexed. With roots, the file opened is checked, whatever its name.
    #[cfg(unix)]
    #[test]
    fn regression_a_symlink_out_of_the_roots_is_refused_where_the_file_is_opened() {
        let (root, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(outside.path().join("secret.md"), "# Secret\n\nkeep out\n").unwrap();
        std::fs::write(root.path().join("inner.md"), "# Inner\n\nfine\n").unwrap();
        let innocent = root.path().join("innocent.md");
        std::os::unix::fs::symlink(outside.path().join("secret.md"), &innocent).unwrap();
        let roots = Arc::new(Roots::new(&[root.path().to_path_buf()]).unwrap());
        let pipeline = Pipeline::new(&Config::default()).unwrap().with_roots(roots);
        let err = pipeline.load(&innocent).unwrap_err().to_string();
        assert!(err.contains("innocent.md") && err.contains("outside the ingest roots"), "{err}");
        assert!(!err.contains("secret"), "the message names no file outside the roots: {err}");
        let (source, _) = pipeline.load(&root.path().join("inner.md")).unwrap();
        assert!(source.path.ends_with("inner.md"), "{}", source.path);
    }

    #[test]
    fn file_over_the_size_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.txt");
        std::fs::write(&big, vec![b'a'; 1024 * 1024 + 1]).unwrap();
        let err = load_within(&big, 10).unwrap_err().to_string();
        assert!(err.contains("big.txt") && err.contains("max_file_bytes"), "{err}");
    }

    /// Issue 23: `x\xff.md` and `x\xfe.md` were stored as one lossy path, so an ingest of
    /// both reported two documents and kept one, and every later ingest re-ingested one.
    #[cfg(unix)]
    #[test]
    fn regression_two_non_utf8_file_names_are_two_documents() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (i, name) in [&b"x\xff.md"[..], &b"x\xfe.md"[..]].into_iter().enumerate() {
            let path = dir.path().join(std::ffi::OsStr::from_bytes(name));
            std::fs::write(&path, format!("# Doc {i}\n\nText {i}.\n")).unwrap();
            paths.push(load_within(&path, 10).unwrap().0.path);
        }
        assert!(paths[0].ends_with("x\\xff.md") && paths[1].ends_with("x\\xfe.md"), "{paths:?}");
        assert_ne!(strata_core::DocId::from_source(&paths[0]), strata_core::DocId::from_source(&paths[1]));
        assert_eq!(Source::path_of(Path::new("/a/b ü.md")), "/a/b ü.md");
    }

    /// Issue 23: 100,000 nested `div`s (1.1 MB) took 42.7 s in html5ever's scope checks, and
    /// four such uploads held both cores of a server. They are refused, with the file, the
    /// depth and the limit, in well under a second.
    #[test]
    fn hundred_thousand_nested_divs_are_refused_in_seconds_not_parsed_for_a_minute() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep.html");
        std::fs::write(&path, format!("{}deep{}", "<div>".repeat(100_000), "</div>".repeat(100_000)))
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let file = path.clone();
        std::thread::spawn(move || {
            let mut config = Config::default();
            config.ingest.max_file_bytes = 2 * 1024 * 1024;
            let _ = tx.send(Pipeline::new(&config).unwrap().document_file(&file).map(|_| ()));
        });
        let err =
            rx.recv_timeout(Duration::from_secs(3)).expect("the read did not return in 3 s").unwrap_err();
        let err = err.to_string();
        let limit = crate::read::html::MAX_DEPTH.to_string();
        assert!(
            err.contains("deep.html") && err.contains("nests elements at least") && err.contains(&limit),
            "{err}"
        );
    }

    /// Held-out filings kept "UNITED STATES SECURITIES AND EXCHANGE COMMISSION", the first
    /// line of their cover, as their title; the `sec` annotator names them instead.
    #[test]
    fn regression_a_filing_titled_by_the_commissions_name_is_named_by_its_cover() {
        let cover = "# UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-K\n\n\
                     For the fiscal year ended December 31, 2018\n\n3M COMPANY\n\n\
                     (Exact name of registrant as specified in its charter)\n";
        let source = |name: &str| Source {
            path: name.into(),
            format: Format::Markdown,
            content_hash: String::new(),
            size: cover.len() as u64,
            mtime: None,
        };
        let pipeline = Pipeline::new(&Config::default()).unwrap();
        let doc = pipeline.document(source("/f/3m.md"), cover.as_bytes()).unwrap();
        assert_eq!(doc.title, "3M COMPANY 10-K, fiscal year ended December 31, 2018");
        assert!(doc.annotations[0].filled.contains(&"title".to_string()), "{:?}", doc.annotations);
        // Without the annotator, the reader's title stands.
        let mut config = Config::default();
        config.ingest.annotators.clear();
        let plain = Pipeline::new(&config).unwrap().document(source("/f/3m.md"), cover.as_bytes()).unwrap();
        assert_eq!(plain.title, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION");
        assert!(plain.annotations.is_empty() && !plain.metadata.contains_key("issuer"));
    }

    #[test]
    fn bounded_read_stops_after_the_limit_on_an_endless_source() {
        assert_eq!(read_bounded(std::io::repeat(b'x'), 16).unwrap(), None);
        assert_eq!(read_bounded(&b"sixteen bytes..."[..], 16).unwrap().unwrap().len(), 16);
        assert_eq!(read_bounded(&b"short"[..], 16).unwrap().unwrap(), b"short");
    }
}
