//! The sentence level: which sentences of a returned passage answer the query.
//!
//! No sentence index is kept. The passages a search returns are split into sentences (the
//! same splitter the chunker uses) and each sentence is scored against the query:
//!
//! - **dense**, when the searcher has the query embedder: the inner product of the sentence's
//!   embedding with the query vector the dense leg already made. Whole passages are scored
//!   this way in rank order while their sentences fit in the request's budget
//!   (`[search] dense_highlight_sentences`), so the cost per search stays bounded;
//! - **BM25** over the sentences of all returned passages (the passages are the collection:
//!   term frequency in the sentence, inverse document frequency across those sentences,
//!   English stemming as the keyword leg does). In a passage scored densely it only breaks
//!   near-ties (it adds at most [`LEXICAL_TIE_BREAK`]); in the others it is the score.
//!
//! A passage's best `per_hit` sentences come back, best first, as byte spans of the
//! document's text. A sentence with no dense score and no query term is never a highlight.

use std::collections::{BTreeMap, HashSet};

use strata_core::{Result, Span};
use strata_model::Embedder;
use strata_text::analyzer::{en_stem, terms};

use crate::response::Highlight;

/// Dense sentence scoring: the query vector, the embedder that made it, and the most
/// sentences to embed per search.
#[derive(Clone, Copy)]
pub struct DenseScoring<'a> {
    /// The query's vector (the dense leg's).
    pub query: &'a [f32],
    /// The embedder that made it.
    pub embedder: &'a dyn Embedder,
    /// Sentences embedded per search at most.
    pub sentences: usize,
}
/// The most BM25 adds to a dense sentence score (BM25 scaled to 0..=1 within the passage).
pub const LEXICAL_TIE_BREAK: f32 = 0.05;
/// Sentences shorter than this many bytes (list markers, lone numbers) are not highlighted.
const MIN_SENTENCE_BYTES: usize = 12;

/// The highlight stage: sets the `per_hit` best sentences of each hit, scored densely as
/// `dense` says, when given.
pub fn highlight_hits(
    query: &str,
    hits: &mut [crate::response::SearchHit],
    per_hit: usize,
    dense: Option<DenseScoring<'_>>,
) -> Result<()> {
    let passages: Vec<Passage<'_>> =
        hits.iter().map(|h| Passage { text: &h.text, start: h.span.start }).collect();
    let found = highlight(query, &passages, per_hit, dense)?;
    for (hit, h) in hits.iter_mut().zip(found) {
        hit.highlights = h;
    }
    Ok(())
}

/// A passage to highlight: its text and where it starts in the document.
pub struct Passage<'a> {
    /// The passage's text.
    pub text: &'a str,
    /// Byte offset of `text` in the document.
    pub start: usize,
}

