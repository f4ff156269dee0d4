//! Hand-made [`DocumentRecord`]s for the conformance checks.
//!
//! The index must not depend on ingest, so the records are built here: [`RecordBuilder`]
//! appends headings and paragraphs to a text and derives consistent spans, a tree (ids,
//! parents, children, own and subtree spans), chunks that tile every section's own span,
//! definitions and references. The sample documents are written so that each check has a
//! word that occurs exactly where it needs it (see the comments on [`widget_act`]).

use std::collections::BTreeMap;

use strata_core::{
    normalize_term, Block, BlockKind, Chunk, ChunkId, ChunkKind, Definition, DocId, Document, DocumentRecord,
    Format, Node, NodeId, Page, PageRange, Reference, SectionNumber, Source, Span, Tree,
};

use crate::{DocSummary, StoredChunk};

/// A paragraph waiting for [`RecordBuilder::build`] to turn it into a chunk.
struct Para {
    node: NodeId,
    span: Span,
    kind: ChunkKind,
    defines: Vec<String>,
}

/// A reference waiting for its target to be resolved.
struct PendingRef {
    raw: String,
    span: Span,
    target: String,
    via: Option<String>,
    from: NodeId,
}

/// Builds a [`DocumentRecord`] by hand, one heading or paragraph at a time.
///
/// ```
/// # use strata_index::conformance::fixture::RecordBuilder;
/// let record = RecordBuilder::new("act", "An Act", "corpus/act.md")
///     .section(1, "§1. Scope", Some("1"))
///     .paragraph("This act applies to everything.")
///     .build();
/// assert_eq!(record.document.tree.len(), 2);
/// assert_eq!(record.chunks.len(), 1);
/// ```
pub struct RecordBuilder {
    id: DocId,
    title: String,
    path: String,
    text: String,
    /// Nodes with `own`/`subtree` ends still open (set in `build`).
    nodes: Vec<Node>,
    blocks: Vec<Block>,
    paras: Vec<Para>,
    definitions: Vec<Definition>,
    refs: Vec<PendingRef>,
    metadata: BTreeMap<String, serde_json::Value>,
    warnings: Vec<String>,
}

