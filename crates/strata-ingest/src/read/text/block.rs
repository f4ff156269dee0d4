//! Blocks: a paragraph of non-blank lines becomes code (figures, tables, ABNF), list items
//! split at their markers, or prose.

use strata_core::{Block, BlockKind, Span};

use super::line::{indent, is_blank};
use super::numbered::TOC_LINE;
use super::scan::Scan;

/// The indentation of a list item's marker (`o`, `-`, `*`, `•`, `1.`, `a)`, `(iv)`).
pub(super) fn list_marker(line: &str) -> Option<usize> {
    let ind = indent(line);
    let t = &line[ind..];
    let b = t.as_bytes();
    let rest = match *b.first()? {
        b'o' | b'-' | b'*' | b'+' => &t[1..],
        c if c.is_ascii_digit() => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 3 {
                return None;
            }
            t[n..].strip_prefix('.').or_else(|| t[n..].strip_prefix(')'))?
        }
        b'(' => {
            let close = t.find(')')?;
            if !(2..=5).contains(&close) || !t[1..close].bytes().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            &t[close + 1..]
        }
        c if c.is_ascii_lowercase() && matches!(b.get(1), Some(b'.' | b')')) => &t[2..],
        _ => t.strip_prefix('•')?,
    };
    (rest.starts_with([' ', '\t']) && !is_blank(rest)).then_some(ind)
}

const BOX: &[char] = &['─', '│', '┌', '┐', '└', '┘', '├', '┤', '┬', '┴', '┼', '═', '║'];

/// A line of a figure, table, diagram or ABNF rule.
fn code_like(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || TOC_LINE.is_match(line) {
        return false;
    }
    if ["+-", "-+", "|", "---", "===", "<-", "->", "~~~"].iter().any(|p| t.contains(p))
        || t.contains(BOX)
        || t.contains("   ")
    {
        return true;
    }
    // ABNF: `name = rule` or `name =/ rule`.
    let eq = t.find(" = ").or_else(|| t.find(" =/ "));
    eq.is_some_and(|i| {
        let name = t[..i].trim();
        !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    })
}

impl Scan<'_> {
    /// Classifies the paragraph `start..end` (non-blank lines): code, list items, prose.
    pub(super) fn flush(&mut self, para: Option<(usize, usize)>) {
        let Some((start, end)) = para else { return };
        let body = &self.text[start..end];
        let first_marker = list_marker(body.split('\n').next().unwrap_or(""));
        if first_marker.is_none() {
            let (mut code, mut lines) = (0usize, 0usize);
            for line in body.split('\n') {
                lines += 1;
                code += usize::from(code_like(line));
            }
            if code * 2 > lines {
                self.blocks.push(Block::new(BlockKind::Code, Span::new(start, end)));
                return;
            }
        }
        // Split before each list marker at the indentation of the first one.
        let mut marker = first_marker;
        let (mut cur, mut kind) =
            (start, if marker.is_some() { BlockKind::ListItem } else { BlockKind::Paragraph });
        let mut pos = start;
        while pos < end {
            let line_end = self.text[pos..end].find('\n').map_or(end, |i| pos + i);
            let line = &self.text[pos..line_end];
            if pos > cur {
                if let Some(ind) = list_marker(line) {
                    if marker.is_none() || marker == Some(ind) {
                        self.blocks.push(Block::new(kind, Span::new(cur, pos - 1)));
                        (cur, kind, marker) = (pos, BlockKind::ListItem, Some(ind));
                    }
                }
            }
            pos = line_end + 1;
        }
        self.blocks.push(Block::new(kind, Span::new(cur, end)));
    }
}

#[cfg(test)]
mod tests {
    use strata_core::BlockKind;

    use super::super::tests::{read, titles};

    #[test]
    fn numbered_list_in_body_is_not_heading() {
        let p =
            read("1.  Intro\n\n   Text:\n\n   1.  first item\n   2.  second item\n\n2.  Next\n\n   Text.\n");
        assert_eq!(titles(&p), ["1. Intro", "2. Next"]);
        let kinds: Vec<_> = p.blocks.iter().map(|b| b.kind).collect();
        use BlockKind::*;
        assert_eq!(kinds, [Heading, Paragraph, ListItem, ListItem, Heading, Paragraph]);
    }

    #[test]
    fn figures_are_code() {
        let p = read(concat!(
            "   Prose paragraph that explains\n   the figure below.\n\n",
            "      +--------+          +--------+\n      | Alice  |--------->|  Bob   |\n      +--------+          +--------+\n\n",
            "   token  =  1*alphanum\n   other  =  token / DIGIT\n",
        ));
        let kinds: Vec<_> = p.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BlockKind::Paragraph, BlockKind::Code, BlockKind::Code]);
    }
}