/// Scores the sentences of `passages` against `query` and returns up to `per_hit`
/// highlights per passage, best first. `dense` scores the sentences with the embedder, when
/// the dense leg ran.
pub fn highlight(
    query: &str,
    passages: &[Passage<'_>],
    per_hit: usize,
    dense: Option<DenseScoring<'_>>,
) -> Result<Vec<Vec<Highlight>>> {
    if per_hit == 0 {
        return Ok(passages.iter().map(|_| Vec::new()).collect());
    }
    let mut analyzer = en_stem();
    let query_terms: HashSet<String> = terms(&mut analyzer, query).into_iter().collect();
    // Sentences of every passage, with their terms.
    struct Sentence {
        passage: usize,
        span: Span,
        terms: Vec<String>,
    }
    let mut sentences = Vec::new();
    for (p, passage) in passages.iter().enumerate() {
        let whole = Span::new(0, passage.text.len());
        for s in strata_text::sentence::sentences(passage.text, whole) {
            let text = s.slice(passage.text);
            let trimmed = text.trim();
            if trimmed.len() < MIN_SENTENCE_BYTES {
                continue;
            }
            let lead = text.len() - text.trim_start().len();
            let span =
                Span::new(passage.start + s.start + lead, passage.start + s.start + lead + trimmed.len());
            sentences.push(Sentence { passage: p, span, terms: terms(&mut analyzer, trimmed) });
        }
    }
    if sentences.is_empty() {
        return Ok(passages.iter().map(|_| Vec::new()).collect());
    }
    // BM25 with the sentences as the collection (k1 = 1.2, b = 0.75).
    let n = sentences.len() as f32;
    let avg_len = sentences.iter().map(|s| s.terms.len()).sum::<usize>() as f32 / n;
    // Summed in term order: a hash map's order changes from one map to the next, and with it
    // the last bit of an f32 sum (the same search scored its highlights differently each run).
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &sentences {
        let unique: HashSet<&str> = s.terms.iter().map(String::as_str).collect();
        for t in unique.into_iter().filter(|t| query_terms.contains(*t)) {
            *df.entry(t).or_default() += 1;
        }
    }
    let bm25: Vec<f32> = sentences
        .iter()
        .map(|s| {
            let len = s.terms.len() as f32;
            df.iter()
                .map(|(term, &df)| {
                    let tf = s.terms.iter().filter(|t| t == term).count() as f32;
                    let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
                    idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg_len.max(1.0)))
                })
                .sum()
        })
        .collect();
    let dense_scores = match dense {
        Some(d) => {
            dense_scores(&sentences.iter().map(|s| (s.passage, s.span)).collect::<Vec<_>>(), passages, d)?
        }
        None => vec![None; sentences.len()],
    };
    let mut out: Vec<Vec<Highlight>> = passages.iter().map(|_| Vec::new()).collect();
    let mut best_bm25 = vec![0f32; passages.len()];
    for (s, &b) in sentences.iter().zip(&bm25) {
        best_bm25[s.passage] = best_bm25[s.passage].max(b);
    }
    for (i, s) in sentences.iter().enumerate() {
        let lexical = if best_bm25[s.passage] > 0.0 { bm25[i] / best_bm25[s.passage] } else { 0.0 };
        let score = match dense_scores[i] {
            Some(d) => d + LEXICAL_TIE_BREAK * lexical,
            None if bm25[i] > 0.0 => bm25[i],
            None => continue,
        };
        let passage = &passages[s.passage];
        out[s.passage].push(Highlight {
            span: s.span,
            text: s.span.slice_from(passage.text, passage.start).to_string(),
            score,
        });
    }
    for list in &mut out {
        list.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.span.start.cmp(&b.span.start)));
        list.truncate(per_hit);
    }
    Ok(out)
}

/// Dense scores of `sentences` (passage, span; in passage order): whole passages in rank
/// order while their sentences fit in `dense.sentences`; `None` for the rest. A passage is
/// never scored in part, so its sentences are ranked on one scale.
fn dense_scores(
    sentences: &[(usize, Span)],
    passages: &[Passage<'_>],
    dense: DenseScoring<'_>,
) -> Result<Vec<Option<f32>>> {
    let mut take = 0;
    while take < sentences.len() {
        let passage = sentences[take].0;
        let end = take + sentences[take..].iter().take_while(|(p, _)| *p == passage).count();
        if end > dense.sentences {
            break;
        }
        take = end;
    }
    let mut scores = vec![None; sentences.len()];
    if take == 0 {
        return Ok(scores);
    }
    let texts: Vec<&str> = sentences[..take]
        .iter()
        .map(|&(p, span)| span.slice_from(passages[p].text, passages[p].start))
        .collect();
    let embedded = dense.embedder.embed_passages(&texts)?;
    for (i, row) in embedded.rows().enumerate() {
        scores[i] = Some(row.iter().zip(dense.query).map(|(a, b)| a * b).sum());
    }
    Ok(scores)
}

/// Slicing a document span out of a passage that starts at `start` in the document.
trait SliceFrom {
    fn slice_from<'t>(&self, passage: &'t str, start: usize) -> &'t str;
}

