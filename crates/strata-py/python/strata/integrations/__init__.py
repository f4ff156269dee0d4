"""Retrievers for agent and RAG frameworks. Each submodule imports its framework when it is
imported itself, so ``import strata`` never needs them:

- :mod:`strata.integrations.langchain`: ``StrataRetriever``, a langchain-core
  ``BaseRetriever`` (``pip install 'strata[langchain]'``);
- :mod:`strata.integrations.llamaindex`: ``StrataRetriever``, a llama-index-core
  ``BaseRetriever`` (``pip install 'strata[llamaindex]'``).

Both take a :class:`strata.Index` or a :class:`strata.Client` and any argument of its
``search``, and put strata's structure into each result's metadata: the document, heading
path, pages, citation and score.
"""

from __future__ import annotations

from typing import Any, Dict

from .._results import Hit


def hit_metadata(hit: Hit) -> Dict[str, Any]:
    """The metadata both retrievers attach to a hit: where it is, how to cite it, its score."""
    return {
        "doc": hit.doc_id,
        "doc_title": hit.doc_title,
        "source_path": hit.source_path,
        "node_id": hit.node_id,
        "heading_path": list(hit.heading_path),
        "section_number": hit.section_number,
        "pages": None if hit.pages is None else [hit.pages.first, hit.pages.last],
        "lines": None if hit.lines is None else [hit.lines.first, hit.lines.last],
        "span": [hit.span.start, hit.span.end],
        "kind": hit.kind,
        "citation": hit.citation,
        "score": hit.score,
        "chunk_id": hit.chunk_id,
    }
