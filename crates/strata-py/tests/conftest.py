"""Fixtures of the Python package's tests: the real model, real corpus documents, and one
index built from them for the whole session (ingest is the slow part).

The model is ``STRATA_MODEL_DIR`` (``scripts/fetch-models.sh all-MiniLM-L6-v2`` prints it);
without it the tests skip, or fail under ``STRATA_REQUIRE_MODEL=1`` (scripts/python.sh sets
it). The corpus is ``../shared/data/corpus`` beside the repository; without it they skip
with a message, or fail under ``STRATA_REQUIRE_CORPUS=1`` (which CI sets), as the Rust
corpus tests do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import strata

REPO = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("STRATA_CORPUS", REPO.parent / "shared" / "data" / "corpus"))

# Three documents with what every call needs: numbered sections, definitions and
# cross-references (Title 13, Title 9), printed pages (the review guide PDF).
DOCS = {
    "title9": "html/usc-title09-arbitration.htm",
    "title13": "docx/usc-title13-census-converted.docx",
    "guide": "pdf/uslm-2.0-review-guide.pdf",
}


def _missing(what: str) -> None:
    if os.environ.get("STRATA_REQUIRE_MODEL") == "1" and "model" in what:
        pytest.fail(f"{what} (STRATA_REQUIRE_MODEL=1)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def model_dir() -> str:
    model = os.environ.get("STRATA_MODEL_DIR")
    if not model or not Path(model).is_dir():
        _missing("no embedding model: set STRATA_MODEL_DIR (scripts/fetch-models.sh all-MiniLM-L6-v2)")
    return model


@pytest.fixture(scope="session")
def corpus() -> dict:
    paths = {name: CORPUS / rel for name, rel in DOCS.items()}
    absent = [str(p) for p in paths.values() if not p.is_file()]
    if absent:
        why = f"corpus documents absent ({', '.join(absent)}): no ../shared/data/corpus next to the repo"
        if os.environ.get("STRATA_REQUIRE_CORPUS") == "1":
            pytest.fail(f"{why} (STRATA_REQUIRE_CORPUS=1)")
        pytest.skip(why)
    return {name: str(p) for name, p in paths.items()}


@pytest.fixture(scope="session")
def built(tmp_path_factory, model_dir, corpus):
    """The session's index: the three documents ingested with the real model."""
    folder = tmp_path_factory.mktemp("index") / ".strata"
    index = strata.Index(folder, model=model_dir)
    report = index.ingest(list(corpus.values()))
    yield index, report, folder
    index.close()


@pytest.fixture(scope="session")
def index(built) -> strata.Index:
    return built[0]


@pytest.fixture(scope="session")
def docs(index) -> dict:
    """Document ids by the short names of DOCS."""
    ids = {}
    for d in index.documents():
        for name, rel in DOCS.items():
            if d.path.endswith(rel):
                ids[name] = d.id
    return ids


@pytest.fixture(scope="session")
def strata_bin() -> str:
    """The strata binary of this checkout (STRATA_BIN; scripts/python.sh points it at
    target/debug/strata, which `cargo test` builds). Without it the tests that need it skip,
    or fail under STRATA_REQUIRE_BIN=1, which .ci/run sets."""
    path = os.environ.get("STRATA_BIN") or shutil.which("strata")
    if not path or not Path(path).is_file():
        why = f"no strata binary at {path!r}: build it (cargo build -p strata-cli) or set STRATA_BIN"
        if os.environ.get("STRATA_REQUIRE_BIN") == "1":
            pytest.fail(f"{why} (STRATA_REQUIRE_BIN=1)")
        pytest.skip(why)
    version = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("strata"), version
    return path
