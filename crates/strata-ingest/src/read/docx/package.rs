//! The container: a DOCX file is an OPC package, a zip of XML parts. This file opens the zip,
//! finds the parts by their relationships, and reads each one under a size cap.
//!
//! Refusals are [`ReadError::Malformed`] with a message that says what the file is and what
//! to do, because the usual causes are the user's to fix: a password-protected document (an
//! OLE compound file, not a zip), a Word 97–2003 `.doc` renamed `.docx`, another zip format
//! renamed, or a damaged download.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use zip::result::ZipError;
use zip::ZipArchive;

use super::xml::{self, RELS};
use crate::read::ReadError;

/// The most uncompressed bytes read from one file's parts, all parts together. Deflate
/// compresses runs of the same byte about 1000:1, so a 64 MiB upload (the default
/// `ingest.max_file_bytes`) could otherwise claim terabytes. 256 MiB is far above the XML of
/// any real document (a 1,500-page Word file has about 40 MiB of `document.xml`), and the
/// reader does not see the configuration, so the cap is fixed.
pub const MAX_UNZIPPED_BYTES: u64 = 256 * 1024 * 1024;

/// The signature of an OLE compound file (`D0 CF 11 E0 A1 B1 1A E1`).
const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// The relationship type of the main document part (Transitional and Strict end alike).
const OFFICE_DOCUMENT: &str = "/officeDocument";

/// An opened package: the zip and a case-insensitive index of its part names (OPC part
/// names are case-insensitive; Word writes `word/document.xml`, other tools vary).
pub(super) struct Package<'b> {
    zip: ZipArchive<Cursor<&'b [u8]>>,
    names: HashMap<String, String>,
    /// Uncompressed bytes read so far, against [`MAX_UNZIPPED_BYTES`].
    read: u64,
    limit: u64,
}

/// The parts a reader needs, located through the relationships.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Parts {
    pub document: String,
    pub styles: Option<String>,
    pub numbering: Option<String>,
    pub footnotes: Option<String>,
    pub core: Option<String>,
}

