//! Configuration: `strata.toml`, environment overrides, validation at load.
//!
//! Every value is validated when the configuration is built, so an invalid combination never
//! reaches the pipeline. Errors name the key, the bad value and where it came from. Each
//! section lives in a file of its own with its own `validate`; the keys that take one of a
//! few names are enums (`names.rs`), refused at parse time when the name is unknown.
//!
//! ```
//! use strata_core::Config;
//! let config = Config::from_toml_str("[chunk]\nmax_tokens = 256\n", "strata.toml").unwrap();
//! assert_eq!(config.chunk.max_tokens, 256);
//! let err = Config::from_toml_str("[chunk]\nmax_tokens = 0\n", "strata.toml").unwrap_err();
//! assert!(err.to_string().contains("chunk.max_tokens"));
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

mod chunk;
mod context;
mod dense;
mod env;
mod models;
mod names;
mod rerank;
mod search;
mod serve;
mod store;

pub use chunk::{valid_meta_key, ChunkConfig, IngestConfig, OcrMode, TokenizerConfig, ANNOTATORS};
pub use context::{ContextConfig, ContextKind, CONTEXT_KINDS};
pub use dense::{AuthHeader, DenseConfig, DenseHttpConfig, DensePrecision, DenseProvider};
pub use models::{ChatConfig, Price, CHAT_PROVIDERS};
pub use names::parse_in;
pub use rerank::{RerankConfig, RerankKind, MAX_CANDIDATES, RERANK_KINDS};
pub use search::{
    FusionKind, HeadingScope, LegEvidence, LegWeights, Mode, NameDrop, NameEvidence, Order, SearchConfig,
    FUSIONS, MAX_BUDGET, MAX_DENSE_HIGHLIGHT_SENTENCES, MAX_K, MODES, ORDERS,
};
pub use serve::{ApiKey, KeyScope, ServeConfig};
pub use store::{KeywordRanking, StoreConfig, StoreKind, STORE_KINDS};

use crate::{Error, Result};

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Chunking.
    pub chunk: ChunkConfig,
    /// Token counting.
    pub tokenizer: TokenizerConfig,
    /// Ingest limits.
    pub ingest: IngestConfig,
    /// Search defaults.
    pub search: SearchConfig,
    /// The dense leg: embedding model and vector index.
    pub dense: DenseConfig,
    /// What writes each chunk's context.
    pub context: ContextConfig,
    /// The reranker of the top fused results.
    pub rerank: RerankConfig,
    /// `strata serve` and `strata mcp`.
    pub serve: ServeConfig,
    /// Where the index lives.
    pub store: StoreConfig,
}

