//! The ingest stages by name. Every document goes through them in this order, whoever
//! ingests it (`strata ingest`, the server's jobs, Python, eval, the latency bench):
//!
//! read → annotate → tree → chunk → enrich → context → embed → record
//!
//! This crate runs the first five ([`crate::pipeline::Pipeline`]) and the context stage's
//! contextualizers ([`crate::context`]); `strata_engine::driver` runs all eight. A stage's
//! name is its tracing span's and the one its crash message gives.

use std::panic::{catch_unwind, AssertUnwindSafe};

use strata_core::{Error, Result};

/// One ingest stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The format's reader: text, pages, blocks and heading marks ([`crate::read`]).
    Read,
    /// What the document is: identity, metadata, title ([`crate::identity`],
    /// [`crate::metadata`]).
    Annotate,
    /// Heading marks become the heading tree ([`crate::tree`]).
    Tree,
    /// Token-bounded chunks that tile each section ([`crate::chunk`]).
    Chunk,
    /// Chunk kinds, defined terms, cross-references ([`crate::enrich`]).
    Enrich,
    /// Each chunk's context, structural or a language model's ([`crate::context`]).
    Context,
    /// One vector per chunk, and per section profile.
    Embed,
    /// The document into the store, whole or not at all.
    Record,
}

impl Stage {
    /// Every stage, in the order a document goes through them.
    pub const ALL: [Stage; 8] = [
        Stage::Read,
        Stage::Annotate,
        Stage::Tree,
        Stage::Chunk,
        Stage::Enrich,
        Stage::Context,
        Stage::Embed,
        Stage::Record,
    ];

    /// The stage's name, as code, timings and docs call it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Annotate => "annotate",
            Stage::Tree => "tree",
            Stage::Chunk => "chunk",
            Stage::Enrich => "enrich",
            Stage::Context => "context",
            Stage::Embed => "embed",
            Stage::Record => "record",
        }
    }

    /// A tracing span named after the stage, on the document of `path` (a span's name must
    /// be a literal).
    pub fn span(self, path: &str) -> tracing::Span {
        match self {
            Stage::Read => tracing::info_span!("read", path),
            Stage::Annotate => tracing::info_span!("annotate", path),
            Stage::Tree => tracing::info_span!("tree", path),
            Stage::Chunk => tracing::info_span!("chunk", path),
            Stage::Enrich => tracing::info_span!("enrich", path),
            Stage::Context => tracing::info_span!("context", path),
            Stage::Embed => tracing::info_span!("embed", path),
            Stage::Record => tracing::info_span!("record", path),
        }
    }

    /// Runs `f` as this stage on the document of `path`, in the stage's span. A panic is
    /// this file's error, naming the stage, instead of the end of the whole ingest.
    pub fn run<T>(self, path: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let _span = self.span(path).entered();
        catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
            Err(Error::read(
                path,
                format!(
                    "the {} stage crashed on this file (a strata bug; please report it with the file)",
                    self.name()
                ),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_stage_is_the_files_error_and_names_the_stage() {
        let err = Stage::Enrich.run::<()>("doc.md", || panic!("boom")).unwrap_err().to_string();
        assert!(err.contains("doc.md") && err.contains("the enrich stage crashed"), "{err}");
        assert_eq!(Stage::Tree.run("doc.md", || Ok(7)).unwrap(), 7);
    }

    #[test]
    fn stages_are_named_once_and_in_order() {
        let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["read", "annotate", "tree", "chunk", "enrich", "context", "embed", "record"]);
    }
}
