//! OCR'd pages cached by page hash, so that a re-ingest (`--force`, an edited file, the same
//! scan inside another file) does not OCR a page again.
//!
//! A page's key is blake3 of what it draws and how it is read:
//!
//! - the page: the entries of its dictionary that say what it draws ([`DRAWN`]: content
//!   streams and images as stored, fonts, forms, boxes, rotation) and every object they
//!   reach, and the ones it inherits from its page tree; not its annotations, links or
//!   metadata, so that the rest of the document does not change the key;
//! - the rendering resolution, the Tesseract languages and Tesseract's version;
//! - [`FORMAT`], the version of what is cached (bumped when the words-to-glyphs stage
//!   changes what it makes of the same words, or the words are read another way: `@2` reads
//!   them from the `tesseract` program's hOCR, whole-number confidences).
//!
//! The value is the page's glyphs and mean confidence as JSON; floats print exactly, so a
//! cached page reads exactly as it was first read.
//!
//! The store keeps the entries with the model-written contexts (`StoreRead::cached_contexts`
//! in `strata-index`): they outlive their document, so a file removed and ingested again,
//! or copied under another name, finds them.

use std::collections::{HashMap, HashSet};

use lopdf::{Document, Object, ObjectId};
use serde::{Deserialize, Serialize};

use super::super::content::Glyph;
use super::words::{OcrPage, OCR_FONT};
use super::OcrOptions;

/// Version of the cached value; part of every key.
const FORMAT: &str = "ocr-page@2";

/// Most objects hashed for one page; a page reaching more (a hostile file) hashes the first
/// this many, in a fixed order.
const MAX_OBJECTS: usize = 100_000;

/// The entries of a page dictionary that say what it draws (PDF 32000-1, table 30).
const DRAWN: [&[u8]; 7] =
    [b"Contents", b"Resources", b"MediaBox", b"CropBox", b"Rotate", b"UserUnit", b"Group"];

/// Those a page inherits from its page tree, hashed from the nearest ancestor that has them.
const INHERITED: [&[u8]; 4] = [b"Resources", b"MediaBox", b"CropBox", b"Rotate"];

/// Pages OCR'd earlier, by key. The ingest driver backs it with the index: it looks keys up
/// in the last commit and writes the pages `put` here with its next commit.
pub trait PageCache: Send + Sync {
    /// The cached values among `keys`; keys not cached are absent. A cache that cannot be
    /// read answers nothing (the pages are OCR'd again).
    fn get(&self, keys: &[String]) -> HashMap<String, String>;

    /// Keeps a page just OCR'd.
    fn put(&self, key: String, value: String);
}

/// The cache key of page `page` of `doc` OCR'd with `options` by Tesseract `version`.
pub(crate) fn key(doc: &Document, page: ObjectId, options: &OcrOptions, version: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [FORMAT, version, options.languages.as_str(), &options.dpi.to_string()] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hash_page(doc, page, &mut h);
    h.finalize().to_hex()[..32].to_string()
}

/// Hashes the page dictionary `page` and what it reaches, then what it inherits.
fn hash_page(doc: &Document, page: ObjectId, h: &mut blake3::Hasher) {
    let mut walk = Walk { doc, seen: HashSet::new(), h };
    let mut at = Some(page);
    let mut wanted: Vec<&[u8]> = DRAWN.to_vec();
    // A page tree deeper than 32 is malformed; its deeper attributes are not hashed.
    for _ in 0..32 {
        let Some(dict) = at.and_then(|id| doc.get_dictionary(id).ok()) else { break };
        for (k, v) in dict.iter().filter(|(k, _)| wanted.contains(&k.as_slice())) {
            walk.name(k);
            walk.object(v);
        }
        // What the page (or a nearer ancestor) has is not inherited from further up.
        wanted.retain(|k| INHERITED.contains(k) && !dict.has(k));
        at = dict.get(b"Parent").and_then(Object::as_reference).ok();
    }
}

/// A depth-first hash of objects, each indirect object once.
struct Walk<'a> {
    doc: &'a Document,
    seen: HashSet<ObjectId>,
    h: &'a mut blake3::Hasher,
}

impl Walk<'_> {
    fn bytes(&mut self, tag: u8, b: &[u8]) {
        self.h.update(&[tag]);
        self.h.update(&(b.len() as u64).to_le_bytes());
        self.h.update(b);
    }

    fn name(&mut self, n: &[u8]) {
        self.bytes(b'/', n);
    }

    fn object(&mut self, root: &Object) {
        let mut stack = vec![root];
        while let Some(o) = stack.pop() {
            match o {
                Object::Null => self.bytes(b'z', &[]),
                Object::Boolean(b) => self.bytes(b'b', &[*b as u8]),
                Object::Integer(i) => self.bytes(b'i', &i.to_le_bytes()),
                Object::Real(r) => self.bytes(b'r', &r.to_le_bytes()),
                Object::Name(n) => self.name(n),
                Object::String(s, _) => self.bytes(b's', s),
                Object::Array(items) => {
                    self.bytes(b'[', &(items.len() as u64).to_le_bytes());
                    stack.extend(items.iter().rev());
                }
                Object::Dictionary(d) => self.dictionary(d, &mut stack),
                Object::Stream(s) => {
                    self.bytes(b'S', &s.content);
                    self.dictionary(&s.dict, &mut stack);
                }
                Object::Reference(id) => {
                    // Each object once (cycles, shared fonts), and a bound on what one page costs.
                    if self.seen.len() >= MAX_OBJECTS || !self.seen.insert(*id) {
                        self.bytes(b'R', &[]);
                    } else if let Ok(target) = self.doc.get_object(*id) {
                        stack.push(target);
                    }
                }
            }
        }
    }

    /// Hashes the keys now and queues their values (in reverse, so they pop in order).
    fn dictionary<'d>(&mut self, d: &'d lopdf::Dictionary, stack: &mut Vec<&'d Object>) {
        // A form or image never needs its `/Parent`; following one would reach the page tree.
        let kept: Vec<(&Vec<u8>, &Object)> = d.iter().filter(|(k, _)| k.as_slice() != b"Parent").collect();
        self.bytes(b'<', &(kept.len() as u64).to_le_bytes());
        for (k, _) in &kept {
            self.name(k);
        }
        stack.extend(kept.iter().rev().map(|(_, v)| *v));
    }
}

/// A cached page as stored: the words as glyphs (text, x0, x1, baseline y, size, bold) and
/// the mean confidence.
#[derive(Serialize, Deserialize)]
struct Stored {
    glyphs: Vec<(String, f32, f32, f32, f32, bool)>,
    confidence: f32,
}

/// A page as its cached value.
pub(crate) fn encode(page: &OcrPage) -> String {
    let glyphs = page.glyphs.iter().map(|g| (g.text.clone(), g.x0, g.x1, g.y, g.size, g.bold)).collect();
    serde_json::to_string(&Stored { glyphs, confidence: page.confidence }).unwrap_or_default()
}

/// A cached value as a page; `None` when it does not parse (it is then OCR'd again).
pub(crate) fn decode(value: &str) -> Option<OcrPage> {
    let stored: Stored = serde_json::from_str(value).ok()?;
    let glyphs = stored
        .glyphs
        .into_iter()
        .map(|(text, x0, x1, y, size, bold)| Glyph {
            text,
            x0,
            x1,
            y,
            size,
            bold,
            font: OCR_FONT,
            rotated: false,
        })
        .collect();
    Some(OcrPage { glyphs, confidence: stored.confidence })
}
