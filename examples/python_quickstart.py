"""Ingest a document and query it from Python: search, navigate, and a LangChain retriever.

    pip install target/wheels/strata-*.whl     # scripts/python.sh build
    python examples/python_quickstart.py [FILE ...]

Without arguments it ingests examples/sample-agreement.md into a temporary index. The
embedding model is the default one in strata's cache (scripts/fetch-models.sh).
"""

import sys
import tempfile
from pathlib import Path

import strata

files = sys.argv[1:] or [str(Path(__file__).with_name("sample-agreement.md"))]

with tempfile.TemporaryDirectory() as folder, strata.Index(Path(folder) / ".strata") as index:
    report = index.ingest(files)
    print(f"ingested {report.ingested} of {report.files} files, {report.chunks} chunks")

    response = index.search("how much notice before terminating", k=3, budget=400)
    for hit in response:
        print(f"{hit.score:.4f}  {hit.citation}")
    print("\ncontext block for a prompt:\n" + response.context.text)

    best = response.hits[0]
    section = index.section(best.doc_id, best.node_id)
    print(f"\nthe section of the best hit, {' › '.join(section.heading_path)}:\n{section.text[:300]}")
    for definition in index.define("Services", doc=best.doc_id):
        print(f"\ndefinition of {definition.term!r}: {definition.text[:120]}")

    try:
        from strata.integrations.langchain import StrataRetriever
    except ImportError:
        print("\n(pip install langchain-core to try the LangChain retriever)")
    else:
        docs = StrataRetriever(index=index, k=2).invoke("service credits")
        print("\nLangChain:", [d.metadata["citation"] for d in docs])
