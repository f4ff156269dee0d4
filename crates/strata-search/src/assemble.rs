//! The assemble stage: hits, definitions and references packed into one context block that
//! fits a token budget, each passage under its citation.
//!
//! Packing goes by importance: hits in rank order, each followed by the definitions of the
//! terms it uses (the definitions of terms the query names come right after the first hit),
//! then the referenced sections. A hit that does not fit whole is cut at a token boundary
//! (then back to a word boundary) when at least [`MIN_PARTIAL_TOKENS`] tokens are left, and
//! marked with `…`; a definition or reference that does not fit is left out.
//!
//! The block is then written in reading order:
//!
//! ```text
//! ## RFC 9110: HTTP Semantics
//!
//! [RFC 9110: HTTP Semantics › 9. Methods › 9.3.1. GET, p. 12–13]
//! The GET method requests transfer of …
//!
//! ## Definitions
//!
//! [Title 35 › … › §100. Definitions, p. 3] invention: The term "invention" means …
//!
//! ## Referenced sections
//! …
//! ```
//!
//! With [`Order::Position`] hits are grouped by document (documents in the order of their
//! best hit) and follow document order inside each group; with [`Order::Score`] they follow
//! rank, each under its citation. The token count is that of the final text under the
//! index's tokenizer, recounted after packing, so it is exact; packing never exceeds the
//! budget.

use strata_text::tokenize::Tokenizer;

use crate::request::Order;
use crate::response::{Context, SearchResponse};

/// A hit is cut to fit only when at least this many tokens of the budget are left.
pub const MIN_PARTIAL_TOKENS: usize = 48;

/// What a block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// `hits[i]`.
    Hit(usize),
    /// `definitions[i]`.
    Definition(usize),
    /// `references[i]`.
    Reference(usize),
}

/// One passage to pack: its citation, its text, and where it sorts.
#[derive(Debug, Clone)]
pub struct Block {
    /// What it is.
    pub item: Item,
    /// Document group (hits only): the document's title.
    pub group: String,
    /// Document id and byte offset, for document order.
    pub position: (String, usize),
    /// `[doc › path, p. 12–13]`.
    pub citation: String,
    /// The text.
    pub text: String,
}

impl Block {
    fn render(&self, text: &str) -> String {
        match self.item {
            Item::Definition(_) => format!("{} {}\n\n", self.citation, text.trim()),
            _ => format!("{}\n{}\n\n", self.citation, text.trim_end()),
        }
    }
}

/// Packs `blocks` (given in importance order) into at most `budget` tokens of `tokenizer`
/// and writes the block in reading order (see the module doc).
pub fn assemble(blocks: &[Block], budget: usize, order: Order, tokenizer: &dyn Tokenizer) -> Context {
    // Pick greedily by importance, counting each block alone; headers are counted once.
    let header_cost = |title: &str| tokenizer.count(&format!("## {title}\n\n"));
    let mut used = 0usize;
    let mut picked: Vec<(usize, String, bool)> = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    let (mut defs_header, mut refs_header) = (false, false);
    for (i, block) in blocks.iter().enumerate() {
        let header = match block.item {
            Item::Hit(_) if order == Order::Position && !groups.contains(&block.group) => {
                header_cost(&block.group)
            }
            Item::Definition(_) if !defs_header => header_cost("Definitions"),
            Item::Reference(_) if !refs_header => header_cost("Referenced sections"),
            _ => 0,
        };
        let cost = tokenizer.count(&block.render(&block.text)) + header;
        if used + cost <= budget {
            used += cost;
            picked.push((i, block.text.clone(), false));
        } else if matches!(block.item, Item::Hit(_))
            && budget.saturating_sub(used + header) >= MIN_PARTIAL_TOKENS
        {
            let room = budget - used - header;
            let frame = tokenizer.count(&block.render("")) + 2;
            if let Some(cut) = cut_to(&block.text, room.saturating_sub(frame), tokenizer) {
                used += tokenizer.count(&block.render(&cut)) + header;
                picked.push((i, cut, true));
            } else {
                continue;
            }
        } else {
            continue;
        }
        match block.item {
            Item::Hit(_) if !groups.contains(&block.group) => groups.push(block.group.clone()),
            Item::Definition(_) => defs_header = true,
            Item::Reference(_) => refs_header = true,
            _ => {}
        }
    }
    // Write, count exactly, and drop the least important block while over budget (a
    // token merging across two blocks can make the whole differ from the sum of its parts).
    loop {
        let (text, context) = write(blocks, &picked, order);
        let tokens = tokenizer.count(&text);
        if tokens <= budget || picked.is_empty() {
            return Context { text, tokens, budget, tokenizer: tokenizer.id().to_string(), ..context };
        }
        picked.pop();
    }
}

