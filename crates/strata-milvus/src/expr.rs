//! Milvus boolean expressions: a generation's visibility and strata's hierarchy filters.

use strata_index::Filter;

use crate::rows::{field, LIVE};

/// A string literal: double-quoted, with `\` and `"` escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The rows readers of generation `g` see.
pub(crate) fn visible(g: i64) -> String {
    format!("{} <= {g} and {} > {g}", field::GEN_FROM, field::GEN_TO)
}

/// Rows visible at `g` and `filter`'s predicates. `kind` applies to chunk rows only: a section
/// has no kind.
pub(crate) fn leg(g: i64, filter: &Filter, chunks: bool) -> String {
    let mut parts = vec![visible(g)];
    if let Some(doc) = &filter.doc {
        parts.push(format!("{} == {}", field::DOC, quote(doc.as_str())));
        if let Some((first, last)) = filter.nodes {
            parts.push(format!("{} >= {} and {} <= {}", field::NODE, first.0, field::NODE, last.0));
        }
    }
    if let (Some(kind), true) = (filter.kind, chunks) {
        parts.push(format!("{} == {}", field::KIND, quote(kind.name())));
    }
    if let Some((first, last)) = filter.pages {
        parts.push(format!("{} <= {last} and {} >= {first}", field::PAGE_FIRST, field::PAGE_LAST));
    }
    parts.join(" and ")
}

/// The rows of one document.
pub(crate) fn of_doc(doc: &str) -> String {
    format!("{} == {}", field::DOC, quote(doc))
}

/// The live rows of one document at `g` (what a commit retires when the document is
/// replaced or removed).
pub(crate) fn live_of(g: i64, doc: &str) -> String {
    format!("{} and {}", of_doc(doc), visible(g))
}

/// The rows whose primary key is one of `ids`.
pub(crate) fn ids_in(ids: &[String]) -> String {
    let list: Vec<String> = ids.iter().map(|i| quote(i)).collect();
    format!("{} in [{}]", field::ID, list.join(", "))
}

/// Rows an interrupted commit wrote after generation `g`.
pub(crate) fn written_after(g: i64) -> String {
    format!("{} > {g}", field::GEN_FROM)
}

/// Rows an interrupted commit retired after generation `g` (they must live again).
pub(crate) fn retired_after(g: i64) -> String {
    format!("{} > {g} and {} < {LIVE}", field::GEN_TO, field::GEN_TO)
}

/// Rows no reader of generation `g` or later sees.
pub(crate) fn dead_at(g: i64) -> String {
    format!("{} <= {g}", field::GEN_TO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_core::{ChunkKind, DocId, NodeId};

    #[test]
    fn quotes_escape_backslashes_and_quotes() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn filters_become_predicates() {
        let f = Filter {
            doc: Some(DocId("rfc-9110".into())),
            nodes: Some((NodeId(3), NodeId(7))),
            kind: Some(ChunkKind::Definition),
            pages: Some((2, 5)),
        };
        assert_eq!(
            leg(4, &f, true),
            "gen_from <= 4 and gen_to > 4 and doc == \"rfc-9110\" and node >= 3 and node <= 7 \
             and kind == \"definition\" and page_first <= 5 and page_last >= 2"
        );
        assert!(!leg(4, &f, false).contains("kind"));
        assert_eq!(leg(0, &Filter::default(), true), "gen_from <= 0 and gen_to > 0");
    }
}
