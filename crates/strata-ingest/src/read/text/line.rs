//! Line primitives shared by the stages: where a line ends, blank lines, indentation and
//! whitespace squashing.

/// The line starting at `start`: its end (before `\n`) and where the next line starts.
pub(super) fn line_at(text: &str, start: usize) -> (usize, usize) {
    match text[start..].find('\n') {
        Some(i) => (start + i, start + i + 1),
        None => (text.len(), text.len()),
    }
}

pub(super) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

pub(super) fn indent(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

pub(super) fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