impl<'b> Package<'b> {
    /// Opens the zip, or says why these bytes are not a DOCX package. Its parts may unzip
    /// to `limit` bytes in all ([`MAX_UNZIPPED_BYTES`]; tests use less).
    pub(super) fn open(bytes: &'b [u8], limit: u64) -> Result<Package<'b>, ReadError> {
        if bytes.is_empty() {
            return Err(ReadError::Empty);
        }
        if bytes.starts_with(&OLE_MAGIC) {
            return Err(ole_error(bytes));
        }
        if !bytes.starts_with(b"PK") {
            return Err(ReadError::Malformed(
                "this .docx is not a zip archive (it does not start with \"PK\"); a DOCX file is a zip \
                 of XML parts: check that the file is a Word document and was copied completely, or \
                 open it in Word or LibreOffice and save it as .docx"
                    .into(),
            ));
        }
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            ReadError::Malformed(format!(
                "this .docx is a damaged zip archive ({e}); the download or copy may be truncated: \
                 get the file again, or open it in Word (which offers to repair it) and save it again"
            ))
        })?;
        let names = zip.file_names().flatten().map(|n| (normalize_name(&n), n.into_owned())).collect();
        Ok(Package { zip, names, read: 0, limit })
    }

    /// Whether the package has a part of this name (case-insensitive).
    pub(super) fn has(&self, name: &str) -> bool {
        self.names.contains_key(&normalize_name(name))
    }

    /// Reads one part as text, or `None` when the package has no such part. Counts against
    /// the cap on uncompressed bytes.
    pub(super) fn part(&mut self, name: &str) -> Result<Option<String>, PartError> {
        let Some(real) = self.names.get(&normalize_name(name)).cloned() else {
            return Ok(None);
        };
        let remaining = self.limit.saturating_sub(self.read);
        let mut file = match self.zip.by_name(&real) {
            Ok(file) => file,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(ZipError::UnsupportedArchive(ZipError::PASSWORD_REQUIRED)) => {
                return Err(PartError::fatal(zip_password(&real)))
            }
            Err(e) => return Err(PartError::damaged(part_error(&real, &e.to_string()))),
        };
        if file.encrypted() {
            return Err(PartError::fatal(zip_password(&real)));
        }
        // The declared size can lie; `take` enforces the cap whatever the header says.
        if file.size() > remaining {
            return Err(PartError::fatal(too_big(&real, self.limit)));
        }
        let mut buf = Vec::with_capacity(file.size().min(remaining) as usize);
        (&mut file)
            .take(remaining + 1)
            .read_to_end(&mut buf)
            .map_err(|e| PartError::damaged(part_error(&real, &e.to_string())))?;
        if buf.len() as u64 > remaining {
            return Err(PartError::fatal(too_big(&real, self.limit)));
        }
        self.read += buf.len() as u64;
        decode_xml(&real, buf).map(Some).map_err(PartError::damaged)
    }

    /// Locates the parts: the main document from `_rels/.rels`, the others from the main
    /// document's relationships, each falling back to Word's usual name when the
    /// relationships are missing or say nothing.
    pub(super) fn parts(&mut self) -> Result<Parts, ReadError> {
        let package_rels = self.relationships("_rels/.rels", "")?;
        let document = package_rels
            .iter()
            .find(|(ty, target)| ty.ends_with(OFFICE_DOCUMENT) && self.has(target))
            .map(|(_, target)| target.clone())
            .or_else(|| self.has("word/document.xml").then(|| "word/document.xml".to_string()))
            .ok_or_else(|| self.missing_document())?;
        let core = package_rels
            .iter()
            .find(|(ty, target)| ty.ends_with("/core-properties") && self.has(target))
            .map(|(_, target)| target.clone())
            .or_else(|| self.has("docProps/core.xml").then(|| "docProps/core.xml".to_string()));
        let (folder, file) = document.rsplit_once('/').unwrap_or(("", document.as_str()));
        let rels = self.relationships(&format!("{folder}{}_rels/{file}.rels", slash(folder)), folder)?;
        let find = |suffix: &str, default: &str| {
            rels.iter()
                .find(|(ty, target)| ty.ends_with(suffix) && self.has(target))
                .map(|(_, target)| target.clone())
                .or_else(|| {
                    let fallback = format!("{folder}{}{default}", slash(folder));
                    self.has(&fallback).then_some(fallback)
                })
        };
        let styles = find("/styles", "styles.xml");
        let numbering = find("/numbering", "numbering.xml");
        let footnotes = find("/footnotes", "footnotes.xml");
        Ok(Parts { document, styles, numbering, footnotes, core })
    }

    /// `(type, target part name)` of each relationship in a `.rels` part; targets resolved
    /// against `base` (the folder of the source part). A missing or unreadable `.rels` part is
    /// no relationships: the fallbacks above still find Word's usual names.
    fn relationships(&mut self, rels: &str, base: &str) -> Result<Vec<(String, String)>, ReadError> {
        let text = match self.part(rels) {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(Vec::new()),
            Err(e) if e.damaged => return Ok(Vec::new()),
            Err(e) => return Err(e.error),
        };
        let Ok(doc) = xml::parse(&text) else {
            return Ok(Vec::new());
        };
        Ok(doc
            .descendants()
            .filter(|n| xml::is(*n, RELS, "Relationship"))
            .filter(|n| n.attribute("TargetMode") != Some("External"))
            .filter_map(|n| Some((n.attribute("Type")?.to_string(), resolve(base, n.attribute("Target")?))))
            .collect())
    }

    /// The error for a package without a main document, naming what the zip looks like.
    fn missing_document(&self) -> ReadError {
        let what = if self.has("content.xml") && self.has("mimetype") {
            "it looks like an OpenDocument file (.odt) renamed .docx; open it in LibreOffice and save \
             it as Word (.docx), or index the original"
        } else if self.has("xl/workbook.xml") || self.has("ppt/presentation.xml") {
            "it looks like an Excel or PowerPoint file renamed .docx; strata reads Word documents only"
        } else {
            "it is a zip but not a Word document; open it in Word or LibreOffice and save it as .docx"
        };
        ReadError::Malformed(format!("this .docx has no word/document.xml: {what}"))
    }
}

/// A part that could not be read. `damaged` parts (a bad checksum, bytes that are not text)
/// cost only what they hold when the part is optional; the others (the size cap, a zip
/// password) refuse the whole file.
#[derive(Debug)]
pub(super) struct PartError {
    pub error: ReadError,
    pub damaged: bool,
}

impl PartError {
    fn fatal(error: ReadError) -> PartError {
        PartError { error, damaged: false }
    }

    fn damaged(error: ReadError) -> PartError {
        PartError { error, damaged: true }
    }
}

impl From<PartError> for ReadError {
    fn from(e: PartError) -> ReadError {
        e.error
    }
}

