//! Heading detection in the scan: numbered headings under the successor guard, legal
//! headings (`SEC. 101.`, `ARTICLE V`), unnumbered column-0 and all-caps headings, and the
//! heading mark with its joined continuation or title line.

use std::sync::LazyLock;

use regex::Regex;
use strata_core::{SectionNumber, Span};

use super::block::list_marker;
use super::line::{indent, is_blank, line_at, squash};
use super::numbered::{follows, numbered_candidate, parse_numbered, skips_one};
use super::scan::Scan;
use crate::read::HeadingMark;

static LEGAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:(?:(?P<sec>SECTION|Section|SEC\.|Sec\.)\s+|(?P<par>§§?)\s*)",
        r"(?P<sn>\d+[A-Za-z]{0,2}(?:[.\-]\d+[A-Za-z]?)*(?:\([A-Za-z0-9]{1,4}\))*)",
        r"|(?P<unit>ARTICLE|Article|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|SUBPART|Subpart",
        r"|TITLE|Title|SUBTITLE|Subtitle|DIVISION|Division|SCHEDULE|Schedule|ANNEX|Annex",
        r"|EXHIBIT|Exhibit|BOOK|Book)\s+(?P<un>[IVXLCDM]+|\d+[A-Za-z]?(?:[.\-]\d+)*|[A-Z]))",
        r"(?P<rest>.*)$"
    ))
    .unwrap()
});

/// A legal heading: kind (for its level), number, and whether a title follows the number.
struct Legal {
    kind: String,
    number: SectionNumber,
    titled: bool,
}

/// `Section 203.`, `SEC. 101. SHORT TITLE.`, `§ 102 Conditions`, `ARTICLE V`, `PART II`.
fn legal(t: &str) -> Option<Legal> {
    if t.len() > 120
        || t.ends_with([',', ';'])
        || !t.starts_with(['S', 'A', 'C', 'P', 'T', 'D', 'E', 'B', '§'])
    {
        return None;
    }
    let c = LEGAL.captures(t)?;
    let rest = c.name("rest").map_or("", |m| m.as_str());
    let word = c.name("sec").or(c.name("unit")).map_or("§", |m| m.as_str());
    let caps = !word.chars().any(char::is_lowercase);
    let after = rest.trim_start().chars().next();
    let separated = rest.trim().is_empty()
        || rest.starts_with(['.', ':', '—', '–'])
        || rest.starts_with("  ")
        || [" —", " –", " - "].iter().any(|s| rest.starts_with(s))
        || (rest.starts_with(' ')
            && after.is_some_and(char::is_uppercase)
            && (caps || (t.len() < 60 && !t.ends_with('.'))));
    if !separated {
        return None;
    }
    let titled = !rest.trim_start_matches(['.', ':', '—', '–', '-', ' ', '\t']).is_empty();
    let legal = match (c.name("sn"), c.name("un")) {
        (Some(n), _) => Legal {
            kind: "section".into(),
            number: SectionNumber { number: n.as_str().to_string(), unit: None },
            titled,
        },
        (None, Some(n)) => {
            let unit = word.to_lowercase();
            Legal {
                kind: unit.clone(),
                number: SectionNumber { number: n.as_str().to_string(), unit: Some(unit) },
                titled,
            }
        }
        (None, None) => return None,
    };
    Some(legal)
}

/// A short line that could be a title: capitalised, no sentence or clause end, no layout.
fn title_like(t: &str, max: usize) -> bool {
    t.len() >= 2
        && t.len() < max
        && t.starts_with(char::is_uppercase)
        && !t.ends_with(['.', ',', ';', ':'])
        && !t.contains("   ")
        && !t.contains(['=', '|', '<', '>', '{', '}'])
}

