//! Tesseract's words to the glyphs the layout stages read, in points of the page as
//! displayed.
//!
//! Each word becomes one glyph whose text is the word: `layout` then joins the words of a
//! baseline into segments (the gap between two words is wider than its space threshold), and
//! everything after it (columns, lines, furniture, tables, paragraphs, headings) works on
//! OCR'd pages as on digital ones. What a text layer says and a scan does not is estimated
//! from the image:
//!
//! - **size**: the height of the word's line above its baseline (ascenders and capitals) is
//!   [`ASCENT`] of the font size; rounded to half a point so that the lines of one font
//!   compare equal, as the heading and paragraph stages expect;
//! - **bold**: the mean horizontal run of ink (stroke width) over the font size, against the
//!   page's median; [`BOLD`] times it or more is bold;
//! - **font**: one number for all OCR'd text, [`OCR_FONT`], so no digital font is confused
//!   with it.
//!
//! Words Tesseract is less than [`MIN_CONFIDENCE`] sure of are left out: on a scan they are
//! nearly always figures, rules or specks read as letters. Section numbers are kept whatever
//! their confidence: set apart from their title by a wide gap, `B.2.2.` is read right but
//! scored 10 or even 0 (NIST SP 800-207, appendix B).

use super::super::content::Glyph;
use super::hocr::Word;
use super::tesseract::Gray;

/// Ascender height over font size.
const ASCENT: f32 = 0.7;
/// Stroke width, relative to the page's median, from which a word is bold.
const BOLD: f32 = 1.3;
/// Lowest word confidence kept (Tesseract's 0–100).
const MIN_CONFIDENCE: f32 = 30.0;
/// The font number of OCR'd text.
pub(crate) const OCR_FONT: u32 = u32::MAX;
/// Gray levels under this are ink.
const INK: u8 = 128;

/// A page read by OCR.
#[derive(Debug, Clone, Default)]
pub(crate) struct OcrPage {
    /// Its words as glyphs, in Tesseract's reading order.
    pub glyphs: Vec<Glyph>,
    /// The mean confidence of the words kept, 0–100 (0 when there are none).
    pub confidence: f32,
}

/// The glyphs of a page image rendered at `dpi` whose displayed height is `height` points.
pub(crate) fn glyphs(words: &[Word], image: &Gray, dpi: u32, height: f32) -> OcrPage {
    let scale = 72.0 / dpi as f32;
    let kept: Vec<&Word> =
        words.iter().filter(|w| w.confidence >= MIN_CONFIDENCE || section_number(&w.text)).collect();
    let strokes: Vec<f32> = kept.iter().map(|w| stroke(image, w)).collect();
    let mut sorted: Vec<f32> = strokes.iter().copied().filter(|s| *s > 0.0).collect();
    sorted.sort_by(f32::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    let glyphs = kept
        .iter()
        .zip(&strokes)
        .map(|(w, s)| Glyph {
            text: w.text.clone(),
            x0: w.bbox[0] as f32 * scale,
            x1: w.bbox[2] as f32 * scale,
            y: height - w.baseline as f32 * scale,
            size: size_of(w, scale),
            bold: median > 0.0 && *s >= BOLD * median,
            font: OCR_FONT,
            rotated: false,
        })
        .collect();
    let confidence = if kept.is_empty() {
        0.0
    } else {
        kept.iter().map(|w| w.confidence).sum::<f32>() / kept.len() as f32
    };
    OcrPage { glyphs, confidence }
}

/// `3.1`, `B.2.2.`: capitals or digits joined by periods, with a digit.
fn section_number(word: &str) -> bool {
    word.len() <= 16
        && word.contains('.')
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || c == '.')
}

/// The font size of a word's line, in points, to half a point.
fn size_of(w: &Word, scale: f32) -> f32 {
    let ascent = (w.baseline - w.line_top).max(w.baseline - w.bbox[1]).max(1) as f32 * scale;
    ((ascent / ASCENT) * 2.0).round() / 2.0
}

/// Mean horizontal run of ink in the word's box over its font size in pixels; 0 when the
/// box holds no ink.
fn stroke(image: &Gray, w: &Word) -> f32 {
    let [l, t, r, b] = w.bbox.map(|v| v.max(0) as usize);
    let (r, b) = (r.min(image.width), b.min(image.height));
    let (mut ink, mut runs) = (0usize, 0usize);
    for y in t..b {
        let row = &image.pixels[y * image.width + l.min(r)..y * image.width + r];
        let mut inside = false;
        for &p in row {
            let dark = p < INK;
            ink += dark as usize;
            runs += (dark && !inside) as usize;
            inside = dark;
        }
    }
    let em = ((w.baseline - w.line_top).max(1) as f32) / ASCENT;
    if runs == 0 {
        0.0
    } else {
        ink as f32 / runs as f32 / em
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white image with black vertical strokes `width` pixels wide in the box.
    fn strokes(width: usize) -> Gray {
        let (w, h) = (200, 40);
        let mut pixels = vec![255u8; w * h];
        for y in 10..30 {
            for x in (10..190).step_by(10) {
                for dx in 0..width {
                    pixels[y * w + x + dx] = 0;
                }
            }
        }
        Gray { width: w, height: h, pixels }
    }

    fn word(text: &str, confidence: f32) -> Word {
        Word { text: text.into(), bbox: [10, 10, 190, 30], line_top: 10, baseline: 30, confidence }
    }

    #[test]
    fn boxes_become_points_from_the_foot_of_the_page() {
        let page = glyphs(&[word("Scope", 90.0)], &strokes(2), 144, 100.0);
        let g = &page.glyphs[0];
        assert_eq!((g.x0, g.x1, g.y), (5.0, 95.0, 85.0));
        // 20 px of ascent at 144 dpi is 10 pt, 0.7 of a 14.5 pt font (to half a point).
        assert_eq!(g.size, 14.5);
        assert_eq!((g.font, page.confidence), (OCR_FONT, 90.0));
    }

    #[test]
    fn unsure_words_are_left_out_and_not_averaged() {
        let page = glyphs(&[word("a", 80.0), word("~~", 10.0)], &strokes(2), 300, 100.0);
        assert_eq!(page.glyphs.len(), 1);
        assert_eq!(page.confidence, 80.0);
    }

    #[test]
    fn section_numbers_are_kept_however_unsure() {
        let page = glyphs(
            &[word("B.2.2.", 10.0), word("B2", 10.0), word("1.", 0.0), word("a.b", 5.0)],
            &strokes(2),
            300,
            100.0,
        );
        let kept: Vec<&str> = page.glyphs.iter().map(|g| g.text.as_str()).collect();
        assert_eq!(kept, ["B.2.2.", "1."]);
    }

    #[test]
    fn thicker_strokes_than_the_page_are_bold() {
        let thin = strokes(2);
        let thick = strokes(4);
        assert!(stroke(&thick, &word("b", 90.0)) >= BOLD * stroke(&thin, &word("b", 90.0)));
    }
}
