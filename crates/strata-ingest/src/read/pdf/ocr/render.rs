//! Pages to gray images, with poppler's `pdftoppm`.
//!
//! Chosen by measurement (`bench/results/ocr.md`): rendering a page at 300 dpi takes
//! poppler a few hundredths of a second, a hundredth of what Tesseract then spends on it, so
//! the renderer is not what OCR waits on; `pdftoppm` is a Debian package (`poppler-utils`)
//! next to `tesseract-ocr`, needs no library bound at build time, and a crash on a hostile
//! page costs that page only, in another process. It writes one page at a time to a pipe
//! as 8-bit gray PGM, so memory holds one page image per OCR worker (8.4 MB for a Letter
//! page at 300 dpi).

use std::process::{Command, Stdio};
use std::time::Duration;

use super::child;
use super::source::Source;
use super::tesseract::Gray;

/// The program.
const PDFTOPPM: &str = "pdftoppm";

/// Whether `pdftoppm` runs here.
pub(crate) fn available() -> bool {
    Command::new(PDFTOPPM).arg("-v").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Renders page `number` (1-based, in document order) of `pdf` at `dpi`, as displayed
/// (crop box, rotation), in 8-bit gray; the error says what went wrong. The image is read
/// from the pipe up to `max_pixels` (and its header), and `pdftoppm` is killed when it
/// writes more or takes longer than `deadline`.
pub(crate) fn page(
    pdf: &Source,
    number: u32,
    dpi: u32,
    max_pixels: u64,
    deadline: Duration,
) -> Result<Gray, String> {
    let n = number.to_string();
    let mut command = Command::new(PDFTOPPM);
    command.args(["-gray", "-r", &dpi.to_string(), "-f", &n, "-l", &n]).arg(pdf.path());
    pdf.share_with(&mut command);
    let cap = max_pixels.saturating_add(HEADER_BYTES);
    let done = child::run(command, cap, deadline)
        .map_err(|f| f.message("pdftoppm", "render it", "ocr_render_seconds", deadline))?;
    if done.stdout.len() as u64 > cap {
        return Err(format!(
            "pdftoppm wrote more than {max_pixels} pixels of it ([ingest] ocr_max_page_pixels)"
        ));
    }
    if !done.status.success() {
        let err = String::from_utf8_lossy(&done.stderr);
        return Err(format!("pdftoppm failed ({}): {}", done.status, err.trim()));
    }
    pgm(done.stdout).ok_or_else(|| "pdftoppm wrote no image".to_string())
}

/// Room for a PGM header before the pixels.
const HEADER_BYTES: u64 = 1024;

/// Parses a binary 8-bit PGM (`P5`): its pixels are the buffer read, header cut off, not a
/// copy of it (a page image is up to `[ingest] ocr_max_page_pixels` bytes).
fn pgm(mut bytes: Vec<u8>) -> Option<Gray> {
    let (width, height, at) = pgm_header(&bytes)?;
    let size = width.checked_mul(height)?;
    if bytes.len() < at.checked_add(size)? {
        return None;
    }
    bytes.truncate(at + size);
    bytes.drain(..at);
    Some(Gray { width, height, pixels: bytes })
}

/// A `P5` header's width and height, 8 bits a pixel, and where its raster starts.
fn pgm_header(bytes: &[u8]) -> Option<(usize, usize, usize)> {
    let mut fields = Vec::with_capacity(4);
    let mut at = 0;
    while fields.len() < 4 {
        while bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        if bytes[at] == b'#' {
            while *bytes.get(at)? != b'\n' {
                at += 1;
            }
            continue;
        }
        let start = at;
        while !bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&bytes[start..at]).ok()?);
    }
    let (width, height): (usize, usize) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
    // The raster starts after the single whitespace byte that ends the header.
    (fields[0] == "P5" && fields[3] == "255").then_some((width, height, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgm_header_with_comment_is_read() {
        let g = pgm(b"P5\n# made here\n3 2\n255\n\x00\x01\x02\x03\x04\x05".to_vec()).unwrap();
        assert_eq!((g.width, g.height, g.pixels), (3, 2, vec![0, 1, 2, 3, 4, 5]));
        assert!(pgm(b"P5\n3 2\n255\n\x00\x01".to_vec()).is_none(), "a short raster is refused");
        assert!(pgm(b"P6\n1 1\n255\n\x00\x00\x00".to_vec()).is_none(), "colour is refused");
    }
}
