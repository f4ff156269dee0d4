//! `NativeIndex`: one [`Engine`] that every Python thread shares. Each method takes the
//! engine, releases the GIL for the engine call (searches, ingests and navigation alike), and
//! answers with the JSON of the library's own type; `python/strata/_index.py` wraps it in the
//! typed classes users see.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use pyo3::prelude::*;
use serde::Serialize;
use strata_core::config::{parse_in, ContextKind};
use strata_core::{Error, Result};
use strata_engine::{Engine, IngestOptions, OpenOptions, SearchOptions};

use crate::config;
use crate::errors::{to_py, user};
use crate::stopping::Stopping;

/// An index opened with its models (query embedder, reranker, tokenizer).
#[pyclass(frozen, module = "strata._native")]
pub struct NativeIndex {
    /// `None` once closed; a call in flight keeps its own `Arc` until it ends.
    engine: RwLock<Option<Arc<Engine>>>,
    path: PathBuf,
}

/// The JSON the CLI's `--json` prints for `value`.
fn json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Internal(format!("an answer did not serialize: {e}")))
}

impl NativeIndex {
    /// The engine, or the error for a closed index.
    fn engine(&self, py: Python<'_>) -> PyResult<Arc<Engine>> {
        let engine = self.engine.read().unwrap_or_else(|p| p.into_inner()).clone();
        engine.ok_or_else(|| user(py, format!("the index {} is closed", self.path.display())))
    }

    /// Runs `call` on the engine without the GIL, and answers with its JSON.
    fn answer<T: Serialize>(
        &self,
        py: Python<'_>,
        call: impl FnOnce(&Engine) -> Result<T> + Send,
    ) -> PyResult<String> {
        let engine = self.engine(py)?;
        py.detach(move || call(&engine).and_then(|answer| json(&answer))).map_err(|e| to_py(py, e))
    }
}

/// The search options a Python call sent (`SearchOptions` as JSON).
fn search_options(options: &str) -> Result<SearchOptions> {
    serde_json::from_str(options).map_err(|e| Error::user(format!("search options: {e}")))
}

#[pymethods]
impl NativeIndex {
    /// Opens the index at `path` (created when `create` and absent) with the configuration
    /// of `config` (a strata.toml), the environment, and `settings` (JSON sections).
    #[new]
    #[pyo3(signature = (path, config=None, settings="{}".to_string(), model=None, create=true))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        config: Option<PathBuf>,
        settings: String,
        model: Option<String>,
        create: bool,
    ) -> PyResult<NativeIndex> {
        let index = path.clone();
        let opened = py.detach(move || {
            let config = config::build(config.as_deref(), &settings)?;
            let options = OpenOptions { model, dense: true, create, navigate_only: false };
            Engine::open(config, &index, &options)
        });
        let engine = opened.map_err(|e| to_py(py, e))?;
        Ok(NativeIndex { engine: RwLock::new(Some(Arc::new(engine))), path })
    }

    /// Closes the index; its models are freed when the calls in flight end.
    fn close(&self) {
        self.engine.write().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// The index folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The query embedder's model, when the dense leg can run.
    #[getter]
    fn dense_model(&self, py: Python<'_>) -> PyResult<Option<String>> {
        Ok(self.engine(py)?.dense_model().map(str::to_string))
    }

    /// Searches the last commit; `options` is `SearchOptions` as JSON (the body of
    /// `POST /v1/search`). Answers `SearchResponse` as JSON.
    fn search(&self, py: Python<'_>, options: &str) -> PyResult<String> {
        let options = search_options(options).map_err(|e| to_py(py, e))?;
        self.answer(py, move |engine| engine.search(&options))
    }

    /// Seconds that `Engine::search` alone takes for `options`, timed in Rust around the
    /// call (the response dropped unread): the Rust side of `bench/python-latency.py`.
    fn search_seconds(&self, py: Python<'_>, options: &str) -> PyResult<f64> {
        let options = search_options(options).map_err(|e| to_py(py, e))?;
        let engine = self.engine(py)?;
        py.detach(move || {
            let started = Instant::now();
            engine.search(&options).map(|_| started.elapsed().as_secs_f64())
        })
        .map_err(|e| to_py(py, e))
    }

    /// Ingests files, folders and glob patterns. `progress` draws strata's bar on standard
    /// error; `observer(done, total, message)` is called as the ingest advances. Answers the
    /// ingest summary as JSON. Ctrl-C, or an exception in `observer`, stops the ingest after
    /// the files in hand (what was read is committed) and is raised from the call.
    #[pyo3(signature = (paths, force=false, progress=false, contextualize=None, meta=BTreeMap::new(), observer=None))]
    #[allow(clippy::too_many_arguments)] // the Python call's keywords, one each
    fn ingest(
        &self,
        py: Python<'_>,
        paths: Vec<String>,
        force: bool,
        progress: bool,
        contextualize: Option<String>,
        meta: BTreeMap<String, String>,
        observer: Option<Py<PyAny>>,
    ) -> PyResult<String> {
        let context: Option<ContextKind> =
            contextualize.map(|k| parse_in(&k, "contextualize")).transpose().map_err(|e| to_py(py, e))?;
        let stopping = Stopping::default();
        let observer = observer.map(|callback| stopping.observer(callback));
        let options = IngestOptions {
            force,
            progress,
            context,
            metadata: meta,
            observer,
            stop: Some(stopping.stop.clone()),
            ..IngestOptions::default()
        };
        let engine = self.engine(py)?;
        let answer =
            py.detach(|| stopping.run(|| engine.ingest_with(&paths, &options).and_then(|s| json(&s))));
        match stopping.raised() {
            Some(raised) => Err(raised),
            None => answer.map_err(|e| to_py(py, e)),
        }
    }

    /// The indexed documents.
    fn documents(&self, py: Python<'_>) -> PyResult<String> {
        self.answer(py, |engine| engine.documents())
    }

    /// A document's outline, `depth` levels deep (all when `None`).
    #[pyo3(signature = (doc, depth=None))]
    fn outline(&self, py: Python<'_>, doc: String, depth: Option<usize>) -> PyResult<String> {
        self.answer(py, move |engine| engine.outline(&doc, depth))
    }

    /// A section with its subsections (node id or section number); the whole document when
    /// `node` is `None`.
    #[pyo3(signature = (doc, node=None))]
    fn section(&self, py: Python<'_>, doc: String, node: Option<String>) -> PyResult<String> {
        self.answer(py, move |engine| engine.section(&doc, node.as_deref()))
    }

    /// Pages `first..=last` (physical numbers from 1).
    fn pages(&self, py: Python<'_>, doc: String, first: u32, last: u32) -> PyResult<String> {
        self.answer(py, move |engine| engine.pages(&doc, first, last))
    }

    /// The definitions of `term`, in one document when `doc` is given.
    #[pyo3(signature = (term, doc=None))]
    fn define(&self, py: Python<'_>, term: String, doc: Option<String>) -> PyResult<String> {
        self.answer(py, move |engine| engine.define(&term, doc.as_deref()))
    }

    /// The references out of and into a section (the whole document when `node` is `None`).
    #[pyo3(signature = (doc, node=None))]
    fn references(&self, py: Python<'_>, doc: String, node: Option<String>) -> PyResult<String> {
        self.answer(py, move |engine| engine.references(&doc, node.as_deref()))
    }

    /// Removes a document (id or part of its path); answers its id as JSON.
    fn remove(&self, py: Python<'_>, doc: String) -> PyResult<String> {
        self.answer(py, move |engine| engine.remove(&doc).map(|id| id.to_string()))
    }
}
