//! A statement with numbered parameters, built up clause by clause.

use postgres::types::ToSql;
use strata_index::Filter;

/// SQL text and the values of its `$n` parameters.
#[derive(Default)]
pub(crate) struct Sql {
    pub text: String,
    params: Vec<Box<dyn ToSql + Sync + Send>>,
}

impl Sql {
    pub(crate) fn new(text: &str) -> Sql {
        Sql { text: text.to_string(), params: Vec::new() }
    }

    /// Adds a parameter and returns its placeholder (`$n`).
    pub(crate) fn bind(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.params.push(Box::new(value));
        format!("${}", self.params.len())
    }

    pub(crate) fn push(&mut self, text: &str) -> &mut Sql {
        self.text.push_str(text);
        self
    }

    pub(crate) fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params.iter().map(|p| p.as_ref() as &(dyn ToSql + Sync)).collect()
    }

    /// `AND …` conditions of `filter` on the table aliased `t` (`kind` only when `chunks`:
    /// a section has no kind).
    pub(crate) fn filter(&mut self, t: &str, filter: &Filter, chunks: bool) -> &mut Sql {
        if let Some(doc) = &filter.doc {
            let p = self.bind(doc.as_str().to_string());
            self.text.push_str(&format!(" AND {t}.doc = {p}"));
        }
        if let Some((first, last)) = filter.nodes {
            let (a, b) = (self.bind(first.0 as i32), self.bind(last.0 as i32));
            self.text.push_str(&format!(" AND {t}.node BETWEEN {a} AND {b}"));
        }
        if let (Some(kind), true) = (filter.kind, chunks) {
            let p = self.bind(kind.name().to_string());
            self.text.push_str(&format!(" AND {t}.kind = {p}"));
        }
        if let Some((first, last)) = filter.pages {
            // Overlap: starts on or before `last`, ends on or after `first`.
            let (a, b) = (self.bind(last as i32), self.bind(first as i32));
            self.text.push_str(&format!(" AND {t}.page_first <= {a} AND {t}.page_last >= {b}"));
        }
        self
    }
}

/// Whether a filter restricts more than the document (and so needs the record table).
pub(crate) fn needs_record(filter: &Filter, chunks: bool) -> bool {
    filter.nodes.is_some() || filter.pages.is_some() || (chunks && filter.kind.is_some())
}
