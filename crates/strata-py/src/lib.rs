//! The native half of the Python package `strata` (`strata._native`): an index opened with
//! its models, searched, navigated and written through [`strata_engine::Engine`]. Nothing is
//! computed here that the engine does not compute for the CLI and the server; this crate only
//! carries arguments in and answers out.
//!
//! Answers cross as the JSON the CLI's `--json` and the HTTP API print (`serde_json` on the
//! library's own types), so the Python classes of `python/strata/` read one shape whether it
//! came from this module or from `strata serve`. Searches and ingests release the GIL, so
//! Python threads search one index concurrently. Errors become the classes of
//! `strata.errors`, chosen by whose fault it was ([`strata_core::Error::root`]).
//!
//! ```python
//! import strata
//! with strata.Index(".strata") as index:
//!     index.ingest(["docs/"])
//!     print(index.search("section 102(b)", k=3).hits[0].citation)
//! ```

use pyo3::prelude::*;

mod config;
mod errors;
mod index;
mod stopping;

/// The module `strata._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<index::NativeIndex>()?;
    Ok(())
}
