//! The chunk stage: token-bounded pieces of each section that tile its text.
//!
//! Each section's own text (its heading and the text up to its first child) is tokenized once;
//! the token start offsets then give the token count of any range with two binary searches.
//! Pieces are packed greedily from the left. Where a piece ends is chosen from boundaries of
//! falling strength:
//!
//! 1. **block** starts (paragraphs, tables, code blocks, list items), taken when the piece is at
//!    least half full, so tables, code and list items stay whole where they fit;
//! 2. **sentence** starts (abbreviation-aware, see [`crate::sentence`]) outside tables and
//!    code;
//! 3. **line** starts, only when no sentence boundary fits (one sentence, row or code block
//!    longer than the limit);
//! 4. **word** starts, only when no line fits;
//! 5. a character boundary, only for a single "word" longer than the limit.
//!
//! Pieces never cross a section boundary, so chunks break on headings. Each piece after the
//! first also records an overlap start: up to `overlap` tokens back into the previous piece,
//! on a sentence or word boundary, which the index prepends for retrieval.

use std::sync::Arc;

use strata_core::config::ChunkConfig;
use strata_core::{
    ceil_char_boundary, floor_char_boundary, Block, BlockKind, Chunk, ChunkKind, Document, NodeId, Span,
};

use strata_text::sentence::sentence_starts;
use strata_text::tokenize::Tokenizer;

/// One piece of a section: its tiling span, its overlap start and its token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// The piece's own text.
    pub span: Span,
    /// Where the indexed text starts (`<= span.start`).
    pub overlap_start: usize,
    /// Tokens in `span`.
    pub tokens: usize,
}

/// Longest heading path kept on a chunk; deeper paths keep the top and the bottom levels.
const MAX_PATH: usize = 32;

/// A chunk of `doc` at `span` as the chunker leaves it: no overlap, kind `content`, nothing
/// enriched yet.
fn unenriched(
    doc: &Document,
    ordinal: u32,
    node: NodeId,
    span: Span,
    tokens: usize,
    heading_path: Vec<String>,
) -> Chunk {
    let pages = doc.pages_of(span);
    let ocr_confidence = doc.ocr_confidence(pages);
    Chunk {
        id: Chunk::make_id(&doc.id, ordinal),
        doc: doc.id.clone(),
        node,
        ordinal,
        span,
        overlap_start: span.start,
        pages,
        lines: None,
        tokens: tokens as u32,
        kind: ChunkKind::Content,
        heading_path,
        defines: Vec::new(),
        uses: Vec::new(),
        references: Vec::new(),
        context: None,
        ocr: ocr_confidence.is_some(),
        ocr_confidence,
    }
}

/// Sets each chunk's source lines, in a document cited by line.
fn cite_lines(doc: &Document, chunks: &mut [Chunk]) {
    if let Some(lines) = doc.lines() {
        for chunk in chunks {
            chunk.lines = Some(lines.range(chunk.span));
        }
    }
}

/// Cuts documents into chunks.
pub struct Chunker {
    tokenizer: Arc<dyn Tokenizer>,
    max_tokens: usize,
    overlap: usize,
}

impl Chunker {
    /// A chunker with a tokenizer and validated chunk settings.
    pub fn new(tokenizer: Arc<dyn Tokenizer>, config: &ChunkConfig) -> Chunker {
        Chunker { tokenizer, max_tokens: config.max_tokens.max(1), overlap: config.overlap }
    }

    /// The tokenizer chunks are counted with.
    pub fn tokenizer(&self) -> &Arc<dyn Tokenizer> {
        &self.tokenizer
    }

