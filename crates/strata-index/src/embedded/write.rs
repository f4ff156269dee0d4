//! [`StoreWrite`] on the embedded store: a document's records staged in the tantivy writer
//! with its vectors, and the commit that publishes both.

use serde::Serialize;
use strata_core::{Chunk, DocId, Document, DocumentRecord, Error, Result};
use tantivy::{IndexWriter, TantivyDocument, Term};

use super::{tv, CommitPayload, DocMeta, EmbeddedStore};
use crate::schema::{
    KIND_CHUNK, KIND_CONTEXT, KIND_DEF, KIND_DOC, KIND_SECTION, KIND_SUMMARY, KIND_TEXT, KIND_VECTOR,
};
use crate::store::{check_vectors, DocSummary, StoreRead, StoreWrite, StoredChunk};
use crate::vectors::VectorState;
use crate::DenseManifest;

impl StoreWrite for EmbeddedStore {
    fn put(&mut self, record: &DocumentRecord) -> Result<()> {
        self.refuse_after_failure()?;
        self.check_record(record)?;
        let f = self.f;
        let id = record.document.id.as_str();
        let head = self.head_records(record)?;
        let writer = self.writer.as_ref().ok_or_else(|| self.read_only())?;
        writer.delete_term(Term::from_field_text(f.doc_id, id));
        // Chunk and section records go to the writer as they are made: a document of a
        // quarter of a million sections held them all at once, a gigabyte for 13 MB of
        // text. A failed writer rolls back every staged write (`recover.rs`); a record that
        // cannot be made (never seen: serializing plain data) deletes what was added, so
        // that no commit publishes half a document.
        let mut failure = None;
        for d in head.into_iter().map(Ok).chain(self.body_records(record)) {
            match d.map(|d| writer.add_document(d)) {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => failure = Some(Ok(e)),
                Err(e) => failure = Some(Err(e)),
            }
            if failure.is_some() {
                break;
            }
        }
        match failure {
            Some(Ok(writer_failed)) => return Err(self.staging_failed(writer_failed)),
            Some(Err(unmade)) => {
                writer.delete_term(Term::from_field_text(f.doc_id, id));
                self.vectors.remove(&record.document.id);
                self.section_vectors.remove(&record.document.id);
                self.pending = true;
                return Err(unmade);
            }
            None => self.pending = true,
        }
        let doc = &record.document;
        let id = id.to_string();
        self.staged.insert(doc.id.clone());
        self.vectors.put(&doc.id, &record.chunks, record.vectors.as_ref());
        // A format 1 index has no section leg: it keeps no section vectors either.
        let sections = record.section_vectors.as_ref().filter(|_| f.section_text.is_some()).map(|sv| {
            let rows = sv
                .nodes
                .iter()
                .map(|n| {
                    let pages = doc.tree.get(*n).map_or((1, 1), |x| (x.pages.first, x.pages.last));
                    (format!("{id}#{n}"), n.0, strata_core::ChunkKind::Content, pages)
                })
                .collect();
            (rows, &sv.vectors)
        });
        match sections {
            Some((rows, vectors)) => self.section_vectors.put_rows(&doc.id, rows, Some(vectors)),
            None => self.section_vectors.remove(&doc.id),
        }
        Ok(())
    }

    fn remove(&mut self, id: &DocId) -> Result<bool> {
        self.refuse_after_failure()?;
        if !self.staged.remove(id) && self.content_hash(id)?.is_none() {
            return Ok(false);
        }
        let f = self.f;
        self.writer()?.delete_term(Term::from_field_text(f.doc_id, id.as_str()));
        self.pending = true;
        self.vectors.remove(id);
        self.section_vectors.remove(id);
        Ok(true)
    }

    fn cache_contexts(&mut self, entries: &[(String, String)]) -> Result<()> {
        self.refuse_after_failure()?;
        let f = self.f;
        let writer = self.writer()?;
        let added = entries.iter().try_for_each(|(key, context)| {
            writer.delete_term(Term::from_field_text(f.chunk_id, key));
            let mut d = TantivyDocument::default();
            d.add_text(f.kind, KIND_CONTEXT);
            d.add_text(f.chunk_id, key);
            d.add_bytes(f.payload, context.as_bytes());
            writer.add_document(d).map(drop)
        });
        if let Err(e) = added {
            return Err(self.staging_failed(e));
        }
        self.pending |= !entries.is_empty();
        Ok(())
    }

