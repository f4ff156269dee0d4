//! BM25 as tantivy scores it, computed inside PostgreSQL.
//!
//! Text is analyzed here, in the client, with the very analyzers the embedded store indexes
//! with (`en_stem` for the BM25 fields, `default` for exact phrases), so a term means the same
//! thing in both stores. Each (field, term) of a record becomes one row of `postings` with its
//! term frequency and the record's field length, quantized as tantivy quantizes field norms.
//! A query then reads only the postings of its own terms, and PostgreSQL sums
//! `w · tf / (tf + K1·(1 − B + B·len/avg))` per record, where the weight `w = boost · idf ·
//! (1 + K1)` is computed here from the document frequencies, exactly as tantivy's
//! `Bm25Weight` does.

use std::collections::BTreeMap;

use strata_text::analyzer;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::tokenizer::TextAnalyzer;

/// tantivy's BM25 constants.
pub(crate) const K1: f32 = 1.2;
pub(crate) const B: f32 = 0.75;

/// The fields with postings. The number is stored in each posting key (`"1:term"`), so the
/// key alone selects a field's postings of a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Field {
    /// Chunk: context + overlap + text, stemmed.
    Text = 1,
    /// Chunk: heading path, stemmed.
    Heading = 2,
    /// Chunk: document title, stemmed.
    Title = 3,
    /// Section: lead text and children's titles, stemmed.
    SectionText = 4,
    /// Section: heading path, stemmed.
    SectionHeading = 5,
    /// Chunk: its own text, lowercased, not stemmed, with positions (exact phrases).
    Exact = 6,
}

impl Field {
    /// Index into per-field arrays.
    pub(crate) fn index(self) -> usize {
        self as usize - 1
    }

    /// The posting key of `term` in this field.
    pub(crate) fn key(self, term: &str) -> String {
        format!("{}:{term}", self as u8)
    }

    fn stemmed(self) -> bool {
        self != Field::Exact
    }
}

/// The analyzers of the embedded store's schema.
pub(crate) struct Analyzers {
    stem: TextAnalyzer,
    exact: TextAnalyzer,
}

impl Analyzers {
    pub(crate) fn new() -> Analyzers {
        Analyzers { stem: analyzer::en_stem(), exact: analyzer::exact() }
    }

    /// The tokens of `text` as `field` indexes them, with their positions.
    pub(crate) fn tokens(&mut self, field: Field, text: &str) -> Vec<(String, u32)> {
        let analyzer = if field.stemmed() { &mut self.stem } else { &mut self.exact };
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push((t.text.clone(), t.position as u32));
        }
        out
    }

    /// The postings of one field of one record.
    pub(crate) fn postings(&mut self, field: Field, text: &str) -> FieldPostings {
        let tokens = self.tokens(field, text);
        let mut terms: BTreeMap<String, Vec<i32>> = BTreeMap::new();
        for (term, position) in &tokens {
            terms.entry(term.clone()).or_default().push(*position as i32);
        }
        FieldPostings { field, tokens: tokens.len() as u32, terms }
    }
}

/// What one field of one record contributes: its length and each term's positions.
pub(crate) struct FieldPostings {
    pub field: Field,
    /// Tokens in the field (its field norm before quantization).
    pub tokens: u32,
    /// Positions of each term.
    pub terms: BTreeMap<String, Vec<i32>>,
}

impl FieldPostings {
    /// The field length BM25 sees: tantivy stores field norms in one byte, so lengths are
    /// rounded the same way.
    pub(crate) fn norm(&self) -> i32 {
        quantized(self.tokens) as i32
    }
}

/// A field length as tantivy's one-byte field norm rounds it.
pub(crate) fn quantized(tokens: u32) -> u32 {
    FieldNormReader::id_to_fieldnorm(FieldNormReader::fieldnorm_to_id(tokens))
}

/// tantivy's IDF: `ln(1 + (N − n + 0.5) / (n + 0.5))`, with `n` capped at `N`.
pub(crate) fn idf(doc_freq: u64, doc_count: u64) -> f32 {
    let doc_count = doc_count.max(1);
    let doc_freq = doc_freq.min(doc_count);
    let x = ((doc_count - doc_freq) as f32 + 0.5) / (doc_freq as f32 + 0.5);
    (1.0 + x).ln()
}