    /// All chunks of a document, in document order. Kinds are left as `content` for the
    /// enrich stage.
    pub fn chunk(&self, doc: &Document) -> Vec<Chunk> {
        let mut chunks = Vec::new();
        // Heading paths are built incrementally along the depth-first order, so a deep tree
        // costs O(nodes × MAX_PATH), not O(nodes × depth).
        let nodes = doc.tree.nodes();
        let mut paths: Vec<Option<Vec<String>>> = vec![None; nodes.len()];
        let mut block_at = 0usize;
        for node in nodes {
            let path = match node.parent {
                None => Vec::new(),
                Some(p) => {
                    let mut path = paths[p.index()].clone().unwrap_or_default();
                    if path.len() >= MAX_PATH {
                        path.remove(MAX_PATH / 4);
                        if path[MAX_PATH / 4 - 1] != "…" {
                            path[MAX_PATH / 4 - 1] = "…".into();
                        }
                    }
                    path.push(node.title.clone());
                    path
                }
            };
            // Blocks are sorted; advance a cursor instead of searching per node.
            while block_at < doc.blocks.len() && doc.blocks[block_at].span.end <= node.own.start {
                block_at += 1;
            }
            let mut block_end = block_at;
            while block_end < doc.blocks.len() && doc.blocks[block_end].span.start < node.own.end {
                block_end += 1;
            }
            for piece in self.chunk_section(&doc.text, node.own, &doc.blocks[block_at..block_end]) {
                let ordinal = chunks.len() as u32;
                let mut chunk = unenriched(doc, ordinal, node.id, piece.span, piece.tokens, path.clone());
                chunk.overlap_start = piece.overlap_start;
                chunks.push(chunk);
            }
            if !node.children.is_empty() {
                paths[node.id.index()] = Some(path);
            }
        }
        cite_lines(doc, &mut chunks);
        chunks
    }

    /// Chunks at spans chosen elsewhere (a data set's own chunking, say), in the order given.
    /// Each span must lie inside the text on character boundaries and be non-empty; spans
    /// may not overlap. A chunk belongs to the section its span starts in and carries no
    /// overlap. The error names the first bad span.
    pub fn chunk_at(&self, doc: &Document, spans: &[Span]) -> Result<Vec<Chunk>, String> {
        let mut chunks = Vec::with_capacity(spans.len());
        let mut sorted: Vec<Span> = spans.to_vec();
        sorted.sort_by_key(|s| s.start);
        for pair in sorted.windows(2) {
            if pair[0].end > pair[1].start {
                return Err(format!("chunk spans {:?} and {:?} overlap", pair[0], pair[1]));
            }
        }
        for &span in spans {
            let fits = span.start < span.end
                && span.end <= doc.text.len()
                && doc.text.is_char_boundary(span.start)
                && doc.text.is_char_boundary(span.end);
            if !fits {
                return Err(format!(
                    "chunk span {}..{} is empty, outside the text ({} bytes) or not on character boundaries",
                    span.start,
                    span.end,
                    doc.text.len()
                ));
            }
            let ordinal = chunks.len() as u32;
            let node = doc.tree.node_at(span.start);
            let tokens = self.tokenizer.count(span.slice(&doc.text));
            chunks.push(unenriched(doc, ordinal, node, span, tokens, doc.tree.heading_path(node)));
        }
        cite_lines(doc, &mut chunks);
        Ok(chunks)
    }

    /// Pieces of `span` of `text`, given the blocks that overlap it. Blank spans give none;
    /// otherwise the pieces tile `span` exactly.
    pub fn chunk_section(&self, text: &str, span: Span, blocks: &[Block]) -> Vec<Piece> {
        let section = &text[span.start..span.end];
        if section.trim().is_empty() {
            return Vec::new();
        }
        let starts: Vec<usize> =
            self.tokenizer.token_starts(section).into_iter().map(|s| s + span.start).collect();
        // Tokens overlapping `a..b`: from the token that holds `a` (a piece that starts at a
        // word often starts inside a token that carries the space before it) to the last
        // token starting before `b`.
        let count = |a: usize, b: usize| lower(&starts, b).saturating_sub(holding(&starts, a));
        if starts.len() <= self.max_tokens {
            return vec![Piece { span, overlap_start: span.start, tokens: starts.len() }];
        }
        let bounds = Boundaries::new(text, span, blocks);
        // Trailing whitespace joins the last piece; reserve its tokens so that the last piece
        // stays within the limit.
        let content_end = span.start + section.trim_end().len();
        let tail = count(content_end, span.end);
        let budget = if tail * 2 < self.max_tokens { self.max_tokens - tail } else { self.max_tokens };
        let mut pieces = Vec::new();
        let mut p = span.start;
        while p < span.end {
            let idx = holding(&starts, p);
            let mut end = if starts.len() - idx <= self.max_tokens {
                span.end
            } else {
                // Byte-level BPE tokens may start inside a multi-byte character.
                let mut limit = floor_char_boundary(text, starts[idx + budget]);
                if limit <= p {
                    limit = ceil_char_boundary(text, p + 1);
                }
                self.cut(text, &bounds, p, limit, &count)
            };
            if text[end..span.end].trim().is_empty() {
                end = span.end;
            }
            let overlap_start = if pieces.is_empty() || self.overlap == 0 {
                p
            } else {
                self.overlap_start(text, &bounds, &starts, span.start, p)
            };
            pieces.push(Piece { span: Span::new(p, end), overlap_start, tokens: count(p, end) });
            p = end;
        }
        pieces
    }

