"""Ingest and search through ``strata.Index``, on corpus documents with the real model."""

from __future__ import annotations

import io
import json
import re

import pytest

import strata

MODES = ["keyword", "exact", "dense", "hybrid", "hierarchical"]


def test_ingest_reports_every_file(built, corpus, tmp_path, model_dir):
    index, report, _ = built
    assert isinstance(report, strata.IngestReport)
    assert (report.files, report.ingested, report.failed) == (3, 3, 0), report.outcomes
    assert report.chunks == sum(o.chunks for o in report.outcomes) > 100
    assert report.model and report.embedded == report.chunks
    assert {o.status for o in report.outcomes} == {"ingested"}
    assert sorted(o.path for o in report.outcomes) == sorted(corpus.values())
    # Unchanged files are skipped; a missing path and an unreadable file fail alone.
    bad = tmp_path / "empty.md"
    bad.write_text("")
    again = index.ingest([corpus["title9"], str(tmp_path / "absent.md"), str(bad)], progress=False)
    by_status = {o.status: o for o in again.outcomes}
    assert (again.unchanged, again.failed, again.ingested) == (1, 2, 0), again.outcomes
    assert by_status["unchanged"].doc_id and by_status["unchanged"].chunks == 0
    failed = [o for o in again.outcomes if o.status == "failed"]
    assert any("no such file" in m for o in failed for m in o.messages), failed
    assert all(o.messages for o in failed)


def test_ingest_meta_and_contextualize(tmp_path, model_dir, corpus):
    with strata.Index(tmp_path / "idx", model=model_dir) as index:
        report = index.ingest(corpus["title9"], meta={"owner": "legal", "year": 2019}, contextualize="none")
        assert report.ingested == 1 and report.context is None
        [doc] = index.documents()
        assert doc.metadata["owner"] == "legal" and doc.metadata["year"] == "2019"
        hit = index.search("arbitration agreement", k=1, where={"owner": "legal"}).hits[0]
        assert hit.context is None, "contextualize='none' writes no context"
        with pytest.raises(strata.UserError, match="no document has"):
            index.search("arbitration", where={"owner": "finance"})
        with pytest.raises(strata.UserError, match="contextualize"):
            index.ingest(corpus["title9"], contextualize="gpt")


def test_ingest_reports_progress_to_a_callable_and_a_tqdm_bar(tmp_path, model_dir, corpus):
    seen = []
    with strata.Index(tmp_path / "idx", model=model_dir) as index:
        index.ingest([corpus["title9"], corpus["guide"]], progress=lambda *step: seen.append(step))
    assert seen[0] == (0, 2, "") and seen[-1][:2] == (2, 2)
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)
    assert any("usc-title09-arbitration.htm" in message for _, _, message in seen)
    assert any("chunks/s" in message for _, _, message in seen), "the embedding throughput"
    # The notebook bar: tqdm (a dependency of llama-index-core) drawn into a buffer.
    tqdm = pytest.importorskip("tqdm").tqdm
    from strata._progress import TqdmObserver

    out = io.StringIO()
    bar = TqdmObserver(tqdm, file=out)
    with strata.Index(tmp_path / "idx2", dense={"enabled": False}) as index:
        index.ingest([corpus["title9"], corpus["guide"]], progress=bar)
    assert bar.bar.n == 2 and bar.bar.total == 2
    assert "strata ingest" in out.getvalue() and "2/2" in out.getvalue()


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_answers_with_cited_hits(index, docs, mode):
    query = "section 4" if mode == "exact" else "petition to order arbitration in district court"
    response = index.search(query, mode=mode, k=5)
    assert isinstance(response, strata.SearchResponse)
    assert response.mode == mode and response.query == query
    assert 0 < len(response) <= 5
    legs = {leg for hit in response for leg in hit.legs}
    wanted = {"keyword": {"keyword"}, "exact": {"exact"}, "dense": {"dense"}}.get(mode, {"keyword", "dense"})
    assert wanted <= legs, (mode, legs)
    for hit in response:
        assert hit.text and hit.doc_id in docs.values() and hit.span.start < hit.span.end
        assert hit.citation.startswith(f"[{hit.doc_title}") and hit.heading_path[:1] != [hit.doc_title]
        if hit.doc_id == docs["title9"]:
            # HTML has no pages and no source lines: the heading path is the citation.
            assert hit.pages is None and hit.lines is None and not re.search(r", (pp?\.|lines?) ", hit.citation)
        else:
            assert hit.pages is None or hit.pages.first <= hit.pages.last
            assert (hit.pages is not None) == bool(re.search(r", pp?\. [^\]]+\]$", hit.citation)), hit.citation
        assert hit.kind in {"content", "definition", "requirement", "table", "code", "list"}
    # Definitions the answer needs: at most as many as hits (or as terms the query names).
    named = sum(d.in_query for d in response.definitions)
    assert len(response.definitions) <= max(len(response), named)
    assert all(isinstance(m, strata.MoreDefinition) and m.term for m in response.more_definitions)
    scores = [hit.score for hit in response]
    assert scores == sorted(scores, reverse=True) or mode in ("exact", "hierarchical")
    if mode in ("hybrid", "hierarchical", "keyword", "dense"):
        assert response.hits[0].doc_id == docs["title9"], response.hits[0]
    if mode == "exact":
        assert response.hits[0].section_number == "4", response.hits[0]


