//! The rows one document writes: prepared from its record before the transaction touches
//! the server, then deleted and written inside it.

use std::collections::HashMap;
use std::path::Path;

use pgvector::Vector;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::Client;
use serde::Serialize;
use strata_core::{ChunkId, Document, DocumentRecord, Error, NodeId, Result};
use strata_index::{DocSummary, StoredChunk, StoredDocument};

use crate::bm25::{Analyzers, Field};
use crate::error::pg;
use crate::tables;

fn json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::Internal(format!("serializing a record: {e}")))
}

pub(crate) fn delete_document(client: &mut Client, id: &str, label: &Path) -> Result<()> {
    for table in ["strata_documents", "strata_vector_cache"].iter().chain(tables::RECORD_TABLES.iter()) {
        client
            .execute(&format!("DELETE FROM {table} WHERE doc = $1"), &[&id])
            .map_err(pg(label, "deleting a document's records"))?;
    }
    Ok(())
}

/// Every row a document writes, prepared before the transaction touches the server.
pub(crate) struct Rows {
    doc: String,
    document: DocumentRow,
    chunks: Vec<ChunkRow>,
    sections: Vec<SectionRow>,
    definitions: Vec<(i32, String, Vec<u8>)>,
    postings: Vec<PostingRow>,
    /// Vector cache entries: key and encoded vector.
    vector_cache: Vec<(String, Vec<u8>)>,
}

struct DocumentRow {
    path: String,
    content_hash: String,
    summary: Vec<u8>,
    meta: Vec<u8>,
    body: String,
    chunks: i32,
    sections: i32,
    tokens: Vec<i64>,
}

struct PostingRow {
    key: String,
    target: String,
    tf: i32,
    len: i32,
    positions: Option<Vec<i32>>,
}

struct ChunkRow {
    id: ChunkId,
    ordinal: i32,
    node: i32,
    kind: &'static str,
    pages: (i32, i32),
    number: Option<String>,
    terms: Vec<String>,
    payload: Vec<u8>,
    tsv: [String; 3],
    embedding: Option<Vector>,
}

struct SectionRow {
    node: i32,
    id: String,
    pages: (i32, i32),
    tsv: [String; 2],
    embedding: Option<Vector>,
}

/// The postings a document writes, and its token count per field, as its texts are added.
struct Postings {
    analyzers: Analyzers,
    tokens: [i64; 6],
    rows: Vec<PostingRow>,
}

impl Postings {
    /// `text` of `field` of `target` (a chunk id or `DOC#NODE`), analyzed.
    fn add(&mut self, target: &str, field: Field, text: &str) {
        let p = self.analyzers.postings(field, text);
        self.tokens[p.field.index()] += p.tokens as i64;
        let len = p.norm();
        for (term, positions) in p.terms {
            let tf = positions.len() as i32;
            let positions = (p.field == Field::Exact).then_some(positions);
            self.rows.push(PostingRow {
                key: p.field.key(&term),
                target: target.to_string(),
                tf,
                len,
                positions,
            });
        }
    }
}