    fn commit(&mut self) -> Result<()> {
        self.commit_payload(self.external.clone())
    }
}

impl EmbeddedStore {
    /// Commits what was staged and publishes `external` with it. A commit that fails before
    /// its commit point is rolled back and the files it wrote are removed (`recover.rs`).
    pub(super) fn commit_payload(&mut self, external: Option<String>) -> Result<()> {
        if let Some(reason) = self.failed.take() {
            return Err(Error::Index { path: self.dir.clone(), reason });
        }
        self.writer()?; // a read-only store writes nothing, not even vector files
        let dir = self.dir.clone();
        let (state, sections) = match self.write_commit(&external) {
            Ok(written) => written,
            Err(e) => return Err(self.roll_back(e)),
        };
        self.pending = false;
        self.staged.clear();
        self.reader.reload().map_err(tv(&dir))?;
        self.vectors.published(state)?;
        self.section_vectors.published(sections)?;
        self.external = external;
        Ok(())
    }

    /// Writes the vector files, the manifest and the tantivy commit whose `meta.json` is the
    /// commit point; returns the vector states it published.
    fn write_commit(&mut self, external: &Option<String>) -> Result<(VectorState, VectorState)> {
        let dir = self.dir.clone();
        let (model, dim) = self.manifest.dense.as_ref().map(|d| (d.model.clone(), d.dim)).unwrap_or_default();
        // Vector files first; the tantivy commit below publishes them with the records.
        let state = self.vectors.prepare(&model, dim)?;
        let sections = self.section_vectors.prepare(&model, dim)?;
        if self.manifest_dirty {
            self.manifest.write(&dir)?;
            self.manifest_dirty = false;
        }
        let payload = serde_json::to_string(&CommitPayload {
            vectors: state.clone(),
            sections: sections.clone(),
            external: external.clone(),
        })
        .map_err(|e| Error::Internal(e.to_string()))?;
        let mut prepared = self.writer()?.prepare_commit().map_err(tv(&dir))?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(tv(&dir))?;
        Ok((state, sections))
    }

    /// Refuses a write while writes staged since the last commit were undone and not yet
    /// reported by a commit.
    fn refuse_after_failure(&self) -> Result<()> {
        match &self.failed {
            Some(reason) => Err(Error::Index { path: self.dir.clone(), reason: reason.clone() }),
            None => Ok(()),
        }
    }

    /// Refuses a record whose vectors do not fit it or this index, before anything of it
    /// is staged; the first vectors name the index's model in the manifest.
    fn check_record(&mut self, record: &DocumentRecord) -> Result<()> {
        check_vectors(record)?;
        if let Some(v) = &record.vectors {
            self.manifest.check_dense(&v.model, v.dim, &self.dir)?;
        }
        if let Some(sv) = &record.section_vectors {
            self.manifest.check_dense(&sv.vectors.model, sv.vectors.dim, &self.dir)?;
        }
        if let (Some(v), None) = (&record.vectors, &self.manifest.dense) {
            self.manifest.dense = Some(DenseManifest { model: v.model.clone(), dim: v.dim });
            self.manifest_dirty = true;
        }
        Ok(())
    }

    /// A document's one-of records (text, metadata, summary) and its definitions.
    fn head_records(&self, record: &DocumentRecord) -> Result<Vec<TantivyDocument>> {
        let (f, doc) = (self.f, &record.document);
        let id = doc.id.as_str();
        let mut docs = Vec::with_capacity(record.definitions.len() + 3);
        let mut text = TantivyDocument::default();
        text.add_text(f.kind, KIND_TEXT);
        text.add_text(f.doc_id, id);
        text.add_bytes(f.payload, doc.text.as_bytes());
        docs.push(text);

        let meta = DocMeta {
            document: Document { text: String::new(), ..doc.clone() },
            definitions: record.definitions.clone(),
            references: record.references.clone(),
            chunks: record.chunks.len(),
        };
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_DOC);
        d.add_text(f.doc_id, id);
        d.add_text(f.hash, &doc.source.content_hash);
        d.add_bytes(f.payload, &Self::json(&meta)?);
        docs.push(d);

