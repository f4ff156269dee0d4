//! Text made safe to print to a terminal.
//!
//! Titles, headings, hit text and file names come from the documents, and a document can hold
//! control characters: `ESC ] 0 ; … BEL` retitles the terminal window, `ESC [ 2 J` clears it,
//! and others have moved the cursor over what was printed or, on some terminals, answered with
//! keystrokes. Human output shows each of them as a visible escape instead, `\x1b` for ESC,
//! so the rest of an escape sequence prints as the inert text it then is. JSON output needs
//! none of this: JSON escapes control characters already.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character but tab and newline (C0, DEL, and C1) written as a
/// visible escape: `\x1b`, `\x7f`, `\u{9b}`.
///
/// ```
/// use strata_core::terminal::printable;
/// assert_eq!(printable("a\u{1b}]0;pwned\u{7}\tb\n"), "a\\x1b]0;pwned\\x07\tb\n");
/// assert_eq!(printable("plain"), "plain");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// A C0 control other than tab and newline, DEL, or a C1 control (Unicode's `Cc`).
fn unsafe_char(c: char) -> bool {
    c.is_control() && c != '\t' && c != '\n'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_but_tab_and_newline_is_escaped() {
        for c in (0u32..0x20).chain([0x7f]).chain(0x80..0xa0).filter_map(char::from_u32) {
            let shown = printable(&c.to_string()).into_owned();
            if c == '\t' || c == '\n' {
                assert_eq!(shown, c.to_string());
            } else {
                assert!(shown.starts_with('\\') && shown.chars().all(|c| !c.is_control()), "{c:?}: {shown}");
            }
        }
        assert_eq!(printable("\r\u{9b}2J"), "\\x0d\\u{9b}2J");
        assert_eq!(printable("§ 102(b) — “quoted”"), "§ 102(b) — “quoted”");
    }
}