impl SliceFrom for Span {
    fn slice_from<'t>(&self, passage: &'t str, start: usize) -> &'t str {
        &passage[self.start - start..self.end - start]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_highlights_pick_the_sentences_with_the_query_terms() {
        let text = "The server sends a response. Retries use exponential backoff after a failure. \
                    Clients should cache results.";
        let passages = [Passage { text, start: 100 }];
        let out = highlight("how do retries back off", &passages, 2, None).unwrap();
        assert_eq!(out.len(), 1);
        let best = &out[0][0];
        assert_eq!(best.text, "Retries use exponential backoff after a failure.");
        // The span is a span of the document: the passage starts at 100.
        assert_eq!(&text[best.span.start - 100..best.span.end - 100], best.text);
        assert_eq!(out[0].len(), 1, "sentences without a query term are not highlights");
    }

    /// Regression: `strata search` printed highlight scores that differed in the last bit from
    /// one run to the next (BM25 terms summed in a hash map's order, which each map draws
    /// anew), so two processes never agreed on a response.
    #[test]
    fn highlight_scores_are_the_same_every_time() {
        let text = "Arbitration awards are confirmed by the district court on petition. \
                    A petition to vacate an award must be served within three months. \
                    The court may order arbitration and appoint arbitrators on petition. \
                    Notice of the motion is served as in other district court proceedings.";
        let passages = [Passage { text, start: 0 }];
        let query = "petition to order arbitration district court award served notice months";
        let scores = || -> Vec<u32> {
            let out = highlight(query, &passages, 4, None).unwrap();
            out[0].iter().map(|h| h.score.to_bits()).collect()
        };
        let first = scores();
        assert_eq!(first.len(), 4);
        for _ in 0..50 {
            assert_eq!(scores(), first);
        }
    }

    #[test]
    fn no_highlights_when_turned_off_or_nothing_matches() {
        let passages = [Passage { text: "Nothing to see in this sentence at all.", start: 0 }];
        assert!(highlight("query", &passages, 0, None).unwrap()[0].is_empty());
        assert!(highlight("zyzzyva", &passages, 3, None).unwrap()[0].is_empty());
    }

    /// Scores a sentence 1 when it mentions "thirty", else 0, and keeps what it embedded.
    struct Thirty {
        info: strata_model::EmbedderInfo,
        seen: std::sync::Mutex<Vec<String>>,
    }

    impl Embedder for Thirty {
        fn info(&self) -> &strata_model::EmbedderInfo {
            &self.info
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<strata_model::Embeddings> {
            self.seen.lock().unwrap().extend(texts.iter().map(|t| t.to_string()));
            let rows = texts.iter().map(|t| if t.contains("thirty") { 1.0 } else { 0.0 }).collect();
            Ok(strata_model::Embeddings::new(1, rows))
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<strata_model::Embeddings> {
            self.embed_passages(texts)
        }
    }

    #[test]
    fn dense_highlights_score_whole_passages_within_the_sentence_budget() {
        let first = "Backups are kept for thirty days. The retention policy is reviewed. Ops owns it.";
        let second = "Retention of logs is ninety days. Logs are kept thirty days in hot storage.";
        let passages = [Passage { text: first, start: 0 }, Passage { text: second, start: 1000 }];
        let thirty = |sentences| Thirty {
            info: strata_model::EmbedderInfo {
                model_id: "thirty".into(),
                dim: 1,
                max_seq_len: 16,
                pooling: strata_model::Pooling::Mean,
                tokenizer: None,
                query_prefix: String::new(),
                passage_prefix: String::new(),
            },
            seen: std::sync::Mutex::new(Vec::with_capacity(sentences)),
        };
        let query = [1.0f32];
        let run = |budget: usize| {
            let embedder = thirty(budget);
            let dense = DenseScoring { query: &query, embedder: &embedder, sentences: budget };
            let out = highlight("how long is retention", &passages, 1, Some(dense)).unwrap();
            (out, embedder.seen.into_inner().unwrap().len())
        };
        // Four sentences fit the first passage (three) but not the second as well (five).
        let (out, embedded) = run(4);
        assert_eq!(embedded, 3);
        // The first passage is scored densely: the sentence without a query term wins.
        assert_eq!(out[0][0].text, "Backups are kept for thirty days.");
        // The second by BM25 alone: "retention" is in its first sentence only.
        assert_eq!(out[1][0].text, "Retention of logs is ninety days.");
        // A budget smaller than the first passage embeds nothing; a large one both.
        assert_eq!(run(2).1, 0);
        let (out, embedded) = run(64);
        assert_eq!(embedded, 5);
        assert_eq!(out[1][0].text, "Logs are kept thirty days in hot storage.");
    }
}
