//! Sentence boundaries that survive abbreviations ("Dr.", "Sec. 5", "Jan. 5.", "U.S.C.").
//!
//! Backed by `sentencex` (Wikimedia), which keeps abbreviation lists per language; Unicode
//! sentence segmentation splits after "U.S.C." and "Sec.", which would cut statutes mid
//! sentence.

use strata_core::Span;

/// Byte offsets where sentences start inside `text` (relative to `text`), excluding 0,
/// sorted and unique. Paragraph breaks (`\n\n`) are boundaries too.
pub fn sentence_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for b in sentencex::get_sentence_boundaries("en", text) {
        let start = b.start_byte;
        if start > 0 && start < text.len() && text.is_char_boundary(start) {
            out.push(start);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Sentence spans tiling `span` of `text`: the pieces, joined, give back the span.
pub fn sentences(text: &str, span: Span) -> Vec<Span> {
    let local = &text[span.start..span.end];
    let mut spans = Vec::new();
    let mut at = 0;
    for s in sentence_starts(local) {
        if s > at {
            spans.push(Span::new(span.start + at, span.start + s));
            at = s;
        }
    }
    if at < local.len() {
        spans.push(Span::new(span.start + at, span.end));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        sentences(text, Span::new(0, text.len())).iter().map(|s| s.slice(text)).collect()
    }

    #[test]
    fn abbreviations_do_not_end_sentences() {
        let text = "Dr. Smith filed on Jan. 5. The claim cites Sec. 5 of 35 U.S.C. and ends here. Next one.";
        let parts = split(text);
        assert_eq!(parts.concat(), text);
        assert!(parts.iter().any(|p| p.contains("Dr. Smith filed on Jan. 5.")), "{parts:?}");
        assert!(parts.iter().any(|p| p.contains("Sec. 5 of 35 U.S.C. and ends here.")), "{parts:?}");
    }

    #[test]
    fn sentences_tile_the_span() {
        let text = "One. Two!\n\nThree? Four";
        assert_eq!(split(text).concat(), text);
        assert!(split(text).len() >= 3);
    }
}