/// One (field, term) clause of a query, ready for SQL: the posting key, the weight
/// `boost · idf · (1 + K1)`, and the two constants of the length normalization
/// `K1·(1 − B)` and `K1·B / avg`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clause {
    pub key: String,
    pub weight: f32,
    pub norm_base: f32,
    pub norm_per_token: f32,
}

impl Clause {
    /// A clause scored like tantivy's `Bm25Weight::for_one_term(...).boost_by(boost)`.
    pub(crate) fn new(key: String, boost: f32, doc_freq: u64, doc_count: u64, total_tokens: u64) -> Clause {
        let avg = total_tokens as f32 / doc_count.max(1) as f32;
        let avg = if avg > 0.0 { avg } else { 1.0 };
        Clause {
            key,
            weight: boost * idf(doc_freq, doc_count) * (1.0 + K1),
            norm_base: K1 * (1.0 - B),
            norm_per_token: K1 * B / avg,
        }
    }

    /// The score of one posting, as SQL computes it (for tests).
    #[cfg(test)]
    pub(crate) fn score(&self, tf: f32, len: f32) -> f32 {
        self.weight * tf / (tf + self.norm_base + self.norm_per_token * len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyzers_match_the_embedded_schema() {
        let mut a = Analyzers::new();
        let stems: Vec<String> =
            a.tokens(Field::Text, "Patents, Patentability & NOVELTY").into_iter().map(|t| t.0).collect();
        assert_eq!(stems, ["patent", "patent", "novelti"]);
        let exact: Vec<String> =
            a.tokens(Field::Exact, "Section 4.2 Prior-Art").into_iter().map(|t| t.0).collect();
        assert_eq!(exact, ["section", "4", "2", "prior", "art"]);
    }

    #[test]
    fn postings_count_terms_and_positions() {
        let mut a = Analyzers::new();
        let p = a.postings(Field::Exact, "the widget and the gizmo");
        assert_eq!(p.tokens, 5);
        assert_eq!(p.terms["the"], vec![0, 3]);
        assert_eq!(p.norm(), 5);
    }

    #[test]
    fn long_fields_are_quantized_like_tantivy_field_norms() {
        assert_eq!(quantized(10), 10);
        assert!(quantized(1000) <= 1000 && quantized(1000) > 900);
        assert_eq!(quantized(quantized(1000)), quantized(1000));
    }

    /// The score of a one-term query equals tantivy's, computed on a real tantivy index.
    #[test]
    fn clause_scores_equal_tantivy_bm25() {
        use tantivy::collector::TopDocs;
        use tantivy::query::TermQuery;
        use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
        use tantivy::{doc, Index, Term};

        let mut b = Schema::builder();
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("en_stem")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let text = b.add_text_field("text", opts);
        let index = Index::create_in_ram(b.build());
        let docs = [
            "the widget act governs widgets",
            "a gizmo is not a widget",
            "filing deadlines for every gizmo and doohickey and thingamajig",
        ];
        let mut writer = index.writer(15_000_000).unwrap();
        for d in docs {
            writer.add_document(doc!(text => d)).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let query = TermQuery::new(Term::from_field_text(text, "widget"), IndexRecordOption::WithFreqs);
        let top = searcher.search(&query, &TopDocs::with_limit(3).order_by_score()).unwrap();

        let mut a = Analyzers::new();
        let postings: Vec<FieldPostings> = docs.iter().map(|d| a.postings(Field::Text, d)).collect();
        let total: u64 = postings.iter().map(|p| p.tokens as u64).sum();
        let df = postings.iter().filter(|p| p.terms.contains_key("widget")).count() as u64;
        let clause = Clause::new(Field::Text.key("widget"), 1.0, df, docs.len() as u64, total);
        for (score, addr) in top {
            let p = &postings[addr.doc_id as usize];
            let ours = clause.score(p.terms["widget"].len() as f32, p.norm() as f32);
            assert!((ours - score).abs() < 1e-5, "doc {}: ours {ours}, tantivy {score}", addr.doc_id);
        }
    }
}
