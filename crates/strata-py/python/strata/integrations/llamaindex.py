"""``StrataRetriever`` for LlamaIndex: a llama-index-core ``BaseRetriever`` over a strata index.

::

    from strata.integrations.llamaindex import StrataRetriever
    retriever = StrataRetriever(strata.Index(".strata"), k=5)
    nodes = retriever.retrieve("conditions for patentability")
    nodes[0].score, nodes[0].node.metadata["citation"]

Each ``NodeWithScore`` holds a ``TextNode`` with a hit's text (its id the chunk's id) and
strata's score; the node's metadata holds ``doc``, ``heading_path``, ``pages``,
``citation``, ``score`` and the rest of :func:`strata.integrations.hit_metadata`.
"""

from __future__ import annotations

from typing import Any, List

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "strata.integrations.llamaindex needs llama-index-core: pip install 'strata[llamaindex]'"
    ) from e

from . import hit_metadata

__all__ = ["StrataRetriever"]

# Metadata that stays out of the text a node shows to embedders and language models (the
# citation stays in, so an answer can quote it).
_HIDDEN = ["doc", "source_path", "node_id", "span", "kind", "score", "chunk_id", "section_number"]


class StrataRetriever(BaseRetriever):
    """Retrieves strata hits as LlamaIndex ``NodeWithScore``s.

    ``index`` is a :class:`strata.Index` or :class:`strata.Client`; ``k`` the number of
    nodes; other keyword arguments go to its ``search`` (``mode``, ``doc``, ``where``, …).
    """

    def __init__(self, index: Any, k: int = 4, callback_manager: Any = None, **search_kwargs: Any) -> None:
        super().__init__(callback_manager=callback_manager)
        self.index = index
        self.k = k
        self.search_kwargs = search_kwargs

    def _retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        response = self.index.search(query_bundle.query_str, k=self.k, **self.search_kwargs)
        nodes = []
        for hit in response.hits:
            node = TextNode(
                id_=hit.chunk_id,
                text=hit.text,
                metadata=hit_metadata(hit),
                excluded_embed_metadata_keys=list(_HIDDEN),
                excluded_llm_metadata_keys=list(_HIDDEN),
            )
            nodes.append(NodeWithScore(node=node, score=hit.score))
        return nodes