impl Config {
    /// Parses TOML text; `origin` names the source in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config> {
        let config: Config = toml::from_str(text)
            .map_err(|e| Error::user(format!("{origin}: {}", e.to_string().trim_end())))?;
        config.validate(origin)?;
        Ok(config)
    }

    /// Loads `path` when given, else `./strata.toml` when it exists, else the defaults; then
    /// applies environment overrides and validates.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        let (mut config, origin) = match path {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| Error::io(format!("reading config {}", p.display()), e))?;
                (Config::from_toml_str(&text, &p.display().to_string())?, p.display().to_string())
            }
            None if Path::new("strata.toml").exists() => {
                let text = std::fs::read_to_string("strata.toml")
                    .map_err(|e| Error::io("reading config strata.toml", e))?;
                (Config::from_toml_str(&text, "strata.toml")?, "strata.toml".to_string())
            }
            None => (Config::default(), "defaults".to_string()),
        };
        config.apply_env(|k| std::env::var(k).ok())?;
        config.validate(&format!("{origin} + environment"))?;
        Ok(config)
    }

    /// Applies `STRATA_*` overrides read through `get`. A name a key does not take is an
    /// error naming the variable.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<()> {
        use env::{flag, list, named, number, optional, path, set, text};
        let get: env::Get = &get;
        set(get, "STRATA_CHUNK_MAX_TOKENS", &mut self.chunk.max_tokens, number)?;
        set(get, "STRATA_CHUNK_OVERLAP", &mut self.chunk.overlap, number)?;
        set(get, "STRATA_TOKENIZER_MODEL", &mut self.tokenizer.model, path)?;
        set(get, "STRATA_INGEST_MAX_FILE_BYTES", &mut self.ingest.max_file_bytes, number)?;
        set(get, "STRATA_INGEST_MAX_SECTIONS", &mut self.ingest.max_sections, number)?;
        set(get, "STRATA_INGEST_MAX_PAGE_OPERATORS", &mut self.ingest.max_page_operators, number)?;
        set(get, "STRATA_INGEST_COMMIT_EVERY", &mut self.ingest.commit_every, number)?;
        set(get, "STRATA_INGEST_OCR", &mut self.ingest.ocr, named)?;
        set(get, "STRATA_INGEST_OCR_LANGUAGES", &mut self.ingest.ocr_languages, text)?;
        set(get, "STRATA_INGEST_OCR_DPI", &mut self.ingest.ocr_dpi, number)?;
        set(get, "STRATA_INGEST_OCR_MAX_PAGE_PIXELS", &mut self.ingest.ocr_max_page_pixels, number)?;
        set(get, "STRATA_INGEST_OCR_RENDER_SECONDS", &mut self.ingest.ocr_render_seconds, number)?;
        set(get, "STRATA_INGEST_OCR_RECOGNIZE_SECONDS", &mut self.ingest.ocr_recognize_seconds, number)?;
        set(get, "STRATA_INGEST_ANNOTATORS", &mut self.ingest.annotators, list)?;
        set(get, "STRATA_SEARCH_K", &mut self.search.k, number)?;
        set(get, "STRATA_SEARCH_MODE", &mut self.search.mode, named)?;
        set(get, "STRATA_DENSE_ENABLED", &mut self.dense.enabled, flag)?;
        set(get, "STRATA_DENSE_MODEL", &mut self.dense.model, text)?;
        set(get, "STRATA_DENSE_ANN_THRESHOLD", &mut self.dense.ann_threshold, number)?;
        set(get, "STRATA_DENSE_PROVIDER", &mut self.dense.provider, named)?;
        set(get, "STRATA_DENSE_PRECISION", &mut self.dense.precision, named)?;
        set(get, "STRATA_DENSE_LANES", &mut self.dense.lanes, number)?;
        set(get, "STRATA_DENSE_VECTOR_CACHE", &mut self.dense.vector_cache, flag)?;
        set(get, "STRATA_CONTEXT", &mut self.context.kind, named)?;
        set(get, "STRATA_RERANK", &mut self.rerank.kind, named)?;
        set(get, "STRATA_RERANK_MODEL", &mut self.rerank.model, text)?;
        if let Some(v) = get("STRATA_API_KEYS") {
            self.serve.add_env_keys(&v)?;
        }
        set(get, "STRATA_STORE", &mut self.store.kind, named)?;
        set(get, "STRATA_STORE_URL", &mut self.store.url, optional)?;
        set(get, "STRATA_STORE_READ_URL", &mut self.store.read_url, optional)?;
        set(get, "STRATA_STORE_COLLECTION", &mut self.store.collection, optional)?;
        Ok(())
    }

    /// Checks every value, section by section; the error names the key, the value and
    /// `origin`.
    pub fn validate(&self, origin: &str) -> Result<()> {
        self.chunk.validate(origin)?;
        self.ingest.validate(origin)?;
        self.search.validate(origin)?;
        self.dense.validate(origin)?;
        self.context.validate(origin)?;
        self.rerank.validate(origin)?;
        self.serve.validate(origin)?;
        self.store.validate(origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_and_rerank_sections_are_validated_by_key() {
        let c =
            Config::from_toml_str("[context]\nkind = \"anthropic\"\n[context.llm]\nmax_tokens = 50\n", "x")
                .unwrap();
        assert_eq!(
            (c.context.kind, c.context.llm.max_tokens, c.context.llm.concurrency),
            (ContextKind::Anthropic, 50, 10)
        );
        let err = Config::from_toml_str("[context]\nkind = \"gpt\"\n", "x").unwrap_err().to_string();
        assert!(err.contains("[context] kind = \"gpt\"") && err.contains("structural"), "{err}");
        let err = Config::from_toml_str("[context.llm]\nconcurrency = 0\n", "x").unwrap_err().to_string();
        assert!(err.contains("context.llm.concurrency"), "{err}");
        let err = Config::from_toml_str("[rerank]\nkind = \"cross-encoder\"\n", "x").unwrap_err().to_string();
        assert!(err.contains("rerank.model") && err.contains("folder"), "{err}");
        let err = Config::from_toml_str("[rerank.llm.price]\ninput = -1\noutput = 1\n", "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rerank.llm.price.input"), "{err}");
        assert_eq!(Config::default().context.kind, ContextKind::Structural);
        assert_eq!(Config::default().rerank.candidates, 50);
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Config::from_toml_str("[chunk]\nmax_token = 5\n", "strata.toml").unwrap_err();
        assert!(err.to_string().contains("max_token"), "{err}");
    }

    #[test]
    fn overlap_larger_than_half_is_refused() {
        let err = Config::from_toml_str("[chunk]\nmax_tokens = 100\noverlap = 80\n", "x").unwrap_err();
        assert!(err.to_string().contains("chunk.overlap"), "{err}");
    }

    #[test]
    fn annotators_are_auto_or_known_names_each_once() {
        assert_eq!(Config::default().ingest.annotators, ["auto"]);
        let c = Config::from_toml_str("[ingest]\nannotators = [\"sec\"]\n", "x").unwrap();
        assert_eq!(c.ingest.annotators, ["sec"]);
        let none = Config::from_toml_str("[ingest]\nannotators = []\n", "x").unwrap();
        assert!(none.ingest.annotators.is_empty());
        let err = Config::from_toml_str("[ingest]\nannotators = [\"edgar\"]\n", "strata.toml").unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("\"edgar\"")
                && err.contains("\"auto\" or \"sec\", \"contract\"")
                && err.contains("strata.toml"),
            "{err}"
        );
        let err = Config::from_toml_str("[ingest]\nannotators = [\"sec\", \"sec\"]\n", "x").unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
        let mut c = Config::default();
        c.apply_env(|k| (k == "STRATA_INGEST_ANNOTATORS").then(|| "auto, sec".to_string())).unwrap();
        assert_eq!(c.ingest.annotators, ["auto", "sec"]);
    }

    #[test]
    fn env_overrides_apply_and_validate() {
        let mut c = Config::default();
        c.apply_env(|k| (k == "STRATA_CHUNK_MAX_TOKENS").then(|| "300".to_string())).unwrap();
        assert_eq!(c.chunk.max_tokens, 300);
        let err = c.apply_env(|k| (k == "STRATA_SEARCH_K").then(|| "ten".to_string())).unwrap_err();
        assert!(err.to_string().contains("STRATA_SEARCH_K"));
        c.chunk.max_tokens = 4;
        assert!(c.validate("env").unwrap_err().to_string().contains("chunk.max_tokens"));
    }

    /// Every enum key in TOML: each name is read, an unknown one is refused with the key, the
    /// value, every name and the file.
    #[test]
    fn enum_keys_in_toml_take_their_names_only() {
        let keys: [(&str, &str, &[&str]); 11] = [
            ("ingest", "ocr", OcrMode::NAMES),
            ("search", "mode", MODES),
            ("search", "order", ORDERS),
            ("search", "fusion", FUSIONS),
            ("dense", "provider", DenseProvider::NAMES),
            ("dense", "precision", DensePrecision::NAMES),
            ("dense.http", "auth_header", AuthHeader::NAMES),
            ("context", "kind", CONTEXT_KINDS),
            ("rerank.llm", "auth_header", AuthHeader::NAMES),
            ("store", "kind", STORE_KINDS),
            ("store", "keyword", KeywordRanking::NAMES),
        ];
        for (section, key, names) in keys {
            for name in names {
                let url = match (section, *name) {
                    ("store", "milvus") => "url = \"http://h:19530\"\n",
                    ("store", _) => "url = \"postgres://u@h/d\"\n",
                    _ => "",
                };
                let text = format!("[{section}]\n{url}{key} = {name:?}\n");
                let c = Config::from_toml_str(&text, "strata.toml").unwrap_or_else(|e| panic!("{text}: {e}"));
                let json = serde_json::to_value(&c).unwrap();
                let path = format!("/{}/{key}", section.replace('.', "/"));
                assert_eq!(json.pointer(&path).unwrap(), name, "{text}");
            }
            let text = format!("[{section}]\n{key} = \"rfr\"\n");
            let err = Config::from_toml_str(&text, "strata.toml").unwrap_err().to_string();
            let want = format!("{key} = \"rfr\" is not one of {}", names.join(", "));
            assert!(err.starts_with("strata.toml: ") && err.contains(&want), "{err}");
        }
        let err = Config::from_toml_str("[search]\nfusion = \"rfr\"\n", "strata.toml").unwrap_err();
        assert!(err.to_string().ends_with("[search] fusion = \"rfr\" is not one of rrf, weighted"), "{err}");
        let err = Config::from_toml_str("[rerank]\nkind = \"cross_encoder\"\n", "x").unwrap_err();
        assert!(err.to_string().contains("none, cross-encoder, cohere, jina, voyage, anthropic, openai"));
    }

    /// Every enum variable in the environment goes through the same parser as TOML.
    #[test]
    fn enum_variables_take_their_names_only() {
        let vars: [(&str, &str, &[&str]); 6] = [
            ("STRATA_SEARCH_MODE", "[search] mode", MODES),
            ("STRATA_DENSE_PROVIDER", "[dense] provider", DenseProvider::NAMES),
            ("STRATA_DENSE_PRECISION", "[dense] precision", DensePrecision::NAMES),
            ("STRATA_CONTEXT", "[context] kind", CONTEXT_KINDS),
            ("STRATA_RERANK", "[rerank] kind", RERANK_KINDS),
            ("STRATA_STORE", "[store] kind", STORE_KINDS),
        ];
        for (var, key, names) in vars {
            for name in names {
                let mut c = Config::default();
                c.apply_env(|k| (k == var).then(|| name.to_string())).unwrap();
                let json = serde_json::to_string(&c).unwrap();
                assert!(json.contains(&format!("{name:?}")), "{var}={name}");
            }
            let err = Config::default().apply_env(|k| (k == var).then(|| "fuzzy".into())).unwrap_err();
            let want = format!(
                "{key} = \"fuzzy\" is not one of {} (in environment variable {var})",
                names.join(", ")
            );
            assert_eq!(err.to_string(), want);
        }
        let mut c = Config::default();
        let env = |k: &str| match k {
            "STRATA_SEARCH_MODE" => Some("dense".to_string()),
            "STRATA_STORE" => Some("milvus".to_string()),
            "STRATA_RERANK" => Some("cross-encoder".to_string()),
            _ => None,
        };
        c.apply_env(env).unwrap();
        assert_eq!(
            (c.search.mode, c.store.kind, c.rerank.kind),
            (Mode::Dense, StoreKind::Milvus, RerankKind::CrossEncoder)
        );
    }

    /// The defaults, as `strata.toml` would spell them.
    #[test]
    fn enum_defaults_are_unchanged() {
        let c = Config::default();
        let shown = toml::to_string(&c).unwrap();
        for line in [
            "mode = \"hierarchical\"",
            "fusion = \"rrf\"",
            "order = \"position\"",
            "provider = \"local\"",
            "auth_header = \"bearer\"",
            "kind = \"structural\"",
            "kind = \"none\"",
            "kind = \"embedded\"",
            "keyword = \"bm25\"",
        ] {
            assert!(shown.lines().any(|l| l == line), "{line} in\n{shown}");
        }
        assert_eq!(Config::from_toml_str(&shown, "printed").unwrap(), c);
        assert_eq!(Config::from_toml_str("", "empty").unwrap(), c);
        assert_eq!(
            (c.search.mode, c.search.fusion, c.search.order),
            (Mode::Hierarchical, FusionKind::Rrf, Order::Position)
        );
        assert_eq!((c.dense.provider, c.dense.http.auth_header), (DenseProvider::Local, AuthHeader::Bearer));
        assert_eq!((c.context.kind, c.rerank.kind), (ContextKind::Structural, RerankKind::None));
        assert_eq!((c.store.kind, c.store.keyword), (StoreKind::Embedded, KeywordRanking::Bm25));
        assert_eq!(c.context.llm.auth_header, AuthHeader::Bearer);
    }
}
