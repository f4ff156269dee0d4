//! What the unit tests of the ingest stages share: documents read from Markdown, and test
//! embedders.

use strata_core::config::ContextKind;
use strata_core::{Config, Error, Format, Result, Source};
use strata_ingest::pipeline::{Cut, Ingested, Pipeline};
use strata_model::{Embedder, EmbedderInfo, Embeddings, Pooling};

use crate::driver::Driver;

/// A driver with the default pipeline, no contextualizer and `embedder`.
pub fn driver(embedder: Option<&dyn Embedder>) -> Driver<'_> {
    let mut config = Config::default();
    config.context.kind = ContextKind::None;
    Driver::new(&config, Pipeline::new(&config).unwrap(), embedder).unwrap()
}

/// The Markdown `text`, read and processed as the file `path`.
pub fn markdown(pipeline: &Pipeline, path: &str, text: &str) -> Ingested {
    let source = Source {
        path: path.into(),
        format: Format::Markdown,
        content_hash: "h".into(),
        size: text.len() as u64,
        mtime: None,
    };
    pipeline.process(pipeline.document(source, text.as_bytes()).unwrap(), &Cut::Chunker).unwrap()
}

/// A 4-dimensional test model.
pub fn test_model() -> EmbedderInfo {
    EmbedderInfo {
        model_id: "test-model".into(),
        dim: 4,
        max_seq_len: 256,
        pooling: Pooling::Mean,
        tokenizer: None,
        query_prefix: String::new(),
        passage_prefix: String::new(),
    }
}

/// An embedding service that is down.
pub struct Down(pub EmbedderInfo);

impl Embedder for Down {
    fn info(&self) -> &EmbedderInfo {
        &self.0
    }
    fn embed_passages(&self, _texts: &[&str]) -> Result<Embeddings> {
        Err(Error::Remote { service: "test-model at http://127.0.0.1:9".into(), reason: "refused".into() })
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed_passages(texts)
    }
}