/// The context's blocks in importance order: hits by rank, each followed by the definitions
/// it uses (those the query names right after the first hit), then the references.
pub fn blocks(r: &SearchResponse) -> Vec<Block> {
    let mut defs: Vec<Block> = Vec::new();
    for (i, d) in r.definitions.iter().enumerate() {
        defs.push(Block {
            item: Item::Definition(i),
            group: d.doc_title.clone(),
            position: (d.doc_id.clone(), d.span.start),
            citation: d.citation.clone(),
            text: format!("{}: {}", d.term, d.text),
        });
    }
    let mut out = Vec::new();
    let mut placed = vec![false; defs.len()];
    for (i, h) in r.hits.iter().enumerate() {
        // The citation names the hit's section; a heading it does not name (whole pages
        // that start in a subsection) goes on its own line above the text.
        let text = match h.heading_apart() {
            Some(heading) => format!("{heading}\n{}", h.text),
            None => h.text.clone(),
        };
        out.push(Block {
            item: Item::Hit(i),
            group: h.doc_title.clone(),
            position: (h.doc_id.clone(), h.span.start),
            citation: h.citation.clone(),
            text,
        });
        for (j, d) in r.definitions.iter().enumerate() {
            let due = (i == 0 && d.in_query) || d.used_by.contains(&h.chunk_id);
            if due && !placed[j] {
                placed[j] = true;
                out.push(defs[j].clone());
            }
        }
    }
    out.extend(defs.iter().zip(&placed).filter(|(_, p)| !**p).map(|(d, _)| d.clone()));
    for (i, x) in r.references.iter().enumerate() {
        out.push(Block {
            item: Item::Reference(i),
            group: x.doc_title.clone(),
            position: (x.doc_id.clone(), x.span.start),
            citation: format!("{} (referred to as {:?})", x.citation, x.raw),
            text: x.text.clone(),
        });
    }
    out
}

/// `text` cut to at most `tokens` tokens, at a word boundary, with `…` appended; `None`
/// when not even one word fits.
fn cut_to(text: &str, tokens: usize, tokenizer: &dyn Tokenizer) -> Option<String> {
    if tokens == 0 {
        return None;
    }
    let starts = tokenizer.token_starts(text);
    // A byte-level BPE token can start inside a character (CJK, emoji).
    let end = strata_core::floor_char_boundary(text, starts.get(tokens).copied().unwrap_or(text.len()));
    let head = &text[..end];
    let at_word = head.rfind(char::is_whitespace).filter(|&i| i > 0).unwrap_or(end);
    let cut = head[..at_word].trim_end();
    (!cut.is_empty()).then(|| format!("{cut} …"))
}

