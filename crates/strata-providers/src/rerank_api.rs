//! Rerank APIs of the Cohere / Jina / Voyage shape: `POST {base}/rerank` with the query and
//! the candidate texts, answered with `{index, relevance_score}` rows.
//!
//! | flavor | default root | default model | request | rows in |
//! |---|---|---|---|---|
//! | Cohere | `https://api.cohere.com/v2` | `rerank-v3.5` | `top_n` | `results` |
//! | Jina | `https://api.jina.ai/v1` | `jina-reranker-v2-base-multilingual` | `top_n`, `return_documents: false` | `results` |
//! | Voyage | `https://api.voyageai.com/v1` | `rerank-2` | `top_k` | `data` |
//!
//! Self-hosted servers with the same shape (Hugging Face TEI's `/rerank` differs, it takes
//! `texts`) work by setting `base_url`.

use std::time::Duration;

use serde_json::{json, Value};
use strata_core::config::RerankConfig;
use strata_core::{Error, Result};
use strata_model::rerank::Reranker;

use crate::limiter::Limiter;
use crate::secret::ApiKey;
use crate::transport::{endpoint, KeyHeader, Policy, Transport};

/// Requests in flight at once to a rerank API (one per search; searches run in parallel).
const CONCURRENCY: usize = 8;

/// The three request shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Cohere's v2 rerank.
    Cohere,
    /// Jina's rerank.
    Jina,
    /// Voyage's rerank.
    Voyage,
}

impl Flavor {
    /// `cohere`, `jina` or `voyage`.
    pub fn parse(name: &str) -> Result<Flavor> {
        match name {
            "cohere" => Ok(Flavor::Cohere),
            "jina" => Ok(Flavor::Jina),
            "voyage" => Ok(Flavor::Voyage),
            other => Err(Error::user(format!("unknown rerank API {other:?}; use cohere, jina or voyage"))),
        }
    }

    fn defaults(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Flavor::Cohere => ("cohere", "https://api.cohere.com/v2", "rerank-v3.5", "COHERE_API_KEY"),
            Flavor::Jina => {
                ("jina", "https://api.jina.ai/v1", "jina-reranker-v2-base-multilingual", "JINA_API_KEY")
            }
            Flavor::Voyage => ("voyage", "https://api.voyageai.com/v1", "rerank-2", "VOYAGE_API_KEY"),
        }
    }
}

/// A [`Reranker`] over a rerank API.
#[derive(Debug)]
pub struct ApiReranker {
    flavor: Flavor,
    model: String,
    id: String,
    transport: Transport,
    limiter: Limiter,
    policy: Policy,
}

impl ApiReranker {
    /// A reranker for `flavor` with `config` (`model`, `base_url`, `api_key_env` default per
    /// flavor).
    pub fn new(flavor: Flavor, config: &RerankConfig) -> Result<ApiReranker> {
        let (name, base, model, key_env) = flavor.defaults();
        let or = |v: &str, d: &str| if v.trim().is_empty() { d.to_string() } else { v.trim().to_string() };
        let model = or(&config.model, model);
        let key = ApiKey::from_env(&or(&config.api_key_env, key_env))?;
        let transport = Transport::new(
            endpoint(&or(&config.base_url, base), "/rerank"),
            &model,
            key,
            KeyHeader::Bearer,
            Vec::new(),
            Duration::from_secs(config.timeout_secs),
        );
        Ok(ApiReranker {
            flavor,
            id: format!("{name}:{model}"),
            model,
            transport,
            limiter: Limiter::new(CONCURRENCY),
            policy: Policy { max_retries: config.max_retries, backoff: Duration::from_millis(500) },
        })
    }

    /// The request body.
    fn body(&self, query: &str, passages: &[&str]) -> Value {
        match self.flavor {
            Flavor::Cohere => {
                json!({"model": self.model, "query": query, "documents": passages, "top_n": passages.len()})
            }
            Flavor::Jina => json!({
                "model": self.model, "query": query, "documents": passages,
                "top_n": passages.len(), "return_documents": false,
            }),
            Flavor::Voyage => {
                json!({"model": self.model, "query": query, "documents": passages, "top_k": passages.len()})
            }
        }
    }
}

/// Scores by input index from an answer's rows; every index must come back once.
pub fn parse(text: &str, n: usize) -> std::result::Result<Vec<f32>, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let rows = json
        .get("results")
        .or_else(|| json.get("data"))
        .and_then(Value::as_array)
        .ok_or("no \"results\" (or \"data\") list")?;
    let mut scores = vec![None; n];
    for row in rows {
        let index = row.get("index").and_then(Value::as_u64).ok_or("a row without \"index\"")? as usize;
        let score =
            row.get("relevance_score").and_then(Value::as_f64).ok_or("a row without \"relevance_score\"")?;
        let slot = scores.get_mut(index).ok_or_else(|| format!("index {index} of {n} passages"))?;
        if slot.replace(score as f32).is_some() {
            return Err(format!("index {index} twice"));
        }
    }
    let missing = scores.iter().filter(|s| s.is_none()).count();
    if missing > 0 {
        return Err(format!("{missing} of {n} passages have no score"));
    }
    Ok(scores.into_iter().map(|s| s.unwrap_or(f32::MIN)).collect())
}

impl Reranker for ApiReranker {
    fn id(&self) -> &str {
        &self.id
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let body = serde_json::to_vec(&self.body(query, passages))
            .map_err(|e| Error::Internal(format!("encoding a rerank request: {e}")))?;
        let (scores, _) =
            self.transport.send(&self.limiter, self.policy, &body, |t| parse(t, passages.len()))?;
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_by_index() {
        let t =
            r#"{"results": [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.2}]}"#;
        assert_eq!(parse(t, 2).unwrap(), vec![0.2, 0.9]);
        let v = r#"{"data": [{"index": 0, "relevance_score": 0.5}]}"#;
        assert_eq!(parse(v, 1).unwrap(), vec![0.5]);
        assert!(parse(v, 2).unwrap_err().contains("1 of 2"));
        assert!(parse(r#"{"results": [{"index": 5, "relevance_score": 1}]}"#, 2)
            .unwrap_err()
            .contains("index 5"));
        assert!(parse("<html>", 1).unwrap_err().contains("not JSON"));
    }
}
