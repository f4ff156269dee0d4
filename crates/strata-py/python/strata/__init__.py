"""strata: hierarchical retrieval over long structured documents, from Python.

:class:`Index` opens (or creates) an index in a folder and searches it in this process;
:class:`Client` does the same against a running ``strata serve``. Both return the typed
results of :mod:`strata._results` and raise the errors of :mod:`strata.errors`::

    import strata

    with strata.Index(".strata") as index:
        index.ingest(["docs/"])
        for hit in index.search("conditions for patentability", k=3):
            print(hit.citation, hit.score)

Retrievers for LangChain and LlamaIndex are in :mod:`strata.integrations` (imported only
when used).
"""

from __future__ import annotations

from ._client import Client
from ._index import Index
from ._native import __version__
from ._results import (
    CitedDefinition,
    CitedReference,
    Context,
    Definition,
    DocumentInfo,
    FileOutcome,
    Highlight,
    Hit,
    IngestReport,
    LegRank,
    LineRange,
    MoreDefinition,
    Outline,
    OutlineNode,
    PageRange,
    Pages,
    PageText,
    Reference,
    Refs,
    SearchResponse,
    Section,
    Span,
)
from .errors import (
    AccessDenied,
    IndexUnusable,
    InternalError,
    NotFound,
    ReadError,
    RemoteError,
    StrataError,
    StrataIOError,
    UserError,
)

__all__ = [
    "__version__",
    "Index",
    "Client",
    "SearchResponse",
    "Hit",
    "Highlight",
    "LegRank",
    "Definition",
    "Reference",
    "Context",
    "IngestReport",
    "FileOutcome",
    "DocumentInfo",
    "Outline",
    "OutlineNode",
    "Section",
    "Pages",
    "PageText",
    "CitedDefinition",
    "CitedReference",
    "Refs",
    "PageRange",
    "LineRange",
    "MoreDefinition",
    "Span",
    "StrataError",
    "UserError",
    "NotFound",
    "ReadError",
    "StrataIOError",
    "IndexUnusable",
    "RemoteError",
    "InternalError",
    "AccessDenied",
]
