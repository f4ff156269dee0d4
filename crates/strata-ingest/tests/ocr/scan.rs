//! Scanned copies of PDF pages, made at test time: each page rendered by poppler's
//! `pdftoppm` to a gray JPEG (as a scanner writes it) and placed, alone, on a page of the
//! same size in a new PDF with no text layer. Pages of another PDF can be kept digital, for
//! mixed documents.

#![allow(dead_code)] // the CLI tests build mixed PDFs with `Part::Digital`

use std::path::Path;
use std::process::Command;

use lopdf::{dictionary, Document, Object, ObjectId, Stream};

/// Whether OCR can run here; without Tesseract or pdftoppm the test skips, saying why, and
/// under `STRATA_REQUIRE_OCR=1` (CI) it fails instead.
pub fn ocr_ready() -> bool {
    match strata_ingest::read::pdf::ocr::unavailable("eng") {
        None => true,
        Some(why) if std::env::var("STRATA_REQUIRE_OCR").is_ok_and(|v| v == "1") => {
            panic!("STRATA_REQUIRE_OCR=1 but {why}")
        }
        Some(why) => {
            eprintln!("skipping: {why}");
            false
        }
    }
}

/// A page of the new PDF: page `page` (1-based) of `source`, scanned or copied as it is.
pub enum Part<'a> {
    /// Rendered at `dpi` and kept as an image only.
    Scanned { source: &'a Path, page: u32, dpi: u32 },
    /// The page of this one-page PDF, with its text layer.
    Digital { source: &'a Path, page: u32 },
}

/// The pages of `source` rendered at `dpi`, in a PDF of images only.
pub fn image_only(source: &Path, pages: impl IntoIterator<Item = u32>, dpi: u32) -> Vec<u8> {
    let parts: Vec<Part> = pages.into_iter().map(|page| Part::Scanned { source, page, dpi }).collect();
    build(&parts)
}

/// A PDF of `parts`, in order.
pub fn build(parts: &[Part]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut kids = Vec::new();
    for part in parts {
        let page = match part {
            Part::Scanned { source, page, dpi } => scanned_page(&mut doc, pages_id, source, *page, *dpi),
            Part::Digital { source, page } => digital_page(&mut doc, pages_id, source, *page),
        };
        kids.push(Object::Reference(page));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing the scanned PDF");
    out
}

/// Renders one page to a gray JPEG; its bytes, width and height in pixels, and colour
/// space (poppler writes gray as three equal components).
fn jpeg(source: &Path, page: u32, dpi: u32) -> (Vec<u8>, i64, i64, &'static str) {
    let n = page.to_string();
    let out = Command::new("pdftoppm")
        .args([
            "-gray",
            "-hide-annotations",
            "-jpeg",
            "-jpegopt",
            "quality=85",
            "-r",
            &dpi.to_string(),
            "-f",
            &n,
            "-l",
            &n,
        ])
        .arg(source)
        .output()
        .expect("pdftoppm (poppler-utils) runs");
    assert!(
        out.status.success() && !out.stdout.is_empty(),
        "pdftoppm failed on page {page}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, components) = jpeg_size(&out.stdout).expect("a JPEG with a frame header");
    (out.stdout, w, h, if components == 1 { "DeviceGray" } else { "DeviceRGB" })
}

/// Width, height and components from a JPEG's first start-of-frame marker.
fn jpeg_size(b: &[u8]) -> Option<(i64, i64, u8)> {
    let mut i = 2;
    while i + 9 < b.len() {
        if b[i] != 0xFF {
            return None;
        }
        let marker = b[i + 1];
        let len = u16::from_be_bytes([b[i + 2], b[i + 3]]) as usize;
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let h = u16::from_be_bytes([b[i + 5], b[i + 6]]) as i64;
            let w = u16::from_be_bytes([b[i + 7], b[i + 8]]) as i64;
            return Some((w, h, b[i + 9]));
        }
        i += 2 + len;
    }
    None
}

fn scanned_page(doc: &mut Document, parent: ObjectId, source: &Path, page: u32, dpi: u32) -> ObjectId {
    let (bytes, w, h, space) = jpeg(source, page, dpi);
    let image = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => w, "Height" => h,
            "ColorSpace" => space, "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        bytes,
    ));
    let (pw, ph) = (w as f32 * 72.0 / dpi as f32, h as f32 * 72.0 / dpi as f32);
    let content = format!("q {pw} 0 0 {ph} 0 0 cm /Scan Do Q");
    let content = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => parent, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), pw.into(), ph.into()],
        "Resources" => dictionary! { "XObject" => dictionary! { "Scan" => image } },
    })
}

/// Copies page `page` of `source` (with what it uses) into `doc`.
fn digital_page(doc: &mut Document, parent: ObjectId, source: &Path, page: u32) -> ObjectId {
    let mut src = Document::load(source).expect("the digital source loads");
    let keep = src.get_pages()[&page];
    let others: Vec<u32> = src.get_pages().keys().copied().filter(|&n| n != page).collect();
    src.delete_pages(&others);
    src.prune_objects();
    src.renumber_objects_with(doc.max_id + 1);
    let keep = src.get_pages().values().next().copied().unwrap_or(keep);
    doc.max_id = src.max_id;
    // Inherited attributes (MediaBox, Resources) are copied onto the page itself.
    let mut dict = src.get_dictionary(keep).expect("the page").clone();
    for key in [b"MediaBox".as_slice(), b"Resources", b"CropBox", b"Rotate"] {
        if !dict.has(key) {
            if let Some(v) = inherited(&src, keep, key) {
                dict.set(key, v);
            }
        }
    }
    dict.set("Parent", parent);
    for (id, object) in src.objects {
        doc.objects.insert(id, object);
    }
    doc.objects.insert(keep, Object::Dictionary(dict));
    keep
}

fn inherited(doc: &Document, page: ObjectId, key: &[u8]) -> Option<Object> {
    let mut dict = doc.get_dictionary(page).ok()?;
    for _ in 0..32 {
        if let Ok(v) = dict.get(key) {
            return Some(v.clone());
        }
        dict = doc.get_dictionary(dict.get(b"Parent").ok()?.as_reference().ok()?).ok()?;
    }
    None
}
