//! Table-of-contents pages: recognized and left out of the body text.
//!
//! A page with at least [`MIN_LINES`] lines that end in dotted leaders and a page number
//! (`1.1 Overview ........ 6`, `Executive Summary . . . . iv`) is a contents page (or a list
//! of figures or tables); its leader lines are left out, like running headers, and the rest
//! of the page (its title, say) stays. Left in, every entry would compete with the section it
//! names: an exact search for a section title would find the contents line first, and
//! heading recovery would take the entries for headings. The outline or the recovered
//! headings already carry what the contents page says.

use std::sync::OnceLock;

use regex::Regex;

use super::PageLines;

/// Leader lines that make a page a contents page.
const MIN_LINES: usize = 5;

fn leaders() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:\.\s*){4,}\s*[0-9ivxlcIVXLC]+\s*$").unwrap())
}

/// Leaves the leader lines of contents pages out.
pub(crate) fn strip(pages: &mut [PageLines]) {
    for p in pages.iter_mut() {
        if p.lines.iter().filter(|l| leaders().is_match(&l.text)).count() >= MIN_LINES {
            p.lines.retain(|l| !leaders().is_match(&l.text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaders_mark_contents_lines() {
        assert!(leaders().is_match("1.1 Overview ........................ 6"));
        assert!(leaders().is_match("Executive Summary . . . . . . . iv"));
        assert!(!leaders().is_match("The shell reads 3 lines."));
        assert!(!leaders().is_match("and so on... 12 more"));
    }
}
