//! One heading list from the contents entries and the recovered headings.
//!
//! Contents entries and form headings (`super::form`) are anchors: each keeps its own level.
//! Every other recovered heading goes below the anchor before it (level 1 under an item at
//! level 2 becomes 3), so numbering and font recovery fill in below the contents' depth;
//! below a numbered anchor, a numbered heading keeps its number's depth. A
//! recovered heading on an anchor's line, or a form heading the contents already lists
//! (`ITEM 7.` in the body for `Item 7. Management’s Discussion …` in the contents), is
//! left out. Without parts anywhere, items are level 1 and the rest of the form kinds one
//! level up.

use std::collections::HashSet;

use strata_core::Span;

use super::form::{self, Form};
use super::headings::{self, Recovered};
use crate::read::HeadingMark;

/// The headings of a document from its placed contents entries (`contents`, empty when it
/// has none) and its recovered headings, in text order.
pub(crate) fn nest(contents: Vec<HeadingMark>, recovered: Vec<Recovered>) -> Vec<HeadingMark> {
    let listed: HashSet<String> = contents.iter().filter_map(|m| form::key(&m.title)).collect();
    let parts = contents.iter().any(|m| form::classify(&m.title) == Some(Form::Part))
        || recovered.iter().any(|r| r.form == Some(Form::Part));
    let shift = u32::from(!parts);
    let (forms, generic): (Vec<Recovered>, Vec<Recovered>) =
        recovered.into_iter().partition(|r| r.form.is_some());
    let mut anchors = contents;
    for r in forms {
        let known = form::key(&r.mark.title).is_some_and(|k| listed.contains(&k));
        if !known && !anchors.iter().any(|a| overlap(a.span, r.mark.span)) {
            let level = r.form.map_or(1, Form::level).saturating_sub(shift).max(1);
            anchors.push(HeadingMark { level, ..r.mark });
        }
    }
    anchors.sort_by_key(|a| a.span.start);
    let mut out: Vec<HeadingMark> = Vec::with_capacity(anchors.len() + generic.len());
    let mut next = anchors.into_iter().peekable();
    let (mut above, mut numbered) = (0, false);
    for r in generic {
        while let Some(a) = next.next_if(|a| a.span.start <= r.mark.span.start) {
            (above, numbered) = (a.level, headings::depth(&a.title).is_some());
            out.push(a);
        }
        let on_anchor = out.last().is_some_and(|a| overlap(a.span, r.mark.span))
            || next.peek().is_some_and(|a| overlap(a.span, r.mark.span));
        if on_anchor {
            continue;
        }
        // Below a numbered anchor (`1.5.2` listed, `1.5.2.1` recovered) the numbering is
        // one scheme and gives the level itself.
        let level = match headings::depth(&r.mark.title) {
            Some(depth) if numbered => depth.max(above + 1),
            _ => above + r.mark.level,
        };
        out.push(HeadingMark { level, ..r.mark });
    }
    out.extend(next);
    out
}

/// Whether two heading spans share text or start at the same place (a contents entry not
/// found on its page has an empty span at the page's start).
fn overlap(a: Span, b: Span) -> bool {
    a.start == b.start || (a.start < b.end && b.start < a.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(level: u32, title: &str, start: usize) -> HeadingMark {
        HeadingMark { level, title: title.into(), span: Span::new(start, start + title.len()), number: None }
    }

    fn rec(level: u32, title: &str, start: usize) -> Recovered {
        Recovered { mark: mark(level, title, start), form: form::classify(title) }
    }

    fn levels(marks: &[HeadingMark]) -> Vec<(u32, &str)> {
        marks.iter().map(|m| (m.level, m.title.as_str())).collect()
    }

    #[test]
    fn recovered_headings_go_below_the_contents_entries() {
        let contents = vec![mark(1, "PART II", 100), mark(2, "Item 7. Management’s Discussion", 200)];
        let recovered = vec![
            rec(2, "ITEM 7. MANAGEMENT’S DISCUSSION", 200),
            rec(1, "Results of Operations", 400),
            rec(2, "Segment Results", 500),
            rec(3, "Consolidated Statements of Cash Flows", 900),
            rec(4, "Note 12 — Debt", 1000),
        ];
        assert_eq!(
            levels(&nest(contents, recovered)),
            vec![
                (1, "PART II"),
                (2, "Item 7. Management’s Discussion"),
                (3, "Results of Operations"),
                (4, "Segment Results"),
                (3, "Consolidated Statements of Cash Flows"),
                (4, "Note 12 — Debt"),
            ]
        );
    }

    #[test]
    fn numbered_headings_below_numbered_entries_keep_their_depth() {
        let contents = vec![mark(3, "1.5.2 Conventions Used in the XML", 0)];
        let recovered = vec![rec(1, "1.5.2.1 Namespaces", 50), rec(1, "Note on style", 80)];
        assert_eq!(
            levels(&nest(contents, recovered)),
            vec![(3, "1.5.2 Conventions Used in the XML"), (4, "1.5.2.1 Namespaces"), (4, "Note on style")]
        );
    }

    #[test]
    fn without_parts_items_are_level_one() {
        let recovered =
            vec![rec(1, "Item 1. Business", 0), rec(1, "Overview", 50), rec(1, "Item 2. Properties", 90)];
        assert_eq!(
            levels(&nest(Vec::new(), recovered)),
            vec![(1, "Item 1. Business"), (2, "Overview"), (1, "Item 2. Properties")]
        );
    }

    #[test]
    fn documents_without_form_headings_keep_their_levels() {
        let recovered = vec![rec(1, "1 Introduction", 0), rec(2, "1.1 Scope", 40), rec(1, "2 Terms", 90)];
        assert_eq!(
            levels(&nest(Vec::new(), recovered)),
            vec![(1, "1 Introduction"), (2, "1.1 Scope"), (1, "2 Terms")]
        );
    }
}
