//! Offsets across texts: gold labels count positions in the text a data set ships, strata
//! counts bytes of the reader's normalized `Document::text` (LF line ends, page furniture
//! removed). `Alignment` maps the first onto the second; `CharIndex` converts bytes to code
//! points and back.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// Largest changed block (both sides, in bytes) aligned character by character.
pub const CHAR_DIFF_LIMIT: usize = 64 * 1024;

/// Runs of equal characters between `a` and `b`, offset by where they start.
fn char_runs(a: &str, b: &str, a0: usize, b0: usize, runs: &mut Vec<(usize, usize, usize)>) {
    let ai: Vec<(usize, char)> = a.char_indices().collect();
    let bi: Vec<(usize, char)> = b.char_indices().collect();
    let ac: Vec<char> = ai.iter().map(|c| c.1).collect();
    let bc: Vec<char> = bi.iter().map(|c| c.1).collect();
    let byte_a = |i: usize| ai.get(i).map_or(a.len(), |c| c.0);
    let byte_b = |i: usize| bi.get(i).map_or(b.len(), |c| c.0);
    for op in capture_diff_slices(Algorithm::Myers, &ac, &bc) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            let start = byte_a(old_index);
            runs.push((a0 + start, b0 + byte_b(new_index), byte_a(old_index + len) - start));
        }
    }
}

/// A monotone map from byte offsets of an input text to byte offsets of a derived text.
#[derive(Debug, Clone)]
pub struct Alignment {
    /// Runs of equal text: (input start, output start, length in bytes), sorted.
    runs: Vec<(usize, usize, usize)>,
    /// Input and output lengths.
    lens: (usize, usize),
}

impl Alignment {
    /// The alignment of `output` to `input`: the identity when they are equal, else a diff
    /// by lines, refined by characters inside changed blocks of up to [`CHAR_DIFF_LIMIT`]
    /// bytes. It takes no deadline, so the same texts always align the same way; text in a
    /// larger changed block maps to where the block starts.
    pub fn new(input: &str, output: &str) -> Alignment {
        let lens = (input.len(), output.len());
        if input == output {
            return Alignment { runs: vec![(0, 0, input.len())], lens };
        }
        let a: Vec<&str> = input.split_inclusive('\n').collect();
        let b: Vec<&str> = output.split_inclusive('\n').collect();
        let starts = |lines: &[&str]| -> Vec<usize> {
            let mut at = 0;
            let mut out = Vec::with_capacity(lines.len() + 1);
            for l in lines {
                out.push(at);
                at += l.len();
            }
            out.push(at);
            out
        };
        let (sa, sb) = (starts(&a), starts(&b));
        let mut runs = Vec::new();
        for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
            match op {
                DiffOp::Equal { old_index, new_index, len } => {
                    runs.push((sa[old_index], sb[new_index], sa[old_index + len] - sa[old_index]));
                }
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    let (a0, a1) = (sa[old_index], sa[old_index + old_len]);
                    let (b0, b1) = (sb[new_index], sb[new_index + new_len]);
                    if (a1 - a0) + (b1 - b0) <= CHAR_DIFF_LIMIT {
                        char_runs(&input[a0..a1], &output[b0..b1], a0, b0, &mut runs);
                    }
                }
                DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
            }
        }
        Alignment { runs, lens }
    }

    /// An alignment that maps nothing (for documents no gold counts positions in).
    pub fn unknown() -> Alignment {
        Alignment { runs: Vec::new(), lens: (0, 0) }
    }

    /// Where input offset `at` lands in the output. An offset inside text the output dropped
    /// lands where that text was.
    pub fn map(&self, at: usize) -> usize {
        let i = self.runs.partition_point(|r| r.0 <= at);
        if i == 0 {
            return 0;
        }
        let (start_in, start_out, len) = self.runs[i - 1];
        start_out + (at - start_in).min(len)
    }

    /// Share of input bytes that appear unchanged in the output.
    pub fn coverage(&self) -> f64 {
        if self.lens.0 == 0 {
            return 1.0;
        }
        self.runs.iter().map(|r| r.2).sum::<usize>() as f64 / self.lens.0 as f64
    }

    /// Whether the texts were identical.
    pub fn is_identity(&self) -> bool {
        self.lens.0 == self.lens.1 && self.runs.len() == 1 && self.runs[0] == (0, 0, self.lens.0)
    }
}

/// Byte ↔ code point offsets of one text, in O(log n) per lookup.
#[derive(Debug, Clone)]
pub struct CharIndex {
    /// Byte offset of every 64th character.
    marks: Vec<usize>,
    text_len: usize,
    ascii: bool,
}

const STRIDE: usize = 64;

impl CharIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> CharIndex {
        let ascii = text.is_ascii();
        let marks =
            if ascii { Vec::new() } else { text.char_indices().step_by(STRIDE).map(|c| c.0).collect() };
        CharIndex { marks, text_len: text.len(), ascii }
    }

    /// The code point offset of byte offset `byte` (a character boundary, or the length).
    pub fn char_of(&self, text: &str, byte: usize) -> usize {
        if self.ascii {
            return byte;
        }
        let i = self.marks.partition_point(|&m| m <= byte).saturating_sub(1);
        let from = self.marks.get(i).copied().unwrap_or(0);
        i * STRIDE + text[from..byte.min(self.text_len)].chars().count()
    }

    /// The byte offset of code point offset `ch`, clamped to the text's end.
    pub fn byte_of(&self, text: &str, ch: usize) -> usize {
        if self.ascii {
            return ch.min(self.text_len);
        }
        let i = (ch / STRIDE).min(self.marks.len().saturating_sub(1));
        let from = self.marks.get(i).copied().unwrap_or(0);
        text[from..].char_indices().nth(ch - i * STRIDE).map_or(self.text_len, |c| from + c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_maps_every_offset_to_itself() {
        let a = Alignment::new("abc", "abc");
        assert!(a.is_identity());
        assert_eq!((a.map(0), a.map(2), a.map(3)), (0, 2, 3));
    }

    #[test]
    fn dropped_carriage_returns_and_furniture_shift_offsets() {
        let input = "one\r\ntwo\r\n[Page 1]\x0cthree\r\n";
        let output = "one\ntwo\nthree\n";
        let a = Alignment::new(input, output);
        let three = input.find("three").unwrap();
        assert_eq!(a.map(three), output.find("three").unwrap());
        assert_eq!(a.map(input.find("two").unwrap()), 4);
        assert!(a.coverage() < 1.0 && a.coverage() > 0.5);
        // The span of "three" maps onto "three".
        let (s, e) = (a.map(three), a.map(three + 5));
        assert_eq!(&output[s..e], "three");
    }

    #[test]
    fn char_index_round_trips_on_multibyte_text() {
        let text: String = (0..500)
            .map(|i| {
                if i % 7 == 0 {
                    'é'
                } else if i % 11 == 0 {
                    '🦀'
                } else {
                    'a'
                }
            })
            .collect();
        let idx = CharIndex::new(&text);
        for (ch, (byte, _)) in text.char_indices().enumerate() {
            assert_eq!(idx.char_of(&text, byte), ch);
            assert_eq!(idx.byte_of(&text, ch), byte);
        }
        let n = text.chars().count();
        assert_eq!(idx.char_of(&text, text.len()), n);
        assert_eq!(idx.byte_of(&text, n), text.len());
        let ascii = CharIndex::new("plain");
        assert_eq!(ascii.byte_of("plain", 3), 3);
    }
}