impl RecordBuilder {
    /// A document with only a root node; its text starts empty.
    pub fn new(id: &str, title: &str, path: &str) -> RecordBuilder {
        let root = Node {
            id: NodeId::ROOT,
            level: 0,
            title: title.to_string(),
            number: None,
            heading: Span::new(0, 0),
            own: Span::new(0, 0),
            subtree: Span::new(0, 0),
            pages: PageRange::single(1),
            parent: None,
            children: Vec::new(),
            summary: None,
        };
        RecordBuilder {
            id: DocId(id.to_string()),
            title: title.to_string(),
            path: path.to_string(),
            text: String::new(),
            nodes: vec![root],
            blocks: Vec::new(),
            paras: Vec::new(),
            definitions: Vec::new(),
            refs: Vec::new(),
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Starts a section at `level` (1 or deeper) under the nearest shallower one.
    pub fn section(mut self, level: u32, title: &str, number: Option<&str>) -> RecordBuilder {
        assert!(level >= 1, "sections start at level 1");
        let id = NodeId(self.nodes.len() as u32);
        let parent = self.nodes.iter().rev().find(|n| n.level < level).map(|n| n.id).unwrap_or(NodeId::ROOT);
        self.nodes[parent.index()].children.push(id);
        let start = self.text.len();
        self.text.push_str(title);
        let heading = Span::new(start, self.text.len());
        self.text.push_str("\n\n");
        self.blocks.push(Block::new(BlockKind::Heading, heading));
        self.nodes.push(Node {
            id,
            level,
            title: title.to_string(),
            number: number.map(|n| SectionNumber { number: n.to_string(), unit: None }),
            heading,
            own: Span::new(start, start),
            subtree: Span::new(start, start),
            pages: PageRange::single(1),
            parent: Some(parent),
            children: Vec::new(),
            summary: None,
        });
        self
    }

    /// A paragraph of ordinary prose in the current section: one chunk.
    pub fn paragraph(self, text: &str) -> RecordBuilder {
        self.paragraph_of(ChunkKind::Content, text)
    }

    /// A paragraph of the given kind in the current section: one chunk.
    pub fn paragraph_of(mut self, kind: ChunkKind, text: &str) -> RecordBuilder {
        let span = self.push_paragraph(text);
        self.paras.push(Para { node: self.current(), span, kind, defines: Vec::new() });
        self
    }

    /// A paragraph that defines `term`: a definition chunk and a [`Definition`].
    pub fn definition(mut self, term: &str, text: &str) -> RecordBuilder {
        let span = self.push_paragraph(text);
        let node = self.current();
        let normalized = normalize_term(term);
        self.definitions.push(Definition {
            term: term.to_string(),
            normalized: normalized.clone(),
            text: text.to_string(),
            span,
            doc: self.id.clone(),
            node,
            lines: None,
        });
        self.paras.push(Para { node, span, kind: ChunkKind::Definition, defines: vec![normalized] });
        self
    }

    /// A cross-reference: `raw` as written in the last paragraph, pointing at section key
    /// `target` (resolved against the tree's numbers when the record is built).
    pub fn reference(mut self, raw: &str, target: &str, via: Option<&str>) -> RecordBuilder {
        let last = self.paras.last().expect("a reference needs a paragraph before it");
        let at = last.span.slice(&self.text).find(raw).expect("the reference is in the last paragraph");
        let start = last.span.start + at;
        self.refs.push(PendingRef {
            raw: raw.to_string(),
            span: Span::new(start, start + raw.len()),
            target: target.to_string(),
            via: via.map(str::to_string),
            from: last.node,
        });
        self
    }

    /// A front-matter entry.
    pub fn metadata(mut self, key: &str, value: serde_json::Value) -> RecordBuilder {
        self.metadata.insert(key.to_string(), value);
        self
    }

    /// A reader warning.
    pub fn warning(mut self, warning: &str) -> RecordBuilder {
        self.warnings.push(warning.to_string());
        self
    }

    fn current(&self) -> NodeId {
        NodeId(self.nodes.len() as u32 - 1)
    }

    fn push_paragraph(&mut self, text: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(text);
        let span = Span::new(start, self.text.len());
        self.text.push_str("\n\n");
        self.blocks.push(Block::new(BlockKind::Paragraph, span));
        span
    }

    /// Closes every span and cuts the chunks.
    pub fn build(self) -> DocumentRecord {
        let RecordBuilder {
            id,
            title,
            path,
            text,
            mut nodes,
            blocks,
            paras,
            definitions,
            refs,
            metadata,
            warnings,
        } = self;
        let end = text.len();
        set_spans(&mut nodes, end);
        let tree = Tree::from_nodes(nodes);
        let references = resolve(refs, &tree);
        let lines = strata_core::Lines::new(&text, 1);
        let chunks: Vec<Chunk> = chunk_spans(&tree, &paras)
            .into_iter()
            .enumerate()
            .map(|(ordinal, (node, span, kind, defines))| {
                let ordinal = ordinal as u32;
                Chunk {
                    id: Chunk::make_id(&id, ordinal),
                    doc: id.clone(),
                    node,
                    ordinal,
                    span,
                    overlap_start: span.start,
                    pages: PageRange::single(1),
                    lines: Some(lines.range(span)),
                    tokens: span.slice(&text).split_whitespace().count() as u32,
                    kind,
                    heading_path: tree.heading_path(node),
                    defines,
                    uses: Vec::new(),
                    references: references
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| span.start <= r.span.start && r.span.end <= span.end)
                        .map(|(i, _)| i as u32)
                        .collect(),
                    context: None,
                    ocr: false,
                    ocr_confidence: None,
                }
            })
            .collect();

        let document = Document {
            id,
            source: Source {
                path,
                format: Format::Markdown,
                content_hash: blake3::hash(text.as_bytes()).to_hex().to_string(),
                size: text.len() as u64,
                mtime: Some(1_700_000_000),
            },
            title,
            pages: vec![Page { number: 1, label: None, span: Span::new(0, end), ocr: None }],
            blocks,
            tree,
            metadata,
            warnings,
            lead: strata_core::document_lead(&text, &[]),
            first_line: Some(1),
            // Stores keep what the annotate stage recorded, and list it with the document.
            annotations: vec![strata_core::Annotation {
                annotator: "sec".into(),
                confidence: 0.9,
                why: "detected (0.90 ≥ 0.50): a fixture".into(),
                filled: vec!["issuer".into()],
            }],
            text,
        };
        debug_assert_eq!(document.validate(), Ok(()));
        DocumentRecord::new(document, chunks, definitions, references)
    }
}

/// Own spans run to the next node's heading; subtrees to the next node that is not a
/// descendant (the next one at the same or a shallower level).
fn set_spans(nodes: &mut [Node], end: usize) {
    for i in 0..nodes.len() {
        let next = nodes.get(i + 1).map(|n| n.heading.start).unwrap_or(end);
        let level = nodes[i].level;
        let subtree_end =
            nodes[i + 1..].iter().find(|n| n.level <= level).map(|n| n.heading.start).unwrap_or(end);
        let start = nodes[i].heading.start;
        nodes[i].own = Span::new(start, next);
        nodes[i].subtree = Span::new(start, subtree_end);
    }
}

/// The references, each resolved to the node whose number it names.
fn resolve(refs: Vec<PendingRef>, tree: &Tree) -> Vec<Reference> {
    refs.into_iter()
        .map(|r| {
            let resolved = strata_text::number::find(tree, &r.target).next().map(|n| n.id);
            Reference {
                raw: r.raw,
                span: r.span,
                target: r.target,
                via: r.via,
                external: None,
                resolved,
                exact: resolved.is_some(),
                from: r.from,
            }
        })
        .collect()
}

/// Chunks tile each node's own span: the first starts at the heading, each ends where the
/// next paragraph of the node starts, the last at the node's end. A node without paragraphs
/// but with a heading gets one chunk for the heading.
fn chunk_spans(tree: &Tree, paras: &[Para]) -> Vec<(NodeId, Span, ChunkKind, Vec<String>)> {
    let mut chunks = Vec::new();
    for node in tree.nodes() {
        let mine: Vec<&Para> = paras.iter().filter(|p| p.node == node.id).collect();
        if mine.is_empty() {
            if !node.own.is_empty() {
                chunks.push((node.id, node.own, ChunkKind::Content, Vec::new()));
            }
            continue;
        }
        for (k, p) in mine.iter().enumerate() {
            let start = if k == 0 { node.own.start } else { p.span.start };
            let stop = mine.get(k + 1).map(|q| q.span.start).unwrap_or(node.own.end);
            chunks.push((node.id, Span::new(start, stop), p.kind, p.defines.clone()));
        }
    }
    chunks
}

/// Number of preamble paragraphs in [`widget_act`]: enough that section 102's chunks have
/// two-digit ordinals, so that ordering by ordinal as text (`"10" < "9"`) shows.
pub const RECITALS: usize = 9;

/// The main sample document, id `id`, path `corpus/widget-act.md`.
///
/// | node | heading | chunks (ordinals) | what the checks use |
/// |---|---|---|---|
/// | 0 | root | 9 recitals (0–8) | `recital`, non-ASCII text |
/// | 1 | `§102. Conditions for patentability` (`102`) | 9, 10 | `conditions` only in the heading (`patentability` stems to the title's `patent`); `prior art` adjacent; a reference to `4.2` |
/// | 2 | `§102(a) Novelty` (`102(a)`) | 11 | `art … prior` not adjacent; `filing` in content |
/// | 3 | `4.2 Fees and filing` (`4.2`) | 12 (requirement) | `requirement` (singular); `filing` in a requirement |
/// | 4 | `Definitions` | 13, 14 (definitions) | defines `invention` (with `gizmo`) and `applicant` |
///
/// `widget` occurs only in the title.
pub fn widget_act(id: &str) -> DocumentRecord {
    let mut b = RecordBuilder::new(id, "Widget Patent Act", "corpus/widget-act.md")
        .metadata("jurisdiction", serde_json::json!("Ruritania"))
        .warning("page 3: one unreadable glyph replaced");
    for i in 1..=RECITALS {
        b = b.paragraph(&format!("Recital {i}. This café édition is “annotated” — its § signs kept\tas is."));
    }
    b.section(1, "§102. Conditions for patentability", Some("102"))
        .paragraph("A person shall be entitled to a patent unless the claimed invention was described in the prior art of record.")
        .paragraph("Novelty is judged against printed publications; see section 4.2 for fees.")
        .reference("section 4.2", "4.2", Some("see"))
        .section(2, "§102(a) Novelty", Some("102(a)"))
        .paragraph("Disclosures made one year or less before filing are not art that is prior to the claim.")
        .section(1, "4.2 Fees and filing", Some("4.2"))
        .paragraph_of(ChunkKind::Requirement, "Each applicant shall meet every requirement of this part and pay the filing fee.")
        .section(1, "Definitions", None)
        .definition("Invention", "“Invention” means any gizmo made by a person.")
        .definition("Applicant", "“Applicant” means whoever applies for a patent.")
        .build()
}

/// [`widget_act`] rewritten: same id and path, other sections, chunks, terms and references.
/// None of `recital`, `gizmo`, `conditions`, `prior art`, `invention`, `applicant` or
/// section numbers `102`/`4.2` survives; it defines `contraption` and refers to section `1`.
pub fn widget_act_amended(id: &str) -> DocumentRecord {
    RecordBuilder::new(id, "Widget Patent Act", "corpus/widget-act.md")
        .section(1, "1 General provisions", Some("1"))
        .paragraph("A doohickey may be registered once.")
        .section(1, "2 Terms", Some("2"))
        .definition("Contraption", "“Contraption” means a doohickey with parts.")
        .paragraph("As stated in section 1, registration happens once.")
        .reference("section 1", "1", None)
        .build()
}

/// A second document, path `corpus/gadget-rules.md` (listed before the widget act), that
/// also defines `invention` and also mentions `filing`.
pub fn gadget_rules(id: &str) -> DocumentRecord {
    RecordBuilder::new(id, "Gadget Rules", "corpus/gadget-rules.md")
        .section(1, "1 Scope", Some("1"))
        .paragraph("These rules govern the filing of gadget claims.")
        .section(1, "2 Definitions", Some("2"))
        .definition("invention", "“Invention” has the meaning given in the parent statute.")
        .build()
}

/// The [`StoredChunk`] a store must return for `chunk` of `record`.
pub fn stored_chunk(record: &DocumentRecord, chunk: &Chunk) -> StoredChunk {
    StoredChunk::of(&record.document, chunk)
}

/// The [`DocSummary`] a store must list for `record`.
pub fn doc_summary(record: &DocumentRecord) -> DocSummary {
    DocSummary::of(&record.document, record.chunks.len(), record.definitions.len(), record.references.len())
}

/// Ids of the chunks of `record` that satisfy `keep`, in ordinal order.
pub fn chunk_ids(record: &DocumentRecord, keep: impl Fn(&Chunk) -> bool) -> Vec<ChunkId> {
    record.chunks.iter().filter(|c| keep(c)).map(|c| c.id.clone()).collect()
}

/// Model id of the vectors [`with_vectors`] attaches.
pub const VECTOR_MODEL: &str = "fixture-hash-16";
/// Dimension of those vectors.
pub const VECTOR_DIM: usize = 16;

/// A unit vector derived from `key` alone (SplitMix64 over blake3 of the key), so checks can
/// recompute any chunk's vector and brute-force the expected ranking.
pub fn unit_vector(key: &str) -> Vec<f32> {
    let hash = blake3::hash(key.as_bytes());
    let mut state = u64::from_le_bytes(hash.as_bytes()[..8].try_into().unwrap());
    let mut v: Vec<f32> = (0..VECTOR_DIM)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// `record` with one [`unit_vector`] per chunk, keyed by the chunk id, and one per section
/// profile, keyed by [`section_key`].
pub fn with_vectors(mut record: DocumentRecord) -> DocumentRecord {
    let values = record.chunks.iter().flat_map(|c| unit_vector(c.id.as_str())).collect();
    record.vectors =
        Some(strata_core::ChunkVectors { model: VECTOR_MODEL.to_string(), dim: VECTOR_DIM, values });
    let nodes: Vec<NodeId> = strata_core::section_profiles(&record.document).iter().map(|p| p.node).collect();
    let values = nodes.iter().flat_map(|n| unit_vector(&section_key(&record.document.id, *n))).collect();
    record.section_vectors = Some(strata_core::SectionVectors {
        nodes,
        vectors: strata_core::ChunkVectors { model: VECTOR_MODEL.to_string(), dim: VECTOR_DIM, values },
    });
    record
}

/// The key of a section's [`unit_vector`]: `DOC#NODE`.
pub fn section_key(doc: &strata_core::DocId, node: NodeId) -> String {
    format!("{doc}#{node}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixtures themselves keep the invariants the checks rely on.
    #[test]
    fn fixtures_are_consistent() {
        for record in [widget_act("w"), widget_act_amended("w"), gadget_rules("g")] {
            let doc = &record.document;
            doc.validate().unwrap();
            let nodes = doc.tree.nodes();
            // Own spans tile the text in depth-first order.
            let mut at = 0;
            for n in nodes {
                assert_eq!(n.own.start, at, "node {}", n.id);
                at = n.own.end;
                for c in &n.children {
                    assert_eq!(nodes[c.index()].parent, Some(n.id));
                    assert!(n.subtree.start <= nodes[c.index()].subtree.start);
                    assert!(nodes[c.index()].subtree.end <= n.subtree.end);
                }
            }
            assert_eq!(at, doc.text.len());
            // Chunks tile each node's own span, in ordinal order.
            let joined: String = record.chunks.iter().map(|c| c.span.slice(&doc.text)).collect();
            let owned: String = nodes.iter().map(|n| n.own.slice(&doc.text)).collect();
            assert_eq!(joined, owned);
            assert_eq!(joined, doc.text);
            for (i, c) in record.chunks.iter().enumerate() {
                assert_eq!(c.ordinal as usize, i);
                assert!(
                    nodes[c.node.index()].own.start <= c.span.start
                        && c.span.end <= nodes[c.node.index()].own.end
                );
            }
            for r in &record.references {
                assert!(r.resolved.is_some(), "{} resolves", r.raw);
                assert_eq!(r.span.slice(&doc.text), r.raw);
            }
        }
        let w = widget_act("w");
        assert_eq!(w.chunks.len(), RECITALS + 6);
        assert_eq!(w.chunks[RECITALS].node, NodeId(1));
        assert_eq!(w.references[0].resolved, Some(NodeId(3)));
        assert_eq!(w.chunks[RECITALS + 1].references, vec![0]);
        assert_eq!(w.document.tree.get(NodeId(2)).unwrap().parent, Some(NodeId(1)));
        assert_eq!(
            w.document.tree.get(NodeId(1)).unwrap().subtree.end,
            w.document.tree.get(NodeId(3)).unwrap().heading.start
        );
    }
}
