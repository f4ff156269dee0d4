//! Tesseract's hOCR output to words with their boxes, baselines and confidences.
//!
//! hOCR is the one output of the `tesseract` program that gives each text line's baseline.
//! Tesseract 5 writes every element on a line of its own, its properties in the `title`
//! attribute (`bbox l t r b; baseline p1 p0; …` on a line, `bbox l t r b; x_wconf c` on a
//! word), and escapes the word's text as XML. The baseline is `y = p1 · (x − l) + p0 + b`
//! in the line's box (its bottom left is the origin), from the same two points that the C
//! API's `Baseline` gives.

/// A word Tesseract read, in pixels of the image (origin top left).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub text: String,
    /// Left, top, right, bottom of the word's box.
    pub bbox: [i32; 4],
    /// Top of the word's text line's box.
    pub line_top: i32,
    /// The line's baseline under the middle of the word.
    pub baseline: i32,
    /// Tesseract's confidence, 0 to 100.
    pub confidence: f32,
}

/// The classes of text lines (`ocr_line` and the kinds Tesseract tells apart).
const LINES: [&str; 4] = ["ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"];

/// A text line's box and its baseline's slope and offset.
struct Line {
    bbox: [i32; 4],
    baseline: Option<(f64, f64)>,
}

/// The words of an hOCR page, in its order (Tesseract's reading order).
pub(crate) fn words(hocr: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut line: Option<Line> = None;
    let mut rest = hocr;
    while let Some(at) = rest.find("<span ") {
        rest = &rest[at..];
        let Some(end) = rest.find('>') else { break };
        let (tag, after) = (&rest[..end], &rest[end + 1..]);
        rest = after;
        let (Some(class), Some(title)) = (attribute(tag, "class"), attribute(tag, "title")) else {
            continue;
        };
        if LINES.contains(&class) {
            line = bbox(title).map(|bbox| Line { bbox, baseline: baseline(title) });
        } else if class == "ocrx_word" {
            let text = unescape(&strip_tags(&after[..after.find("</span>").unwrap_or(after.len())]));
            if let (Some(b), false) = (bbox(title), text.trim().is_empty()) {
                out.push(word(text.trim().to_string(), b, line.as_ref(), confidence(title)));
            }
        }
    }
    out
}

/// A word of `line` (when one was read) with its box `b`.
fn word(text: String, b: [i32; 4], line: Option<&Line>, confidence: f32) -> Word {
    let x = f64::from(b[0] + b[2]) / 2.0;
    let baseline = line
        .and_then(|l| {
            let (p1, p0) = l.baseline?;
            Some((p1 * (x - f64::from(l.bbox[0])) + p0 + f64::from(l.bbox[3])).round() as i32)
        })
        .unwrap_or(b[3]);
    Word { text, bbox: b, line_top: line.map_or(b[1], |l| l.bbox[1]), baseline, confidence }
}

/// The value of attribute `name` in a start tag, quoted with `'` or `"`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(at) = tag[from..].find(name) {
        let start = from + at;
        from = start + name.len();
        let before_ok = start == 0 || tag.as_bytes()[start - 1].is_ascii_whitespace();
        let value = tag[from..].strip_prefix('=');
        let (Some(value), true) = (value, before_ok) else { continue };
        let quote = value.chars().next()?;
        if quote != '\'' && quote != '"' {
            continue;
        }
        let value = &value[1..];
        return value.find(quote).map(|end| &value[..end]);
    }
    None
}

/// The numbers after `key` in a title (`bbox 1 2 3 4; x_wconf 95`).
fn property<'a>(title: &'a str, key: &str) -> Option<impl Iterator<Item = &'a str>> {
    let field = title.split(';').map(str::trim).find(|f| f.split_whitespace().next() == Some(key))?;
    Some(field.split_whitespace().skip(1))
}

fn bbox(title: &str) -> Option<[i32; 4]> {
    let v: Vec<i32> = property(title, "bbox")?.map_while(|n| n.parse().ok()).collect();
    <[i32; 4]>::try_from(v).ok()
}

