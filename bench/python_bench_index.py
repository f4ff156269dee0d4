"""The index both Python benches search: the corpus's Markdown, HTML and text documents
(`../shared/data/corpus`), ingested once with the real model into a folder that is reused
while it holds them all, and the queries of `crates/strata-engine/benches/latency.rs`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import strata

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "data" / "corpus"
FOLDER = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "bench-python-index"

QUERIES = [
    "how does a client learn which methods a resource supports",
    "idle timeout of a connection",
    "conditional request preconditions",
    "stay of proceedings pending arbitration",
    "conditions for patentability novelty",
    "section 102(b)",
    "§ 4.2",
    "section 9.3.1",
    '"means invention or discovery"',
    "definition of invention",
    "what is an origin server",
    "Discriminator Object polymorphism",
    "INVITE client transaction timer",
    "retry after a 503 service unavailable",
    "content negotiation Accept-Language",
    "how are patent fees reduced for small entities",
    "vacating an arbitration award",
    "flow control limits in QUIC streams",
    "schema object properties required",
    "cache freshness lifetime heuristics",
]


def open_index() -> strata.Index:
    """The bench index, ingested first when it is not complete."""
    model = os.environ.get("STRATA_MODEL_DIR")
    if not model:
        sys.exit("set STRATA_MODEL_DIR (scripts/fetch-models.sh all-MiniLM-L6-v2 prints it)")
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")
    files = sorted(str(p) for sub in ("markdown", "html", "txt") for p in (CORPUS / sub).iterdir())
    index = strata.Index(FOLDER, model=model)
    report = index.ingest(files)
    if report.ingested:
        print(f"ingested {report.ingested} documents ({report.chunks} chunks) in {report.seconds:.0f} s")
    return index
