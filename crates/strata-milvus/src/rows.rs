//! The rows this store writes to Milvus: one per chunk vector and one per section vector,
//! each valid for an interval of generations.

use strata_core::DocumentRecord;

/// `gen_to` of a row no commit has retired yet.
pub(crate) const LIVE: i64 = 1 << 62;

/// Milvus's cap on `limit` (and `offset + limit`) of one search or query.
pub(crate) const MAX_LIMIT: usize = 16_384;

/// The longest record id, document id and kind, in bytes (`VARCHAR(max_length)`; Milvus counts
/// bytes).
pub(crate) const MAX_KEY: usize = 1024;

/// The field names of both collections.
pub(crate) mod field {
    pub const ID: &str = "id";
    pub const RECORD: &str = "record";
    pub const DOC: &str = "doc";
    pub const NODE: &str = "node";
    pub const KIND: &str = "kind";
    pub const PAGE_FIRST: &str = "page_first";
    pub const PAGE_LAST: &str = "page_last";
    pub const GEN_FROM: &str = "gen_from";
    pub const GEN_TO: &str = "gen_to";
    pub const VECTOR: &str = "vector";
    /// Every field, in schema order.
    pub const ALL: [&str; 10] =
        [ID, RECORD, DOC, NODE, KIND, PAGE_FIRST, PAGE_LAST, GEN_FROM, GEN_TO, VECTOR];
}

/// One vector with what the filters of a leg test, visible to readers of generations
/// `gen_from..gen_to`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// The chunk id, or `DOC#NODE` for a section.
    pub record: String,
    pub doc: String,
    pub node: i64,
    /// The chunk kind; `section` on section rows.
    pub kind: String,
    pub page_first: i64,
    pub page_last: i64,
    pub gen_from: i64,
    pub gen_to: i64,
    pub vector: Vec<f32>,
}

impl Row {
    /// The primary key: the record and the generation that wrote it, so that a re-put
    /// document's new rows live beside its old ones until the commit that retires them.
    pub fn id(&self) -> String {
        format!("{}@{}", self.record, self.gen_from)
    }
}

/// The chunk rows and the section rows of `record`, live from generation `generation`.
pub(crate) fn rows_of(record: &DocumentRecord, generation: i64) -> (Vec<Row>, Vec<Row>) {
    let doc = &record.document;
    let row = |record: String, node: u32, kind: &str, pages: (u32, u32), vector: &[f32]| Row {
        record,
        doc: doc.id.as_str().to_string(),
        node: node as i64,
        kind: kind.to_string(),
        page_first: pages.0 as i64,
        page_last: pages.1 as i64,
        gen_from: generation,
        gen_to: LIVE,
        vector: vector.to_vec(),
    };
    let chunks = match &record.vectors {
        Some(v) => record
            .chunks
            .iter()
            .zip(v.values.chunks(v.dim.max(1)))
            .map(|(c, vector)| {
                row(c.id.0.clone(), c.node.0, c.kind.name(), (c.pages.first, c.pages.last), vector)
            })
            .collect(),
        None => Vec::new(),
    };
    let sections = match &record.section_vectors {
        Some(sv) => sv
            .nodes
            .iter()
            .zip(sv.vectors.values.chunks(sv.vectors.dim.max(1)))
            .map(|(n, vector)| {
                let pages = doc.tree.get(*n).map_or((1, 1), |x| (x.pages.first, x.pages.last));
                row(format!("{}#{n}", doc.id.as_str()), n.0, "section", pages, vector)
            })
            .collect(),
        None => Vec::new(),
    };
    (chunks, sections)
}

/// The first key of `rows` longer than [`MAX_KEY`] bytes, if any.
pub(crate) fn overlong(rows: &[Row]) -> Option<&str> {
    rows.iter()
        .flat_map(|r| [r.record.as_str(), r.doc.as_str(), r.kind.as_str()])
        .find(|k| k.len() + 24 > MAX_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_index::conformance::fixture;

    #[test]
    fn every_chunk_and_section_vector_becomes_one_row() {
        let record = fixture::with_vectors(fixture::widget_act("widget-act-1a2b"));
        let (chunks, sections) = rows_of(&record, 7);
        assert_eq!(chunks.len(), record.chunks.len());
        let v = record.vectors.as_ref().unwrap();
        for (i, r) in chunks.iter().enumerate() {
            assert_eq!(r.record, record.chunks[i].id.as_str());
            assert_eq!(r.vector, &v.values[i * v.dim..(i + 1) * v.dim]);
            assert_eq!((r.gen_from, r.gen_to), (7, LIVE));
            assert_eq!(r.id(), format!("{}@7", r.record));
        }
        let sv = record.section_vectors.as_ref().map_or(0, |s| s.nodes.len());
        assert_eq!(sections.len(), sv);
        assert!(sections.iter().all(|r| r.record.starts_with("widget-act-1a2b#") && r.kind == "section"));
        assert_eq!(overlong(&chunks), None);
    }
}