/// The block text of the picked blocks in reading order, and the context's index lists.
fn write(blocks: &[Block], picked: &[(usize, String, bool)], order: Order) -> (String, Context) {
    let mut hits: Vec<&(usize, String, bool)> =
        picked.iter().filter(|(i, ..)| matches!(blocks[*i].item, Item::Hit(_))).collect();
    if order == Order::Position {
        let group_rank = |g: &str| {
            picked.iter().position(|(i, ..)| blocks[*i].group == g && matches!(blocks[*i].item, Item::Hit(_)))
        };
        hits.sort_by(|a, b| {
            let (ba, bb) = (&blocks[a.0], &blocks[b.0]);
            group_rank(&ba.group).cmp(&group_rank(&bb.group)).then(ba.position.cmp(&bb.position))
        });
    }
    let mut text = String::new();
    let mut context = Context {
        text: String::new(),
        tokens: 0,
        budget: 0,
        tokenizer: String::new(),
        hits: Vec::new(),
        truncated: Vec::new(),
        definitions: Vec::new(),
        references: Vec::new(),
    };
    let mut group: Option<&str> = None;
    for (i, body, cut) in hits {
        let block = &blocks[*i];
        if order == Order::Position && group != Some(block.group.as_str()) {
            text.push_str(&format!("## {}\n\n", block.group));
            group = Some(&block.group);
        }
        text.push_str(&block.render(body));
        if let Item::Hit(h) = block.item {
            context.hits.push(h);
            if *cut {
                context.truncated.push(h);
            }
        }
    }
    for (title, want) in [("Definitions", 0), ("Referenced sections", 1)] {
        let mut first = true;
        for (i, body, _) in picked {
            let block = &blocks[*i];
            let index = match (block.item, want) {
                (Item::Definition(d), 0) => d,
                (Item::Reference(r), 1) => r,
                _ => continue,
            };
            if first {
                text.push_str(&format!("## {title}\n\n"));
                first = false;
            }
            text.push_str(&block.render(body));
            if want == 0 {
                context.definitions.push(index);
            } else {
                context.references.push(index);
            }
        }
    }
    let text = text.trim_end().to_string();
    (text, context)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whitespace tokenizer: one token per word, exact and easy to reason about.
    struct Words;
    impl Tokenizer for Words {
        fn id(&self) -> &str {
            "words"
        }
        fn token_starts(&self, text: &str) -> Vec<usize> {
            let mut out = Vec::new();
            let mut prev_space = true;
            for (i, c) in text.char_indices() {
                if !c.is_whitespace() && prev_space {
                    out.push(i);
                }
                prev_space = c.is_whitespace();
            }
            out
        }
    }

    fn hit(i: usize, doc: &str, at: usize, words: usize) -> Block {
        Block {
            item: Item::Hit(i),
            group: doc.to_string(),
            position: (doc.to_string(), at),
            citation: format!("[{doc} › s{i}, p. 1]"),
            text: (0..words).map(|w| format!("h{i}w{w}")).collect::<Vec<_>>().join(" "),
        }
    }

    #[test]
    fn packs_by_importance_writes_by_position_and_never_exceeds_the_budget() {
        let blocks = vec![
            hit(0, "B", 500, 10),
            hit(1, "A", 10, 10),
            hit(2, "B", 100, 10),
            Block {
                item: Item::Definition(0),
                group: String::new(),
                position: (String::new(), 0),
                citation: "[B › Definitions, p. 1]".into(),
                text: "term: means a thing".into(),
            },
        ];
        let all = assemble(&blocks, 1000, Order::Position, &Words);
        assert_eq!(all.tokens, Words.count(&all.text), "exact count");
        // B first (its best hit ranks first), in document order inside; then A.
        assert_eq!(all.hits, vec![2, 0, 1]);
        assert_eq!(all.definitions, vec![0]);
        assert!(all.text.starts_with("## B\n\n[B › s2, p. 1]\nh2w0"), "{}", all.text);
        assert!(all.text.contains("## Definitions\n\n[B › Definitions, p. 1] term: means a thing"));
        for budget in [5, 20, 30, 47, 60, 80] {
            let c = assemble(&blocks, budget, Order::Score, &Words);
            assert!(c.tokens <= budget, "{} > {budget}", c.tokens);
            assert_eq!(c.tokens, Words.count(&c.text));
        }
        let by_score = assemble(&blocks, 1000, Order::Score, &Words);
        assert_eq!(by_score.hits, vec![0, 1, 2]);
    }

    #[test]
    fn a_hit_too_long_for_the_rest_of_the_budget_is_cut_at_a_word() {
        let blocks = vec![hit(0, "A", 0, 20), hit(1, "A", 100, 200)];
        let c = assemble(&blocks, 120, Order::Position, &Words);
        assert_eq!(c.hits, vec![0, 1]);
        assert_eq!(c.truncated, vec![1]);
        assert!(c.tokens <= 120 && c.tokens > 100, "{}", c.tokens);
        assert!(c.text.ends_with('…'));
    }

    /// A tokenizer whose token starts fall inside characters, as byte-level BPE's can.
    struct Bytes;
    impl Tokenizer for Bytes {
        fn id(&self) -> &str {
            "bytes"
        }
        fn token_starts(&self, text: &str) -> Vec<usize> {
            (0..text.len()).collect()
        }
    }

    #[test]
    fn regression_cutting_a_hit_inside_a_character_does_not_panic() {
        let text = "知识产权 ".repeat(200);
        let blocks = vec![Block {
            item: Item::Hit(0),
            group: "A".into(),
            position: ("A".into(), 0),
            citation: "[A, p. 1]".into(),
            text,
        }];
        let c = assemble(&blocks, 301, Order::Position, &Bytes);
        assert_eq!(c.truncated, vec![0]);
        assert!(c.tokens <= 301);
    }
}