        let summary =
            DocSummary::of(doc, record.chunks.len(), record.definitions.len(), record.references.len());
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_SUMMARY);
        d.add_text(f.doc_id, id);
        d.add_bytes(f.payload, &Self::json(&summary)?);
        docs.push(d);

        for def in &record.definitions {
            let mut d = TantivyDocument::default();
            d.add_text(f.kind, KIND_DEF);
            d.add_text(f.doc_id, id);
            d.add_text(f.terms, &def.normalized);
            d.add_bytes(f.payload, &Self::json(def)?);
            docs.push(d);
        }
        Ok(docs)
    }

    /// A document's chunk records, then its section records, made one at a time.
    fn body_records<'a>(
        &'a self,
        record: &'a DocumentRecord,
    ) -> impl Iterator<Item = Result<TantivyDocument>> + 'a {
        let doc = &record.document;
        // Every chunk is searched by the same title: computed once per document.
        let title = doc.search_title();
        let chunks = record.chunks.iter().map(move |chunk| self.chunk_doc(doc, &title, chunk));
        // Format 1 indexes have no section fields: their documents get no section records.
        let profiles = match self.f.section_text.is_some() {
            true => strata_core::section_profiles(doc),
            false => Vec::new(),
        };
        let sections = profiles.into_iter().map(move |p| Ok(self.section_doc(doc, &p)));
        chunks.chain(sections).chain(record.cached_vectors.iter().map(move |v| Ok(self.vector_doc(doc, v))))
    }

    /// A vector cache entry, under its document's id so that it goes with the document.
    fn vector_doc(&self, doc: &Document, entry: &strata_core::CachedVector) -> TantivyDocument {
        let f = self.f;
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_VECTOR);
        d.add_text(f.doc_id, doc.id.as_str());
        d.add_text(f.chunk_id, &entry.key);
        d.add_bytes(f.payload, &entry.encode());
        d
    }

    fn section_doc(&self, doc: &Document, profile: &strata_core::SectionProfile) -> TantivyDocument {
        let f = self.f;
        let (Some(text), Some(heading)) = (f.section_text, f.section_heading) else {
            unreachable!("section records are made only where the schema has section fields")
        };
        let id = doc.id.as_str();
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_SECTION);
        d.add_text(f.doc_id, id);
        d.add_text(f.chunk_id, format!("{id}#{}", profile.node));
        d.add_u64(f.node, profile.node.0 as u64);
        d.add_text(text, format!("{}\n{}", profile.lead, profile.children));
        d.add_text(heading, &profile.heading_path);
        if let (Some((first, last)), Some(node)) = (f.pages, doc.tree.get(profile.node)) {
            d.add_u64(first, node.pages.first as u64);
            d.add_u64(last, node.pages.last as u64);
        }
        if let Some(number) = doc.tree.get(profile.node).and_then(|n| n.number.as_ref()) {
            d.add_text(f.numbers, strata_text::number::key(number));
        }
        d
    }

    fn chunk_doc(&self, doc: &Document, title: &str, chunk: &Chunk) -> Result<TantivyDocument> {
        let f = self.f;
        let stored = StoredChunk::of(doc, chunk);
        let indexed = chunk.indexed_span().slice(&doc.text);
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, KIND_CHUNK);
        d.add_text(f.doc_id, doc.id.as_str());
        d.add_text(f.chunk_id, chunk.id.as_str());
        d.add_u64(f.ordinal, chunk.ordinal as u64);
        d.add_u64(f.node, chunk.node.0 as u64);
        d.add_text(f.chunk_kind, chunk.kind.name());
        if let Some((first, last)) = f.pages {
            d.add_u64(first, chunk.pages.first as u64);
            d.add_u64(last, chunk.pages.last as u64);
        }
        d.add_text(f.text, chunk.indexed_text(&doc.text));
        d.add_text(f.heading, chunk.heading_path.join(" > "));
        d.add_text(f.title, title);
        d.add_text(f.exact_text, indexed);
        if let Some(key) = &stored.number {
            d.add_text(f.numbers, key);
        }
        for term in &chunk.defines {
            d.add_text(f.terms, term);
        }
        d.add_bytes(f.payload, &Self::json(&stored)?);
        Ok(d)
    }

    fn writer(&mut self) -> Result<&mut IndexWriter> {
        let err = self.read_only();
        self.writer.as_mut().ok_or(err)
    }

    fn read_only(&self) -> Error {
        Error::Index { path: self.dir.clone(), reason: "opened read-only".into() }
    }

    fn json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
        serde_json::to_vec(value).map_err(|e| Error::Internal(format!("serializing a record: {e}")))
    }
}