    /// Where a piece starting at `p` ends, given that every boundary `<= limit` keeps it within
    /// the token limit.
    fn cut(
        &self,
        text: &str,
        b: &Boundaries,
        p: usize,
        limit: usize,
        count: &dyn Fn(usize, usize) -> usize,
    ) -> usize {
        let block = last_in(&b.blocks, p, limit);
        if let Some(end) = block {
            if count(p, end) * 2 >= self.max_tokens {
                return end;
            }
        }
        if let Some(end) = last_in(&b.sentences, p, limit).or(block) {
            return end;
        }
        // One sentence (or row, or code block) is longer than the limit: lines, then words.
        let window = &text[p..limit];
        if let Some(i) = window.rfind('\n').filter(|&i| i > 0) {
            return p + i + 1;
        }
        if let Some(end) = last_word_start(window) {
            return p + end;
        }
        // A single word longer than the limit: cut it at the last char boundary after `p` up to
        // `limit`, else at the first one after `limit`.
        let end = if limit > p { floor_char_boundary(text, limit).max(p) } else { limit };
        if end == p {
            return ceil_char_boundary(text, limit + 1).max(limit + 1);
        }
        end
    }

    /// Start of the overlap before a piece starting at `p`: the earliest sentence start within
    /// `overlap` tokens, else the earliest word start.
    fn overlap_start(
        &self,
        text: &str,
        b: &Boundaries,
        starts: &[usize],
        section_start: usize,
        p: usize,
    ) -> usize {
        let idx = holding(starts, p);
        let first = lower(starts, section_start);
        let from = ceil_char_boundary(text, starts[idx.saturating_sub(self.overlap).max(first)]).min(p);
        let i = b.sentences.partition_point(|&s| s < from);
        if let Some(&s) = b.sentences.get(i).filter(|&&s| s < p) {
            // `s` can fall inside the token that holds `p` (the tokenizer skips whitespace), so
            // its first token may come after `idx`.
            let have = idx.saturating_sub(lower(starts, s));
            if have * 4 >= self.overlap {
                return s;
            }
        }
        // First word start at or after `from`.
        let window = &text[from..p];
        let bytes = window.as_bytes();
        if from == section_start || (from > 0 && text.as_bytes()[from - 1].is_ascii_whitespace()) {
            return from;
        }
        for i in 0..bytes.len().saturating_sub(1) {
            if bytes[i].is_ascii_whitespace() && !bytes[i + 1].is_ascii_whitespace() {
                return from + i + 1;
            }
        }
        p
    }
}

/// Candidate cut points of one section, sorted.
struct Boundaries {
    blocks: Vec<usize>,
    sentences: Vec<usize>,
}

impl Boundaries {
    fn new(text: &str, span: Span, blocks: &[Block]) -> Boundaries {
        let inside = |o: usize| o > span.start && o < span.end;
        let block_starts: Vec<usize> = blocks.iter().map(|b| b.span.start).filter(|&o| inside(o)).collect();
        // Tables and code keep their insides whole: no sentence boundary within them.
        let atomic: Vec<Span> = blocks
            .iter()
            .filter(|b| matches!(b.kind, BlockKind::Table | BlockKind::Code))
            .map(|b| b.span)
            .collect();
        let mut sentences: Vec<usize> = sentence_starts(&text[span.start..span.end])
            .into_iter()
            .map(|s| s + span.start)
            .filter(|&o| !atomic.iter().any(|a| o > a.start && o < a.end))
            .collect();
        // Paragraph breaks are sentence boundaries even without punctuation.
        let section = &text[span.start..span.end];
        let mut at = 0;
        while let Some(i) = section[at..].find("\n\n") {
            let mut o = at + i + 2;
            while o < section.len() && section.as_bytes()[o] == b'\n' {
                o += 1;
            }
            let abs = span.start + o;
            if inside(abs) && !atomic.iter().any(|a| abs > a.start && abs < a.end) {
                sentences.push(abs);
            }
            at = o;
        }
        sentences.extend(&block_starts);
        sentences.sort_unstable();
        sentences.dedup();
        Boundaries { blocks: block_starts, sentences }
    }
}

/// Index of the token that holds byte `at`: the last token starting at or before it.
fn holding(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at).saturating_sub(1)
}

/// Index of the first offset `>= at`.
fn lower(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s < at)
}

