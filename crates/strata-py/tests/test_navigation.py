"""Every navigation call of ``strata.Index`` on corpus documents: outline, section, pages,
definitions, references, documents, remove."""

from __future__ import annotations

import pytest

import strata


def test_documents_list_what_was_ingested(index, docs):
    listed = {d.id: d for d in index.documents()}
    assert set(docs.values()) == set(listed)
    guide = listed[docs["guide"]]
    assert guide.format == "pdf" and 10 < guide.pages <= 17 and guide.chunks > 0 and guide.nodes > 1
    assert listed[docs["title13"]].definitions > 0 and listed[docs["title9"]].references > 0


def test_outline_is_the_heading_tree(index, docs):
    outline = index.outline(docs["title9"])
    assert isinstance(outline, strata.Outline) and outline.doc_id == docs["title9"]
    nodes = list(outline.walk())
    numbers = [n.number for n in nodes if n.number]
    assert "1" in numbers and "16" in numbers, numbers
    assert all(c.level > n.level for n in nodes for c in n.children)
    shallow = index.outline(docs["title9"], depth=1)
    assert all(not c.children for c in shallow.children) and any(c.hidden for c in shallow.children)


def test_section_by_number_and_by_node_id(index, docs):
    by_number = index.section(docs["title9"], "4")
    assert by_number.number == "4" and "§4." in by_number.heading_path[-1]
    assert "petition" in by_number.text.lower()
    by_id = index.section(docs["title9"], by_number.node_id)
    assert by_id == by_number
    whole = index.section(docs["title9"])
    assert len(whole.text) > len(by_number.text) and by_number.text.strip()[:40] in whole.text


def test_read_pages_gives_page_text_and_labels(index, docs):
    pages = index.read_pages(docs["guide"], 2, 3)
    assert [p.number for p in pages.pages] == [2, 3] and pages.page_count == 17
    assert all(p.text.strip() for p in pages.pages)
    one = index.read_pages(docs["guide"], 5)
    assert [p.number for p in one.pages] == [5]


def test_define_cites_the_definition(index, docs):
    found = index.define("Bureau")
    assert found and all(d.normalized == "bureau" for d in found)
    assert found[0].doc_id == docs["title13"] and "Bureau of the Census" in found[0].text
    assert found[0].heading_path and found[0].heading_path[0] != found[0].doc_title
    # The converted Word file records no page breaks: no page is cited.
    assert found[0].pages is None
    assert index.define("Bureau", doc=docs["title9"]) == []
    assert index.define("no such term anywhere") == []


def test_references_out_of_and_into_a_section(index, docs):
    refs = index.references(docs["title9"], "3")
    assert isinstance(refs, strata.Refs)
    out = {r.target for r in refs.outgoing}
    assert out, "§3 refers to other sections"
    resolved = [r for r in refs.outgoing if r.to_node_id]
    assert resolved and all(r.from_node_id == index.section(docs["title9"], "3").node_id for r in resolved)
    whole = index.references(docs["title9"])
    assert len(whole.outgoing) >= len(refs.outgoing) and whole.incoming


def test_remove_drops_a_document(tmp_path, model_dir, corpus):
    with strata.Index(tmp_path / "idx", model=model_dir) as index:
        index.ingest([corpus["title9"], corpus["guide"]])
        removed = index.remove("arbitration")
        assert removed.startswith("usc-title09")
        assert [d.id for d in index.documents()] != [] and removed not in [d.id for d in index.documents()]
        assert all(h.doc_id != removed for h in index.search("arbitration", k=10))
        with pytest.raises(strata.NotFound):
            index.remove(removed)
