//! Where a long Markdown document can be cut into segments that parse alone as they parse
//! in the whole: before an ATX heading (`#` to `######` at the start of a line), which ends
//! every open paragraph, list, block quote, table and indented code block, unless it is
//! inside fenced code or an HTML block, which a heading line does not end. Those two are
//! followed line by line here, as CommonMark opens and closes them at the top level.

use std::ops::Range;

/// The segments of `text`, in order and covering it: each ends at the first place to cut
/// after `size` bytes, or at the end. A text of `size` bytes or fewer is one segment.
pub fn segments(text: &str, size: usize) -> Vec<Range<usize>> {
    if text.len() <= size {
        return std::iter::once(0..text.len()).collect();
    }
    let mut out = Vec::new();
    let (mut start, mut pos) = (0, 0);
    let mut open = Open::None;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = &text[pos..end];
        if pos - start >= size && open == Open::None && is_atx_heading(line) {
            out.push(start..pos);
            start = pos;
        }
        open = open.after(line);
        pos = end;
    }
    out.push(start..text.len());
    out
}

/// The block a line leaves open for the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    /// Fenced code: the fence character and its length.
    Fence(u8, usize),
    /// An HTML block that ends at a line holding one of these (CommonMark kinds 1 to 5).
    HtmlUntil(&'static [&'static str]),
    /// An HTML block that ends at a blank line (kinds 6 and 7; any other line that starts
    /// with `<` is counted as one too, which only forgoes places to cut).
    HtmlUntilBlank,
}

/// The HTML blocks that end at a marker rather than a blank line: how each starts, and what
/// ends it.
const HTML_UNTIL: &[(&str, &[&str])] = &[
    ("<script", &["</script>", "</pre>", "</style>", "</textarea>"]),
    ("<pre", &["</script>", "</pre>", "</style>", "</textarea>"]),
    ("<style", &["</script>", "</pre>", "</style>", "</textarea>"]),
    ("<textarea", &["</script>", "</pre>", "</style>", "</textarea>"]),
    ("<!--", &["-->"]),
    ("<?", &["?>"]),
    ("<![cdata[", &["]]>"]),
    ("<!", &[">"]),
];

impl Open {
    fn after(self, line: &str) -> Open {
        match self {
            Open::None => Open::opened_by(line),
            Open::Fence(c, n) => match fence(line) {
                Some((d, m, rest)) if d == c && m >= n && rest.trim().is_empty() => Open::None,
                _ => self,
            },
            Open::HtmlUntil(ends) => {
                let lower = line.to_ascii_lowercase();
                if ends.iter().any(|e| lower.contains(e)) {
                    Open::None
                } else {
                    self
                }
            }
            Open::HtmlUntilBlank if line.trim().is_empty() => Open::None,
            Open::HtmlUntilBlank => self,
        }
    }

    /// What a line opens when nothing is open.
    fn opened_by(line: &str) -> Open {
        if let Some((c, n, info)) = fence(line) {
            if c == b'~' || !info.contains('`') {
                return Open::Fence(c, n);
            }
        }
        let Some(tag) = indented(line).filter(|l| l.starts_with('<')) else { return Open::None };
        let lower = tag.to_ascii_lowercase();
        for &(start, ends) in HTML_UNTIL {
            if let Some(rest) = lower.strip_prefix(start) {
                // The end may be on the same line, after the start.
                return if ends.iter().any(|e| rest.contains(e)) {
                    Open::None
                } else {
                    Open::HtmlUntil(ends)
                };
            }
        }
        Open::HtmlUntilBlank
    }
}

/// The line without up to three spaces of indentation; `None` when it is indented more
/// (indented code, or the inside of a list item).
fn indented(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

/// A fence line's character, its length and what follows it.
fn fence(line: &str) -> Option<(u8, usize, &str)> {
    let l = indented(line)?;
    let c = *l.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = l.bytes().take_while(|&b| b == c).count();
    (n >= 3).then(|| (c, n, &l[n..]))
}

/// An ATX heading line at the start of the line: one to six `#`, then a space, a tab or the
/// line's end.
fn is_atx_heading(line: &str) -> bool {
    let n = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&n) && matches!(line.as_bytes().get(n), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuts(text: &str, size: usize) -> Vec<&str> {
        segments(text, size).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn a_short_text_is_one_segment_and_segments_cover_the_text() {
        assert_eq!(cuts("# a\n# b\n", 100), ["# a\n# b\n"]);
        assert_eq!(cuts("", 0), [""]);
        let text = "# a\ntext\n# b\nmore\n## c\n";
        assert_eq!(cuts(text, 1), ["# a\ntext\n", "# b\nmore\n", "## c\n"]);
    }

    #[test]
    fn no_cut_inside_fenced_code_or_html_blocks() {
        let text = "intro\n```\n# not a heading\n```\n# one\n";
        assert_eq!(cuts(text, 1), ["intro\n```\n# not a heading\n```\n", "# one\n"]);
        let text = "intro\n~~~~\n# in\n~~~\n# still in\n~~~~\n# out\n";
        assert_eq!(cuts(text, 1), ["intro\n~~~~\n# in\n~~~\n# still in\n~~~~\n", "# out\n"]);
        let text = "intro\n<div>\n# html\n\n# out\n";
        assert_eq!(cuts(text, 1), ["intro\n<div>\n# html\n\n", "# out\n"]);
        let text = "intro\n<!-- a\n\n# comment\n-->\n# out\n";
        assert_eq!(cuts(text, 1), ["intro\n<!-- a\n\n# comment\n-->\n", "# out\n"]);
        let text = "intro\n<pre>\n\n# pre\n</pre>\n# out\n";
        assert_eq!(cuts(text, 1), ["intro\n<pre>\n\n# pre\n</pre>\n", "# out\n"]);
    }

    #[test]
    fn only_atx_headings_at_the_line_start_are_places_to_cut() {
        let text = "a\n #x\n    # code\n#hashtag\n####### seven\n# yes\n";
        assert_eq!(cuts(text, 1), ["a\n #x\n    # code\n#hashtag\n####### seven\n", "# yes\n"]);
    }
}
