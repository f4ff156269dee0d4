//! The keyword analyzers: tantivy's `en_stem` and `default`, built as its `TokenizerManager`
//! registers them, for the code that must read text exactly as the keyword index does (the
//! search stages that weigh query terms, the PostgreSQL store's postings).
//!
//! Both split on what is not alphanumeric, drop tokens over 40 bytes and lowercase; `en_stem`
//! then stems with the English Snowball stemmer.

use tantivy::tokenizer::{Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer};

/// Longest token kept, in bytes (tantivy's `default` and `en_stem`).
const MAX_TOKEN: usize = 40;

/// The English stemming analyzer, the keyword leg's `en_stem`.
pub fn en_stem() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The analyzer of exact phrases: tantivy's `default`, lowercased and not stemmed.
pub fn exact() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .build()
}

/// The terms `analyzer` makes of `text`, in order.
pub fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push(t.text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::TokenizerManager;

    use super::*;

    /// Each analyzer reads text exactly as the one tantivy registers under its name, which
    /// the index's schema names: a term means the same thing at query time and in the index.
    #[test]
    fn analyzers_equal_the_ones_tantivy_registers() {
        let manager = TokenizerManager::default();
        let text = "Patents, Patentability & NOVELTY of § 102(b) — Straße \
                    Pneumonoultramicroscopicsilicovolcanoconiosis-and-more-than-forty-bytes";
        for (name, mut ours) in [("en_stem", en_stem()), ("default", exact())] {
            let mut theirs = manager.get(name).unwrap();
            assert_eq!(terms(&mut ours, text), terms(&mut theirs, text), "{name}");
        }
        assert_eq!(
            terms(&mut en_stem(), "Patents, Patentability & NOVELTY"),
            ["patent", "patent", "novelti"]
        );
        assert_eq!(terms(&mut exact(), "Section 4.2 Prior-Art"), ["section", "4", "2", "prior", "art"]);
    }
}
