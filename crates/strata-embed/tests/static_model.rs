//! A static model distilled from the test model (all-MiniLM-L6-v2), end to end: the real
//! encoder over the whole vocabulary, PCA, Zipf weights, the folder written and loaded the
//! way `--model NAME-static` loads it. Needs the model and ONNX Runtime in the cache
//! (`scripts/fetch-models.sh`); skips with a message when they are absent, unless
//! `STRATA_REQUIRE_MODEL=1`.

use strata_embed::local::{LocalEmbedder, LocalOptions};
use strata_embed::locate;
use strata_embed::static_model::{self, DistillOptions, StaticEmbedder};
use strata_model::Embedder;

const MODEL: &str = "all-MiniLM-L6-v2";

fn model_dir() -> Option<std::path::PathBuf> {
    let found = locate::find_model(MODEL).and_then(|dir| locate::find_onnxruntime().map(|_| dir));
    match found {
        Ok(dir) => Some(dir),
        Err(e) if std::env::var("STRATA_REQUIRE_MODEL").as_deref() == Ok("1") => {
            panic!("STRATA_REQUIRE_MODEL=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn pearson(a: &[f32], b: &[f32]) -> f32 {
    let (ma, mb) = (a.iter().sum::<f32>() / a.len() as f32, b.iter().sum::<f32>() / b.len() as f32);
    let cov: f32 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f32 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f32 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Texts on a few distinct subjects, two each, in the registers strata indexes.
const TEXTS: &[&str] = &[
    "The Supplier shall indemnify the Customer against all claims arising from a breach of this Agreement.",
    "Either party may terminate the agreement on thirty days' written notice if the other party breaches it.",
    "A TCP connection progresses through states: LISTEN, SYN-SENT, SYN-RECEIVED and ESTABLISHED.",
    "The retransmission timeout is computed from the smoothed round-trip time of acknowledged segments.",
    "Net revenue increased 8% to $86.4 billion, driven by higher pricing and volume growth in beverages.",
    "Operating cash flow was $11.2 billion, and capital spending totaled $5.2 billion for the fiscal year.",
    "Wash the filter under running water and let it dry completely before putting it back in the unit.",
    "If the display shows error E4, unplug the appliance and check that the water hose is not kinked.",
];

#[test]
fn a_distilled_static_model_ranks_like_its_encoder() {
    let Some(source) = model_dir() else { return };
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("all-MiniLM-L6-v2-static");
    let made = static_model::distill(&source, &dir, DistillOptions::default()).unwrap();
    assert_eq!((made.vocabulary, made.dims), (30522, 256));
    // BERT's vocabulary has 994 `[unused…]` placeholders, which are left out.
    assert_eq!(made.tokens, 30522 - 994);
    assert!(made.explained > 0.5 && made.explained < 1.0, "PCA keeps {}", made.explained);

    assert!(static_model::is_static(&dir) && !static_model::is_static(&source));
    let fast = StaticEmbedder::open_dir(&dir).unwrap();
    let info = fast.info();
    assert_eq!((info.model_id.as_str(), info.dim, info.max_seq_len), ("all-MiniLM-L6-v2-static", 256, 256));

    let full = LocalEmbedder::open_dir(&source, LocalOptions::default()).unwrap();
    let (a, b) = (full.embed_passages(TEXTS).unwrap(), fast.embed_passages(TEXTS).unwrap());
    assert!(b.rows().all(|r| (dot(r, r) - 1.0).abs() < 1e-4), "rows are unit length");
    // Similarity between every pair of texts, by each model: the static model keeps the
    // encoder's sense of which texts are alike.
    let pairs: Vec<(usize, usize)> =
        (0..TEXTS.len()).flat_map(|i| (i + 1..TEXTS.len()).map(move |j| (i, j))).collect();
    let sim = |e: &strata_model::Embeddings| -> Vec<f32> {
        pairs.iter().map(|&(i, j)| dot(e.row(i), e.row(j))).collect()
    };
    let r = pearson(&sim(&a), &sim(&b));
    assert!(r > 0.7, "pairwise similarities correlate at {r}");
    // Each text's nearest neighbour is the one the encoder finds (at most one disagreement,
    // where the encoder's own margin is 0.01).
    let nearest = |e: &strata_model::Embeddings, i: usize| {
        (0..TEXTS.len())
            .filter(|&j| j != i)
            .max_by(|&x, &y| dot(e.row(i), e.row(x)).total_cmp(&dot(e.row(i), e.row(y))))
            .unwrap()
    };
    let agree = (0..TEXTS.len()).filter(|&i| nearest(&a, i) == nearest(&b, i)).count();
    assert!(agree >= TEXTS.len() - 1, "nearest neighbours agree for {agree} of {}", TEXTS.len());
    // A query finds its passage.
    let q = fast.embed_query("when can the contract be terminated").unwrap();
    let best = (0..TEXTS.len()).max_by(|&x, &y| dot(&q, b.row(x)).total_cmp(&dot(&q, b.row(y)))).unwrap();
    assert_eq!(best, 1);
    // Text without a known token is a zero vector, not NaN.
    let empty = fast.embed_passages(&["", "\u{2603}\u{2603}"]).unwrap();
    assert!(empty.rows().all(|r| r.iter().all(|x| *x == 0.0)));
}

#[test]
fn mean_hidden_is_the_passage_vector_before_normalizing() {
    let Some(source) = model_dir() else { return };
    let full = LocalEmbedder::open_dir(&source, LocalOptions::default()).unwrap();
    let mut tokenizer = tokenizers::Tokenizer::from_file(source.join("tokenizer.json")).unwrap();
    tokenizer.with_padding(None);
    let ids: Vec<Vec<u32>> =
        TEXTS[..3].iter().map(|t| tokenizer.encode(*t, true).unwrap().get_ids().to_vec()).collect();
    let rows: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
    let means = full.mean_hidden(&rows).unwrap();
    let passages = full.embed_passages(&TEXTS[..3]).unwrap();
    for (i, mean) in means.chunks_exact(384).enumerate() {
        let norm = dot(mean, mean).sqrt();
        assert!(norm > 1.0, "not normalized");
        let cos = dot(mean, passages.row(i)) / norm;
        assert!(cos > 0.9999, "text {i}: cosine {cos}");
    }
}