def test_hits_carry_highlights_definitions_and_context(index, docs):
    response = index.search("what does Bureau mean", k=5, budget=600)
    assert any(h.highlights for h in response), "highlights"
    h = next(h for h in response if h.highlights)
    assert all(x.text and x.span.start >= h.span.start and x.span.end <= h.span.end for x in h.highlights)
    bureau = [d for d in response.definitions if d.normalized == "bureau"]
    assert bureau and bureau[0].doc_id == docs["title13"] and "Bureau of the Census" in bureau[0].text
    context = response.context
    assert context is not None and 0 < context.tokens <= context.budget == 600
    first = response.hits[context.hits[0]]
    assert first.citation in context.text and str(context) == context.text


def test_filters_keep_to_the_document_kind_and_pages(index, docs):
    title13 = docs["title13"]
    response = index.search("confidential information", doc=title13, k=8)
    assert response.hits and {h.doc_id for h in response} == {title13}
    outline = index.outline(title13)
    node = next(n for n in outline.walk() if n.number == "9")
    subtree = index.search("information", doc=f"{title13}#{node.id}", k=5)
    assert subtree.hits and all(h.heading_path[: len(subtree.hits[0].heading_path) - 1] for h in subtree)
    assert all(any("§9." in p for p in h.heading_path) for h in subtree), [h.heading_path for h in subtree]
    guide = docs["guide"]
    on_page = index.search("review", doc=guide, pages=(3, 4), k=5)
    assert on_page.hits and all(3 <= h.pages.first and h.pages.last <= 4 for h in on_page)
    assert index.search("review", doc=guide, pages="3-4", k=5).to_dict()["hits"] == on_page.to_dict()["hits"]
    reqs = index.search("shall", kind="requirement", k=5)
    assert reqs.hits and {h.kind for h in reqs} == {"requirement"}


def test_refs_and_whole_pages(index, docs):
    response = index.search("section 3 stay of proceedings", doc=docs["title9"], refs=True, k=5)
    assert response.references, "refs=True attaches referenced sections"
    ref = response.references[0]
    assert ref.raw and ref.text and ref.from_chunk in {h.chunk_id for h in response}
    paged = index.search("namespace", doc=docs["guide"], whole_pages=0, k=2)
    assert paged.hits and all(h.unit == "pages" for h in paged)


def test_results_are_typed_and_give_back_their_json(index):
    response = index.search("arbitration award", k=3, budget=300)
    data = response.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["hits"][0]["citation"] == response.hits[0].citation
    assert strata.SearchResponse(data) == response
    assert repr(response).startswith("SearchResponse(query='arbitration award'")
    assert repr(response.hits[0]).startswith("Hit(citation='[")
    response.to_dict()["hits"].clear()
    assert response.to_dict()["hits"], "to_dict returns a copy"
