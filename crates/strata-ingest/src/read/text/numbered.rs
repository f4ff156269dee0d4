//! Numbered headings (`4.2.1.  Title`, `20.1 Accept`, `Appendix A.`, `A.1.`): parsing a
//! line, refusing table-of-contents lines and sentences, and the successor guard that only
//! accepts a number continuing the numbering plausibly.

use std::sync::LazyLock;

use regex::Regex;

/// A dotted section number: `4.2.1`, or `A.1` (`letter`, A = 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Num {
    pub(super) letter: bool,
    pub(super) parts: Vec<u32>,
}

impl Num {
    pub(super) fn key(&self) -> String {
        let mut out = String::new();
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            match (i, self.letter) {
                (0, true) => out.push(char::from(b'A' + (*p as u8 - 1))),
                _ => out.push_str(&p.to_string()),
            }
        }
        out
    }
}

/// A line that looks like a numbered heading.
pub(super) struct Numbered<'a> {
    pub(super) num: Num,
    pub(super) title: &'a str,
    pub(super) appendix: bool,
}

/// One to three digits not followed by another digit.
fn digits(b: &[u8]) -> Option<(u32, usize)> {
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || n > 3 {
        return None;
    }
    let v = b[..n].iter().fold(0u32, |v, c| v * 10 + u32::from(c - b'0'));
    Some((v, n))
}

/// `4.2.1.  Title`, `20.1 Accept`, `A.1.  Title`, `A.  Title`, `Appendix A.  Title`.
pub(super) fn parse_numbered(line: &str) -> Option<Numbered<'_>> {
    for word in ["Appendix ", "APPENDIX "] {
        if let Some(rest) = line.strip_prefix(word) {
            let rb = rest.as_bytes();
            let letter = *rb.first()?;
            if !letter.is_ascii_uppercase() || rb.get(1).is_some_and(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            let skip = if matches!(rb.get(1), Some(b'.' | b':')) { 2 } else { 1 };
            let title = &rest[skip..];
            if !title.is_empty() && !title.starts_with([' ', '\t']) {
                return None;
            }
            let num = Num { letter: true, parts: vec![u32::from(letter - b'A' + 1)] };
            return Some(Numbered { num, title: title.trim(), appendix: true });
        }
    }
    let b = line.as_bytes();
    let mut parts = Vec::new();
    let letter = b.first()?.is_ascii_uppercase();
    let mut i = if letter {
        if b.get(1) != Some(&b'.') {
            return None;
        }
        parts.push(u32::from(b[0] - b'A' + 1));
        1
    } else {
        let (v, n) = digits(b)?;
        parts.push(v);
        n
    };
    while b.get(i) == Some(&b'.') && parts.len() < 8 {
        let Some((v, n)) = digits(&b[i + 1..]) else {
            break;
        };
        parts.push(v);
        i += 1 + n;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
    }
    if !matches!(b.get(i), Some(b' ' | b'\t')) {
        return None;
    }
    Some(Numbered { num: Num { letter, parts }, title: line[i..].trim(), appendix: false })
}

pub(super) static TOC_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\.{4,}|(?:\. ){3,}|\s{3,}\d+\s*$").unwrap());

/// A numbered heading candidate that has a heading's shape (not a TOC line or a sentence).
pub(super) fn numbered_candidate(line: &str) -> Option<Numbered<'_>> {
    let n = parse_numbered(line)?;
    if line.trim_end().len() > 100 || TOC_LINE.is_match(line) {
        return None;
    }
    if n.title.is_empty() {
        return n.appendix.then_some(n);
    }
    // A title may end with a dot (`27.5 The "message/sip" MIME type.`) when it is short.
    let sentence = n.title.ends_with('.') && n.title.split_whitespace().count() > 8;
    let shaped = n.title.chars().any(char::is_alphabetic)
        && !n.title.starts_with(char::is_lowercase)
        && !n.title.ends_with([',', ';'])
        && !sentence;
    shaped.then_some(n)
}

/// True when `c` can follow `prev`: next sibling, first child, or the next number at a
/// shallower depth (possibly with its first children, `4.2.3` → `5.1`). Appendix letters
/// start at `A` after the numbers.
pub(super) fn follows(prev: Option<&Num>, c: &Num, strict_start: bool) -> bool {
    let ones = |s: &[u32]| s.iter().all(|&v| v == 1);
    match prev {
        None if c.letter => ones(&c.parts),
        None if strict_start => c.parts.iter().all(|&v| v <= 1),
        None => c.parts.len() == 1,
        Some(p) if p.letter != c.letter => !p.letter && ones(&c.parts),
        Some(p) => {
            let (pp, cp) = (&p.parts, &c.parts);
            if cp.len() > pp.len() && cp.starts_with(pp) && ones(&cp[pp.len()..]) {
                return true;
            }
            (0..pp.len().min(cp.len()))
                .any(|j| cp[..j] == pp[..j] && cp[j] == pp[j] + 1 && ones(&cp[j + 1..]))
        }
    }
}

