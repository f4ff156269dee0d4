//! Embedders for the dense leg.
//!
//! An embedder ([`strata_model::Embedder`]) turns passages (chunks) and queries into
//! L2-normalized vectors. Three kinds live here:
//! - [`local`]: a BERT-family sentence-transformer read from a local folder and run on ONNX
//!   Runtime, with the model's own pooling and query/passage prefixes;
//! - [`static_model`]: a table of token vectors (model2vec's format), distilled from a local
//!   model by [`static_model::distill`]; a text's vector is the mean of its tokens' rows;
//! - [`http`]: any OpenAI-compatible `/v1/embeddings` endpoint.
//!
//! [`rerank`] holds the local cross-encoder, which runs on the same BERT graph. The traits
//! these implement are `strata-model`'s, and the HTTP transport `strata-http`'s.
//!
//! Finding a model on disk is [`locate`]'s job; reading what a model folder says about itself
//! (pooling, prefixes, window) is [`folder`]'s.

pub mod cache;
pub mod choose;
pub mod folder;
pub mod http;
pub mod local;
pub mod locate;
pub mod rerank;
pub mod sections;
pub mod static_model;
