//! A document's source file, as it was indexed: what a front-end shows beside the text strata
//! read from it (the web page renders a PDF's pages from it).
//!
//! The index keeps the source's path and the blake3 of its bytes, not the bytes. The file is
//! opened from that path and given out only while its hash still matches: a file changed or
//! replaced since it was indexed would show pages that the citations do not describe. The
//! hash is taken by streaming the open file, so a request holds one buffer, not the file; the
//! caller streams the same handle (a file replaced by rename meanwhile is not seen) and checks
//! the hash again as it sends ([`SourceFile::expected`]), for a file rewritten in place.

use std::io::{Seek, SeekFrom};

use strata_core::{DocId, Error, Format, Result};
use strata_search::navigate;

use crate::Engine;

/// A document's source file, open at its start, its bytes those that were indexed.
#[derive(Debug)]
pub struct SourceFile {
    /// The document.
    pub id: DocId,
    /// Its format.
    pub format: Format,
    /// The blake3 of the bytes indexed, hex: what the file still hashes to, and its ETag.
    pub expected: String,
    /// Bytes.
    pub len: u64,
    /// The file, at offset 0.
    pub file: std::fs::File,
}

impl Engine {
    /// The source file of document `doc` (id or part of its path), opened, when it still
    /// holds the bytes that were indexed.
    pub fn source(&self, doc: &str) -> Result<SourceFile> {
        let snapshot = self.snapshot();
        let id = navigate::resolve_doc(snapshot.store(), doc)?;
        let stored = snapshot
            .store()
            .document_meta(&id)?
            .ok_or_else(|| Error::not_found(format!("document {id} was removed")))?;
        let source = stored.document.source;
        let path = &source.path;
        let read_error = |e: std::io::Error| Error::io(format!("reading the source of {id}, {path}"), e);
        let mut file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::not_found(format!("the source of {id}, {path}, is no longer on disk")));
            }
            Err(e) => return Err(read_error(e)),
        };
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader(&mut file).map_err(read_error)?;
        if hasher.finalize().to_hex().as_str() != source.content_hash {
            return Err(Error::not_found(format!(
                "the source of {id}, {path}, changed since it was indexed; ingest it again"
            )));
        }
        let len =
            file.seek(SeekFrom::End(0)).and_then(|len| file.rewind().map(|()| len)).map_err(read_error)?;
        Ok(SourceFile { id, format: source.format, expected: source.content_hash, len, file })
    }
}