/// `DEFINITIONS`, `GENERAL PROVISIONS`: short, all capitals, mostly letters.
fn all_caps(t: &str) -> bool {
    if t.len() < 3 || t.len() >= 70 || t.ends_with(['.', ',', ';', ':']) || t.contains("   ") {
        return false;
    }
    if t.contains(['=', '|', '<', '>', '[', ']', '{', '}', '"', '_', '/', '\\', '*', '+']) {
        return false;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    letters >= 3 && letters * 10 >= visible * 7 && !t.chars().any(char::is_lowercase)
}

impl Scan<'_> {
    /// The heading at the line `pos..end`, with where the scan continues.
    pub(super) fn heading(&mut self, pos: usize, end: usize, next: usize) -> Option<(HeadingMark, usize)> {
        let line = &self.text[pos..end];
        if line.len() > 200 {
            return None;
        }
        let col0 = !line.starts_with(char::is_whitespace);
        let t = line.trim();
        if col0 {
            if let Some(n) = numbered_candidate(line) {
                let resync = self.missed.as_ref().is_some_and(|m| follows(Some(m), &n.num, false));
                if !resync && !follows(self.last.as_ref(), &n.num, self.strict_start) {
                    if skips_one(self.last.as_ref(), &n.num) {
                        self.missed = Some(n.num);
                    }
                    return None;
                }
                self.missed = None;
                let level = if n.appendix { 1 } else { n.num.parts.len() as u32 };
                let unit = n.appendix.then(|| "appendix".to_string());
                let number = SectionNumber { number: n.num.key(), unit };
                self.last = Some(n.num);
                return Some(self.finish(pos, end, next, level, Some(number), false));
            }
        }
        if col0 || !self.indented {
            if let Some(l) = legal(t) {
                let rank = match self.kinds.iter().position(|k| *k == l.kind) {
                    Some(i) => i + 1,
                    None => {
                        self.kinds.push(l.kind);
                        self.kinds.len()
                    }
                };
                return Some(self.finish(pos, end, next, rank as u32, Some(l.number), !l.titled));
            }
        }
        let unnumbered = col0
            && self.indented
            && !self.prev_col0_body
            && title_like(t, 70)
            && self.next_nonblank_indented(next);
        let caps = (col0 || !self.indented) && all_caps(t) && self.blank_at(next);
        (unnumbered || caps).then(|| self.finish(pos, end, next, 1, None, false))
    }

    /// The heading mark; joins an indented continuation line of a long title, or the title
    /// line under a bare `ARTICLE V` (`merge`).
    fn finish(
        &self,
        pos: usize,
        end: usize,
        next: usize,
        level: u32,
        number: Option<SectionNumber>,
        merge: bool,
    ) -> (HeadingMark, usize) {
        let text = self.text;
        let line = &text[pos..end];
        let mut title = squash(line);
        let (mut span_end, mut after) = (end, next);
        let numbered = number.is_some();
        if numbered && !merge && line.len() >= 50 && after < text.len() {
            let (e2, n2) = line_at(text, after);
            let l2 = &text[after..e2];
            let t2 = l2.trim();
            if !t2.is_empty()
                && indent(l2) > indent(line)
                && t2.len() < 70
                && !t2.ends_with(['.', ',', ';'])
                && list_marker(l2).is_none()
                && self.blank_at(n2)
            {
                title = format!("{title} {}", squash(t2));
                (span_end, after) = (e2, n2);
            }
        }
        if merge {
            let mut p = after;
            if p < text.len() && is_blank(&text[p..line_at(text, p).0]) {
                p = line_at(text, p).1;
            }
            if p < text.len() {
                let (e2, n2) = line_at(text, p);
                let t2 = text[p..e2].trim();
                let heading_like = (all_caps(t2) || title_like(t2, 70))
                    && legal(t2).is_none()
                    && parse_numbered(t2).is_none();
                if heading_like && self.blank_at(n2) {
                    title = format!("{title} {}", squash(t2));
                    (span_end, after) = (e2, n2);
                }
            }
        }
        let mark = HeadingMark { level, title, span: Span::new(pos, span_end), number };
        (mark, after)
    }
}

#[cfg(test)]
mod tests {
    use strata_core::BlockKind;

    use super::super::tests::{check_invariants, number, read, titles};

    #[test]
    fn legal_forms() {
        let p = read(concat!(
            "ARTICLE I\n\nDEFINITIONS\n\n",
            "Section 1.  Terms.\n\nThe terms below apply.\n\n",
            "SEC. 101. SHORT TITLE.\n\nThis Act may be cited as the Act.\n\n",
            "Section 203 of the Act is amended.\n\n",
            "PART II\n\nGENERAL PROVISIONS\n\n",
            "CHAPTER 3\n\nBody text continues here.\n",
        ));
        check_invariants(&p);
        let got: Vec<_> = p
            .headings
            .iter()
            .map(|h| {
                (h.level, h.title.as_str(), number(h), h.number.as_ref().and_then(|n| n.unit.as_deref()))
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "ARTICLE I DEFINITIONS", "I", Some("article")),
                (2, "Section 1. Terms.", "1", None),
                (2, "SEC. 101. SHORT TITLE.", "101", None),
                (3, "PART II GENERAL PROVISIONS", "II", Some("part")),
                (4, "CHAPTER 3", "3", Some("chapter")),
            ]
        );
        assert_eq!(p.headings[0].span.slice(&p.text), "ARTICLE I\n\nDEFINITIONS");
    }

    #[test]
    fn unnumbered_and_caps_headings() {
        let p = read(concat!(
            "Abstract\n\n   This memo describes things.\n\n",
            "Status of This Memo\n\n   Indented body.\n\n",
            "Example:\n\n   Indented body.\n\n",
            "F1 INVITE Alice -> Bob\n\nINVITE sip:bob SIP/2.0\n\n",
            "   Indented words\n\n   o  a bullet\n   o  another\n\n",
            "DEFINITIONS\n\n   Body.\n\n",
            "Authors' Addresses\n\n   Someone\n",
        ));
        check_invariants(&p);
        assert_eq!(titles(&p), ["Abstract", "Status of This Memo", "DEFINITIONS", "Authors' Addresses"]);
        assert!(p.headings.iter().all(|h| h.level == 1 && h.number.is_none()));
        let lists = p.blocks.iter().filter(|b| b.kind == BlockKind::ListItem).count();
        assert_eq!(lists, 2);
    }

    #[test]
    fn caps_line_needs_blank_lines_around() {
        let p = read("Some prose line\nNOT A HEADING\nmore prose\n\nGENERAL PROVISIONS\n\nText.\n");
        assert_eq!(titles(&p), ["GENERAL PROVISIONS"]);
    }

    #[test]
    fn multi_line_title_is_joined() {
        let p = read(concat!(
            "1 Security Considerations: Threat Model and Security Usage\n",
            "   Recommendations\n\n   Body.\n",
        ));
        let h = &p.headings[0];
        assert_eq!(h.title, "1 Security Considerations: Threat Model and Security Usage Recommendations");
        assert!(h.span.slice(&p.text).ends_with("Recommendations"));
    }
}