/// The last boundary in `(p, limit]`.
fn last_in(bounds: &[usize], p: usize, limit: usize) -> Option<usize> {
    let i = bounds.partition_point(|&b| b <= limit);
    bounds[..i].last().copied().filter(|&b| b > p)
}

/// The start of the last word in `window` that is not at 0.
fn last_word_start(window: &str) -> Option<usize> {
    let bytes = window.as_bytes();
    (1..bytes.len()).rev().find(|&i| !bytes[i].is_ascii_whitespace() && bytes[i - 1].is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::Cl100k;

    fn chunker(max: usize, overlap: usize) -> Chunker {
        Chunker::new(Arc::new(Cl100k::new().unwrap()), &ChunkConfig { max_tokens: max, overlap })
    }

    fn pieces(c: &Chunker, text: &str) -> Vec<Piece> {
        c.chunk_section(text, Span::new(0, text.len()), &[])
    }

    #[test]
    fn small_section_is_one_piece() {
        let text = "# Title\n\nShort text.";
        let p = pieces(&chunker(64, 8), text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].span, Span::new(0, text.len()));
    }

    #[test]
    fn pieces_end_on_sentences_and_respect_the_limit() {
        let text = "This is sentence number one of many. ".repeat(60);
        let c = chunker(50, 10);
        let p = pieces(&c, &text);
        assert!(p.len() > 3);
        let joined: String = p.iter().map(|x| x.span.slice(&text)).collect();
        assert_eq!(joined, text);
        for x in &p {
            assert!(x.tokens <= 50, "{x:?}");
            assert!(x.span.slice(&text).starts_with("This"), "{:?}", x.span.slice(&text));
        }
        assert!(p[1].overlap_start < p[1].span.start);
    }

    #[test]
    fn one_long_sentence_splits_at_words() {
        let text = "word ".repeat(500);
        let p = pieces(&chunker(32, 0), &text);
        assert!(p.iter().all(|x| x.tokens <= 32));
        assert!(p.iter().all(|x| x.span.slice(&text).starts_with("word")));
    }

    #[test]
    fn one_huge_word_splits_on_char_boundaries() {
        let text = "é".repeat(3000);
        let p = pieces(&chunker(16, 0), &text);
        let joined: String = p.iter().map(|x| x.span.slice(&text)).collect();
        assert_eq!(joined, text);
    }

    /// Regression: cl100k splits a CJK character over several byte-level tokens, so a token
    /// start can fall inside a character; cuts and overlaps must still land on boundaries.
    #[test]
    fn regression_token_start_inside_a_multibyte_char() {
        let text = "日本語 ".repeat(400);
        let c = chunker(16, 4);
        let p = pieces(&c, &text);
        let joined: String = p.iter().map(|x| x.span.slice(&text)).collect();
        assert_eq!(joined, text);
        assert!(p.iter().all(|x| text.is_char_boundary(x.overlap_start)));
    }

    /// Regression: cl100k tokens carry the space before a word, so a piece that starts at a
    /// word starts inside a token; that token must be counted, or pieces get one token over.
    #[test]
    fn regression_piece_starting_inside_a_token_is_counted() {
        let text = "alpha beta gamma delta ".repeat(300);
        let c = chunker(16, 0);
        let tok = Cl100k::new().unwrap();
        for x in pieces(&c, &text) {
            assert!(x.tokens <= 16, "{x:?}");
            assert!(tok.count(x.span.slice(&text)) <= 16, "{:?}", x.span.slice(&text));
        }
    }

    #[test]
    fn tables_stay_whole_when_they_fit() {
        let prose = "Some prose sentence here. ".repeat(12);
        let table = "| a | b |\n|---|---|\n".to_string() + &"| cell one | cell two |\n".repeat(8);
        let text = format!("{prose}\n\n{table}\n{prose}");
        let t0 = prose.len() + 2;
        let blocks = [
            Block::new(BlockKind::Paragraph, Span::new(0, prose.len())),
            Block::new(BlockKind::Table, Span::new(t0, t0 + table.len())),
            Block::new(BlockKind::Paragraph, Span::new(t0 + table.len() + 1, text.len())),
        ];
        let c = chunker(128, 0);
        let p = c.chunk_section(&text, Span::new(0, text.len()), &blocks);
        let table_span = blocks[1].span;
        for x in &p {
            let cuts_table = x.span.start > table_span.start && x.span.start < table_span.end;
            assert!(!cuts_table, "piece {x:?} cuts the table {table_span}");
        }
    }
}