fn baseline(title: &str) -> Option<(f64, f64)> {
    let mut v = property(title, "baseline")?.map_while(|n| n.parse::<f64>().ok());
    Some((v.next()?, v.next()?))
}

fn confidence(title: &str) -> f32 {
    property(title, "x_wconf").and_then(|mut v| v.next()?.parse().ok()).unwrap_or(0.0)
}

/// Text with any tags (`<strong>`, `<em>` when font information is on) left out.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// XML's five entities and numeric references, as Tesseract escapes word text.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest.find(';').map(|end| (&rest[1..end], end));
        let decoded = entity.and_then(|(name, end)| Some((decode(name)?, end)));
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn decode(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let n = name.strip_prefix('#')?;
            let code = match n.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => n.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page as Tesseract 5.3 writes it (`tesseract page.pgm - hocr`), cut to two lines.
    const PAGE: &str = r#"  <div class='ocr_page' id='page_1' title='image "-"; bbox 0 0 2550 3300; ppageno 0; scan_res 300 300'>
   <div class='ocr_carea' id='block_1_1' title="bbox 1181 172 1226 200">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 1181 172 1226 200">
     <span class='ocr_line' id='line_1_1' title="bbox 1181 172 1226 200; baseline 0 -8; x_size 40.5; x_descenders 9; x_ascenders 10.5">
      <span class='ocrx_word' id='word_1_1' title='bbox 1181 172 1226 200; x_wconf 63'>-2-</span>
     </span>
    </p>
   </div>
   <div class='ocr_carea' id='block_1_2' title="bbox 1135 322 1377 359">
    <p class='ocr_par' id='par_1_2' lang='eng' title="bbox 1135 322 1377 359">
     <span class='ocr_header' id='line_1_2' title="bbox 1135 322 1377 359; baseline 0.004 -9; x_size 38; x_descenders 9; x_ascenders 9">
      <span class='ocrx_word' id='word_1_2' title='bbox 1135 322 1252 359; x_wconf 96'>[Figure</span>
      <span class='ocrx_word' id='word_1_3' lang='deu' title='bbox 1269 322 1280 350; x_wconf 64'>AT&amp;T&#39;s &lt;x&gt;</span>
      <span class='ocrx_word' id='word_1_4' title='bbox 1296 322 1377 357; x_wconf 96'><strong>here]</strong></span>
      <span class='ocrx_word' id='word_1_5' title='bbox 1390 322 1400 357; x_wconf 10'> </span>
     </span>
    </p>
   </div>
  </div>"#;

    #[test]
    fn words_have_their_line_box_and_baseline() {
        let words = words(PAGE);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["-2-", "[Figure", "AT&T's <x>", "here]"], "blank words are left out");
        assert_eq!(words[0].bbox, [1181, 172, 1226, 200]);
        assert_eq!((words[0].line_top, words[0].baseline, words[0].confidence), (172, 192, 63.0));
        // 359 − 9 + 0.004 × (1193.5 − 1135) = 350.234.
        assert_eq!((words[1].line_top, words[1].baseline), (322, 350));
        // 359 − 9 + 0.004 × (1336.5 − 1135) = 350.806.
        assert_eq!(words[3].baseline, 351);
    }

    #[test]
    fn a_word_without_a_line_or_baseline_sits_on_its_box() {
        let hocr = "<span class='ocrx_word' title='bbox 50 6 60 28'>alone</span>\
            <span class='ocr_line' title='bbox 0 0 90 30; textangle 90'>\
            <span class='ocrx_word' title='bbox 10 5 40 25; x_wconf 80'>up</span></span>";
        let words = words(hocr);
        assert_eq!((words[0].line_top, words[0].baseline, words[0].confidence), (6, 28, 0.0));
        assert_eq!((words[1].line_top, words[1].baseline), (0, 25));
    }

    #[test]
    fn stray_ampersands_and_unknown_entities_are_kept() {
        assert_eq!(unescape("a & b &nbsp; &#x41;&#66;"), "a & b &nbsp; AB");
    }
}
