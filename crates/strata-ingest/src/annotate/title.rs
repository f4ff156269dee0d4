//! Titles that name nothing, which a document's annotators may replace.

use std::sync::LazyLock;

use regex::Regex;

static ACCESSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{10}-\d{2}-\d{6}$").expect("a valid pattern"));

/// Whether a title names nothing: empty, an EDGAR accession number, or a placeholder
/// ("Document", "Untitled", "FOR IMMEDIATE RELEASE", a word-processor file name).
pub fn title_is_placeholder(title: &str) -> bool {
    let t = title.trim();
    let lower = t.to_lowercase();
    t.is_empty()
        || !t.chars().any(char::is_alphabetic)
        || ACCESSION.is_match(t)
        || ["document", "untitled", "for immediate release"].contains(&lower.as_str())
        || lower.starts_with("microsoft word - ")
        || [".doc", ".docx", ".htm", ".html", ".pdf"].iter().any(|ext| lower.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_titles_are_recognized() {
        for t in [
            "",
            "0001018724-18-000005",
            "Document",
            "FOR IMMEDIATE RELEASE",
            "Microsoft Word - 10k.docx",
            "123",
        ] {
            assert!(title_is_placeholder(t), "{t:?}");
        }
        for t in ["Form 10-K for Johnson Johnson filed 02/16/2023", "RFC 9000: QUIC", "Title 35 - Patents"] {
            assert!(!title_is_placeholder(t), "{t:?}");
        }
    }
}
