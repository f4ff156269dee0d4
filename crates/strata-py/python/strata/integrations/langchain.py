"""``StrataRetriever`` for LangChain: a langchain-core ``BaseRetriever`` over a strata index.

::

    from strata.integrations.langchain import StrataRetriever
    retriever = StrataRetriever(index=strata.Index(".strata"), k=5)
    docs = retriever.invoke("conditions for patentability")
    docs[0].metadata["citation"]   # '[TITLE 35—PATENTS › … › §101. Inventions patentable, p. 7]'

Each ``Document`` holds a hit's text; its metadata holds ``doc``, ``doc_title``,
``heading_path``, ``pages`` (first, last), ``citation``, ``score`` and the rest of
:func:`strata.integrations.hit_metadata`. Async calls run the search on a worker thread,
which is concurrent since strata releases the GIL.
"""

from __future__ import annotations

from typing import Any, Dict, List

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict, Field
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "strata.integrations.langchain needs langchain-core: pip install 'strata[langchain]'"
    ) from e

from . import hit_metadata

__all__ = ["StrataRetriever"]


class StrataRetriever(BaseRetriever):
    """Retrieves strata hits as LangChain ``Document``s.

    ``index`` is a :class:`strata.Index` or :class:`strata.Client`; ``k`` the number of
    documents; ``search_kwargs`` any other argument of its ``search`` (``mode``, ``doc``,
    ``where``, ``kind``, ``pages``, …).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: Any
    k: int = 4
    search_kwargs: Dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        response = self.index.search(query, k=self.k, **self.search_kwargs)
        return [
            Document(page_content=hit.text, metadata=hit_metadata(hit), id=hit.chunk_id)
            for hit in response.hits
        ]
