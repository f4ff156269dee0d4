//! The document title: `RFC nnnn: Title` from an RFC header, else a short first line.

use std::sync::LazyLock;

use regex::Regex;

use super::line::{indent, is_blank, line_at, squash};

static RFC_NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"Request for Comments:\s*(\d+)").unwrap());

/// `RFC 3261: SIP: Session Initiation Protocol` for RFCs, else the first line when short.
pub(super) fn title(text: &str) -> Option<String> {
    let mut pos = 0;
    let mut first = None;
    for _ in 0..80 {
        if pos >= text.len() {
            break;
        }
        let (end, next) = line_at(text, pos);
        let line = &text[pos..end];
        if first.is_none() && !is_blank(line) {
            first = Some(line.trim());
        }
        if let Some(c) = RFC_NUMBER.captures(line) {
            // The title is the centred line(s) after the header block.
            let mut p = next;
            while p < text.len() && !is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            while p < text.len() && is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            let mut words = Vec::new();
            while p < text.len() {
                let (e, n) = line_at(text, p);
                let l = &text[p..e];
                if is_blank(l) || indent(l) < 3 {
                    break;
                }
                words.push(squash(l));
                p = n;
            }
            return Some(match words.is_empty() {
                true => format!("RFC {}", &c[1]),
                false => format!("RFC {}: {}", &c[1], words.join(" ")),
            });
        }
        pos = next;
    }
    first.filter(|t| t.chars().count() <= 120).map(squash)
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;

    #[test]
    fn titles_from_rfc_header_or_first_line() {
        let p = read(concat!(
            "Network Working Group                                       J. Doe\n",
            "Request for Comments: 1234                                  Example\n\n",
            "                    FOO: A Test Protocol\n\n",
            "Abstract\n\n   Text.\n",
        ));
        assert_eq!(p.title.as_deref(), Some("RFC 1234: FOO: A Test Protocol"));
        assert_eq!(read("\n\n  My   Report \n\nBody.\n").title.as_deref(), Some("My Report"));
    }
}