impl Rows {
    pub(crate) fn of(record: &DocumentRecord) -> Result<Rows> {
        let doc = &record.document;
        let id = doc.id.as_str().to_string();
        let mut postings = Postings { analyzers: Analyzers::new(), tokens: [0; 6], rows: Vec::new() };
        let chunks = chunk_rows(record, &mut postings)?;
        let sections = section_rows(record, &id, &mut postings);
        let definitions = record
            .definitions
            .iter()
            .enumerate()
            .map(|(i, d)| Ok((i as i32, d.normalized.clone(), json(d)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Rows {
            document: document_row(record, &postings.tokens, sections.len())?,
            doc: id,
            chunks,
            sections,
            definitions,
            postings: postings.rows,
            vector_cache: record.cached_vectors.iter().map(|v| (v.key.clone(), v.encode())).collect(),
        })
    }

    pub(crate) fn write(&self, client: &mut Client, label: &Path) -> Result<()> {
        let err = |what| pg(label, what);
        let d = &self.document;
        client
            .execute(
                "INSERT INTO strata_documents (doc, path, content_hash, summary, meta, body, chunk_count, section_count, tokens)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                &[&self.doc, &d.path, &d.content_hash, &d.summary, &d.meta, &d.body, &d.chunks, &d.sections, &d.tokens],
            )
            .map_err(err("writing a document"))?;
        let chunk = client
            .prepare(
                "INSERT INTO strata_chunks (doc, id, ordinal, node, kind, page_first, page_last, number, terms, payload, tsv, embedding)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
                         setweight(to_tsvector('english', $11), 'A') || setweight(to_tsvector('english', $12), 'B')
                         || setweight(to_tsvector('english', $13), 'C'), $14)",
            )
            .map_err(err("writing chunks"))?;
        for c in &self.chunks {
            client
                .execute(
                    &chunk,
                    &[
                        &self.doc,
                        &c.id.as_str(),
                        &c.ordinal,
                        &c.node,
                        &c.kind,
                        &c.pages.0,
                        &c.pages.1,
                        &c.number,
                        &c.terms,
                        &c.payload,
                        &c.tsv[0],
                        &c.tsv[1],
                        &c.tsv[2],
                        &c.embedding,
                    ],
                )
                .map_err(err("writing chunks"))?;
        }
        let section = client
            .prepare(
                "INSERT INTO strata_sections (doc, node, id, page_first, page_last, tsv, embedding)
                 VALUES ($1, $2, $3, $4, $5,
                         setweight(to_tsvector('english', $6), 'A') || setweight(to_tsvector('english', $7), 'B'), $8)",
            )
            .map_err(err("writing sections"))?;
        for s in &self.sections {
            client
                .execute(
                    &section,
                    &[&self.doc, &s.node, &s.id, &s.pages.0, &s.pages.1, &s.tsv[0], &s.tsv[1], &s.embedding],
                )
                .map_err(err("writing sections"))?;
        }
        for (ordinal, term, payload) in &self.definitions {
            client
                .execute(
                    "INSERT INTO strata_definitions (doc, ordinal, term, payload) VALUES ($1, $2, $3, $4)",
                    &[&self.doc, ordinal, term, payload],
                )
                .map_err(err("writing definitions"))?;
        }
        let sink = client
            .copy_in("COPY strata_postings (doc, key, target, tf, len, positions) FROM STDIN BINARY")
            .map_err(err("writing postings"))?;
        let mut copy = BinaryCopyInWriter::new(
            sink,
            &[Type::TEXT, Type::TEXT, Type::TEXT, Type::INT4, Type::INT4, Type::INT4_ARRAY],
        );
        for p in &self.postings {
            copy.write(&[&self.doc, &p.key, &p.target, &p.tf, &p.len, &p.positions])
                .map_err(err("writing postings"))?;
        }
        copy.finish().map_err(err("writing postings"))?;
        if !self.vector_cache.is_empty() {
            let (keys, payloads): (Vec<&str>, Vec<&[u8]>) =
                self.vector_cache.iter().map(|(k, p)| (k.as_str(), p.as_slice())).unzip();
            client
                .execute(
                    "INSERT INTO strata_vector_cache (doc, key, payload)
                     SELECT $1, * FROM unnest($2::text[], $3::bytea[]) ON CONFLICT DO NOTHING",
                    &[&self.doc, &keys, &payloads],
                )
                .map_err(err("writing the vector cache"))?;
        }
        Ok(())
    }
}

/// A row per chunk, its four fields' postings added to `postings`.
fn chunk_rows(record: &DocumentRecord, postings: &mut Postings) -> Result<Vec<ChunkRow>> {
    let doc = &record.document;
    let search_title = doc.search_title();
    let mut chunks = Vec::with_capacity(record.chunks.len());
    for (i, chunk) in record.chunks.iter().enumerate() {
        let stored = StoredChunk::of(doc, chunk);
        let text = chunk.indexed_text(&doc.text).into_owned();
        let heading = chunk.heading_path.join(" > ");
        let exact = chunk.indexed_span().slice(&doc.text);
        postings.add(chunk.id.as_str(), Field::Text, &text);
        postings.add(chunk.id.as_str(), Field::Heading, &heading);
        postings.add(chunk.id.as_str(), Field::Title, &search_title);
        postings.add(chunk.id.as_str(), Field::Exact, exact);
        chunks.push(ChunkRow {
            id: chunk.id.clone(),
            ordinal: chunk.ordinal as i32,
            node: chunk.node.0 as i32,
            kind: chunk.kind.name(),
            pages: (chunk.pages.first as i32, chunk.pages.last as i32),
            number: stored.number.clone(),
            terms: chunk.defines.clone(),
            payload: json(&stored)?,
            tsv: [text, heading, search_title.clone()],
            embedding: record.vectors.as_ref().map(|v| Vector::from(v.row(i).to_vec())),
        });
    }
    Ok(chunks)
}

/// A row per section profile of document `id`, its two fields' postings added to
/// `postings`.
fn section_rows(record: &DocumentRecord, id: &str, postings: &mut Postings) -> Vec<SectionRow> {
    let doc = &record.document;
    let section_vectors: HashMap<NodeId, Vector> = record
        .section_vectors
        .as_ref()
        .map(|sv| {
            sv.nodes.iter().enumerate().map(|(i, n)| (*n, Vector::from(sv.vectors.row(i).to_vec()))).collect()
        })
        .unwrap_or_default();
    let mut sections = Vec::new();
    for profile in strata_core::section_profiles(doc) {
        let sid = format!("{id}#{}", profile.node);
        let text = format!("{}\n{}", profile.lead, profile.children);
        postings.add(&sid, Field::SectionText, &text);
        postings.add(&sid, Field::SectionHeading, &profile.heading_path);
        let pages =
            doc.tree.get(profile.node).map_or((1, 1), |n| (n.pages.first as i32, n.pages.last as i32));
        sections.push(SectionRow {
            node: profile.node.0 as i32,
            id: sid,
            pages,
            tsv: [text, profile.heading_path.clone()],
            embedding: section_vectors.get(&profile.node).cloned(),
        });
    }
    sections
}

/// The document's own row: its summary, its record without the text (what `document_meta`
/// returns), its text, and its token counts.
fn document_row(record: &DocumentRecord, tokens: &[i64; 6], sections: usize) -> Result<DocumentRow> {
    let doc = &record.document;
    let meta = StoredDocument {
        document: Document { text: String::new(), ..doc.clone() },
        definitions: record.definitions.clone(),
        references: record.references.clone(),
        chunks: record.chunks.len(),
    };
    let summary = DocSummary::of(doc, record.chunks.len(), record.definitions.len(), record.references.len());
    Ok(DocumentRow {
        path: doc.source.path.clone(),
        content_hash: doc.source.content_hash.clone(),
        summary: json(&summary)?,
        meta: json(&meta)?,
        body: doc.text.clone(),
        chunks: record.chunks.len() as i32,
        sections: sections as i32,
        // Six fields, then the values of tantivy's `terms` field: each chunk's defined terms
        // and each definition (what the exact terms leg averages over).
        tokens: tokens
            .iter()
            .copied()
            .chain([record.chunks.iter().map(|c| c.defines.len() as i64).sum::<i64>()
                + record.definitions.len() as i64])
            .collect(),
    })
}
