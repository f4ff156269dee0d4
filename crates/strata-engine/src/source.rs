//! A document's source file, as it was indexed: what a front-end shows beside the text strata
//! read from it (the web page renders a PDF's pages from it).
//!
//! The index keeps the source's path and the blake3 of its bytes, not the bytes. The file is
//! opened from that path and given out only while its hash still matches: a file changed or
//! replaced since it was indexed would show pages that the citations do not describe. The
//! hash is taken by streaming the open file, so a request holds one buffer, not the file; the
//! caller streams the same handle (a file replaced by rename meanwhile is not seen) and checks
//! the hash again as it sends ([`SourceFile::expected`]), for a file rewritten in place.

use std::io::{Read, Seek};

use strata_core::{DocId, Error, Format, Result, Source};
use strata_ingest::open::{self, OpenError};
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
    /// Bytes, as recorded at ingest: a reader sends no more than this.
    pub len: u64,
    /// The file, at offset 0.
    pub file: std::fs::File,
}

impl Engine {
    /// The source file of document `doc` (id or part of its path), opened, when it still
    /// holds the bytes that were indexed.
    ///
    /// The file is opened once ([`open::open`]: never blocking, regular files only) and
    /// checked as opened: its real path must be the path recorded at ingest (a symlink put
    /// in its place is refused, whatever it points to) and its size the size recorded, so
    /// that hashing it reads at most that many bytes, even from a device.
    pub fn source(&self, doc: &str) -> Result<SourceFile> {
        let snapshot = self.snapshot();
        let id = navigate::resolve_doc(snapshot.store(), doc)?;
        let stored = snapshot
            .store()
            .document_meta(&id)?
            .ok_or_else(|| Error::not_found(format!("document {id} was removed")))?;
        let source = stored.document.source;
        let path = &source.path;
        let mut opened = match open::open(&Source::file_path(path)) {
            Ok(opened) => opened,
            Err(OpenError::Missing) => {
                return Err(Error::not_found(format!("the source of {id}, {path}, is no longer on disk")));
            }
            Err(e @ (OpenError::NotRegular(_) | OpenError::Replaced)) => {
                return Err(Error::conflict(format!("the source of {id}, {path}: {e}; nothing is served")));
            }
            Err(e) => return Err(Error::read(path, e.to_string())),
        };
        if Source::path_of(&opened.real) != *path {
            return Err(Error::conflict(format!(
                "the source of {id}, {path}, is now a link to another file; nothing is served \
                 (ingest the file itself again to serve it)"
            )));
        }
        let changed = || {
            Error::not_found(format!(
                "the source of {id}, {path}, changed since it was indexed; ingest it again"
            ))
        };
        if opened.meta.len() != source.size {
            return Err(changed());
        }
        let read_error = |e: std::io::Error| Error::io(format!("reading the source of {id}, {path}"), e);
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader((&mut opened.file).take(source.size)).map_err(read_error)?;
        if hasher.finalize().to_hex().as_str() != source.content_hash {
            return Err(changed());
        }
        opened.file.rewind().map_err(read_error)?;
        Ok(SourceFile {
            id,
            format: source.format,
            expected: source.content_hash,
            len: source.size,
            file: opened.file,
        })
    }
}
