//! The local reranker: [`cross_encoder`], a BERT sequence-classification model from a local
//! folder (ms-marco-MiniLM-L-6-v2 and its kin), on ONNX Runtime like the local embedder.
//!
//! The [`strata_model::rerank::Reranker`] trait it implements is `strata-model`'s; the HTTP
//! `/rerank` APIs (Cohere, Jina, Voyage) and a listwise LLM reranker are in
//! `strata-providers`.

pub mod cross_encoder;
