"""The framework retrievers against the real langchain-core and llama-index-core."""

from __future__ import annotations

import asyncio

import pytest

QUERY = "petition to order arbitration in district court"


def test_langchain_retriever_returns_documents_with_strata_metadata(index):
    pytest.importorskip("langchain_core", reason="langchain-core is not installed (scripts/python.sh installs it)")
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    from strata.integrations.langchain import StrataRetriever

    retriever = StrataRetriever(index=index, k=4, search_kwargs={"mode": "hybrid"})
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke(QUERY)
    hits = index.search(QUERY, k=4, mode="hybrid").hits
    assert len(docs) == len(hits) == 4
    for doc, hit in zip(docs, hits):
        assert isinstance(doc, Document)
        assert doc.page_content == hit.text
        m = doc.metadata
        assert (m["doc"], m["heading_path"], m["citation"], m["score"]) == (
            hit.doc_id,
            hit.heading_path,
            hit.citation,
            hit.score,
        )
        assert m["pages"] == (None if hit.pages is None else [hit.pages.first, hit.pages.last])
    # The async path runs the search on a worker thread: the same documents.
    assert asyncio.run(retriever.ainvoke(QUERY)) == docs
    # Filters pass through.
    kept = StrataRetriever(index=index, k=3, search_kwargs={"kind": "requirement"}).invoke("shall")
    assert kept and {d.metadata["kind"] for d in kept} == {"requirement"}


def test_llamaindex_retriever_returns_nodes_with_scores(index):
    pytest.importorskip("llama_index.core", reason="llama-index-core is not installed (scripts/python.sh installs it)")
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

    from strata.integrations.llamaindex import StrataRetriever

    retriever = StrataRetriever(index, k=4, mode="hybrid")
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve(QUERY)
    hits = index.search(QUERY, k=4, mode="hybrid").hits
    assert len(nodes) == len(hits) == 4
    for node, hit in zip(nodes, hits):
        assert isinstance(node, NodeWithScore) and isinstance(node.node, TextNode)
        assert node.score == hit.score and node.node.node_id == hit.chunk_id
        assert node.node.get_content() == hit.text
        m = node.node.metadata
        assert (m["doc"], m["heading_path"], m["citation"]) == (hit.doc_id, hit.heading_path, hit.citation)
        # What a language model is shown includes the citation, not the bookkeeping.
        shown = node.node.get_content(metadata_mode=MetadataMode.LLM)
        assert hit.citation in shown and hit.chunk_id not in shown
    assert [n.node.node_id for n in asyncio.run(retriever.aretrieve(QUERY))] == [h.chunk_id for h in hits]