/// Why an OLE compound file is not readable: the directory names its streams in UTF-16, so
/// an encrypted OOXML package (`EncryptedPackage`) and a legacy Word file (`WordDocument`)
/// can be told apart without an OLE parser.
fn ole_error(bytes: &[u8]) -> ReadError {
    let utf16 = |s: &str| s.encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>();
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    let message = if contains(&utf16("EncryptedPackage")) {
        "this .docx is password-protected (encrypted, stored as an OLE compound file); strata cannot \
         read encrypted documents: open it in Word, remove the password (File > Info > Protect \
         Document > Encrypt with Password, clear the box) and save, then index it again"
    } else if contains(&utf16("WordDocument")) {
        "this .docx is a Word 97-2003 .doc file with the wrong extension; open it in Word or \
         LibreOffice and save it as .docx (Word Document), then index it again"
    } else {
        "this .docx is an OLE compound file, not a zip: either password-protected (encrypted) or a \
         Word 97-2003 .doc renamed; remove the password or save it as .docx in Word, then index it again"
    };
    ReadError::Malformed(message.into())
}

fn zip_password(part: &str) -> ReadError {
    ReadError::Malformed(format!(
        "the part {part} of this .docx is encrypted with a zip password, which Word never does; unzip \
         it with the password and zip it again without one"
    ))
}

fn too_big(part: &str, limit: u64) -> ReadError {
    ReadError::Malformed(format!(
        "the parts of this .docx unzip to more than {} MiB ({part} passes the limit); this is either a \
         zip bomb or a document far larger than any real one: split the document, or save it again \
         from Word with pictures compressed",
        limit / (1024 * 1024)
    ))
}

fn part_error(part: &str, why: &str) -> ReadError {
    ReadError::Malformed(format!(
        "cannot unzip {part} from this .docx ({why}); the file is damaged: get it again, or open it in \
         Word (which offers to repair it) and save it again"
    ))
}

/// Part bytes to text: UTF-8 (BOM dropped) or UTF-16 with a BOM, the encodings XML allows
/// without a declaration that says otherwise.
fn decode_xml(part: &str, buf: Vec<u8>) -> Result<String, ReadError> {
    let utf16 = |bytes: &[u8], le: bool| {
        let units = bytes.chunks_exact(2).map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units).collect::<Result<String, _>>().ok()
    };
    let text = if let Some(rest) = buf.strip_prefix(b"\xFF\xFE") {
        utf16(rest, true)
    } else if let Some(rest) = buf.strip_prefix(b"\xFE\xFF") {
        utf16(rest, false)
    } else {
        let start = if buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        match String::from_utf8(buf) {
            Ok(mut s) => {
                s.drain(..start);
                Some(s)
            }
            Err(_) => None,
        }
    };
    text.ok_or_else(|| {
        ReadError::Malformed(format!(
            "{part} in this .docx is not valid UTF-8 or UTF-16 text; the file is damaged: open it in \
             Word (which offers to repair it) and save it again"
        ))
    })
}

/// Lowercase, without a leading `/`: the key of a part name.
fn normalize_name(name: &str) -> String {
    name.trim_start_matches('/').to_lowercase()
}

fn slash(folder: &str) -> &'static str {
    if folder.is_empty() {
        ""
    } else {
        "/"
    }
}

/// A relationship target as a part name: absolute (`/word/x.xml`) or relative to `base`,
/// with `.` and `..` segments resolved.
fn resolve(base: &str, target: &str) -> String {
    let joined = if let Some(absolute) = target.strip_prefix('/') {
        absolute.to_string()
    } else if base.is_empty() {
        target.to_string()
    } else {
        format!("{base}/{target}")
    };
    let mut segments: Vec<&str> = Vec::new();
    for segment in joined.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    segments.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_against_their_folder() {
        assert_eq!(resolve("", "word/document.xml"), "word/document.xml");
        assert_eq!(resolve("word", "styles.xml"), "word/styles.xml");
        assert_eq!(resolve("word", "/customXml/item1.xml"), "customXml/item1.xml");
        assert_eq!(resolve("word/sub", "../media/a.png"), "word/media/a.png");
        assert_eq!(resolve("", "../../x.xml"), "x.xml");
    }

    #[test]
    fn utf16_parts_decode() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("<a/>".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(decode_xml("p", bytes).unwrap(), "<a/>");
        assert_eq!(decode_xml("p", b"\xEF\xBB\xBF<a/>".to_vec()).unwrap(), "<a/>");
        assert!(decode_xml("p", vec![0xC3]).is_err());
    }
}