/// True when `c` would follow `prev` had one number been skipped (`27.4` → `27.6`): a lost
/// heading must not stop the numbering, so the next number after `c` is accepted.
pub(super) fn skips_one(prev: Option<&Num>, c: &Num) -> bool {
    let Some(p) = prev else { return false };
    let ones = |s: &[u32]| s.iter().all(|&v| v == 1);
    let (pp, cp) = (&p.parts, &c.parts);
    if p.letter != c.letter {
        return false;
    }
    if cp.len() > pp.len() && cp.starts_with(pp) && cp[pp.len()] == 2 && ones(&cp[pp.len() + 1..]) {
        return true;
    }
    (0..pp.len().min(cp.len())).any(|j| cp[..j] == pp[..j] && cp[j] == pp[j] + 2 && ones(&cp[j + 1..]))
}

#[cfg(test)]
mod tests {
    use strata_core::BlockKind;

    use super::super::tests::{check_invariants, number, read, titles};

    #[test]
    fn rfc_numbered_forms() {
        let p = read(concat!(
            "1.  Introduction\n\n   Body text here.\n\n",
            "1.1.  Scope\n\n   More.\n\n",
            "2 Overview\n\n   Body.\n\n",
            "2.1 Accept\n\n   Body.\n\n",
            "2.1.1 Detail\n\n   Body.\n\n",
            "3.  Next\n\n   Body.\n\n",
            "Appendix A.  Extra\n\n   Body.\n\n",
            "A.1.  Sub\n\n   Body.\n\n",
            "Appendix B.  More\n\n   Body.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p.headings.iter().map(|h| (h.level, number(h))).collect();
        assert_eq!(
            got,
            [
                (1, "1"),
                (2, "1.1"),
                (1, "2"),
                (2, "2.1"),
                (3, "2.1.1"),
                (1, "3"),
                (1, "A"),
                (2, "A.1"),
                (1, "B")
            ]
        );
        assert_eq!(p.headings[6].number.as_ref().unwrap().unit.as_deref(), Some("appendix"));
        assert_eq!(p.headings[3].span.slice(&p.text), "2.1 Accept");
        assert_eq!(p.blocks[0].kind, BlockKind::Heading);
        assert_eq!(p.blocks[1].kind, BlockKind::Paragraph);
    }

    #[test]
    fn toc_lines_are_not_headings() {
        let p = read(concat!(
            "Table of Contents\n\n",
            "   1. Introduction ....................................6\n",
            "      1.1. Scope ......................................7\n",
            "   2. Resources .......................................8\n\n",
            "1.  Introduction\n\n   Text.\n\n",
            "1.1.  Scope\n\n   Text.\n\n",
            "2.  Resources\n\n   Text.\n",
        ));
        check_invariants(&p);
        assert_eq!(titles(&p), ["Table of Contents", "1. Introduction", "1.1. Scope", "2. Resources"]);
        // Unindented TOC lines with leaders are refused too.
        let p = read("1 Introduction ........ 3\n\n2 Overview .......... 5\n\n1 Introduction\n\nText.\n");
        assert_eq!(titles(&p), ["1 Introduction"]);
    }

    #[test]
    fn successor_guard_refuses_jumps() {
        let p = read(concat!(
            "1.  One\n\n   Text.\n\n",
            "3 stray line that is not a heading\n\n   Text.\n\n",
            "7 Also Not A Heading\n\n   Text.\n\n",
            "1.2.  Skipped first child\n\n   Text.\n\n",
            "1.1.  Child\n\n   Text.\n\n",
            "1.1.1.  Grandchild\n\n   Text.\n\n",
            "2.1.  Uncle's first child without 2\n\n   Text.\n\n",
            "B.1.  Appendix B before A\n\n   Text.\n\n",
            "A.1.  First appendix\n\n   Text.\n\n",
            "4.  Numbers after letters\n\n   Text.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p.headings.iter().map(number).collect();
        assert_eq!(got, ["1", "1.1", "1.1.1", "2.1", "A.1"]);
    }

    #[test]
    fn numbering_resyncs_after_a_lost_heading() {
        let p = read(concat!(
            "1.  One\n\n   Text.\n\n",
            "1.1.  A\n\n   Text.\n\n",
            "1.2.  This title is a long sentence that ends with a dot, so it is refused.\n\n   Text.\n\n",
            "1.3.  C\n\n   Text.\n\n",
            "1.4.  D\n\n   Text.\n\n",
            "2.  Two\n\n   Text.\n",
        ));
        let got: Vec<_> = p.headings.iter().map(number).collect();
        assert_eq!(got, ["1", "1.1", "1.4", "2"]);
    }
}
