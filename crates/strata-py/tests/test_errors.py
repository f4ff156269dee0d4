"""strata's errors as Python exceptions: the class by whose fault it was, strata's message."""

from __future__ import annotations

import json

import pytest

import strata


def test_not_found_names_what_was_asked(index, docs):
    with pytest.raises(strata.NotFound, match='no document matches "no-such-doc"') as e:
        index.outline("no-such-doc")
    assert isinstance(e.value, LookupError) and isinstance(e.value, strata.StrataError)
    with pytest.raises(strata.NotFound):
        index.section(docs["title9"], "999")
    with pytest.raises(strata.NotFound):
        index.search("arbitration", doc="no-such-doc")


def test_bad_values_are_user_errors_naming_them(index, docs):
    cases = [
        (dict(mode="fuzzy"), "unknown mode"),
        (dict(k=0), "k"),
        (dict(kind="poem"), "unknown chunk kind"),
        (dict(pages="7-3"), "page"),
        (dict(whole_pages=99), "pages must be between 0 and 20"),
        (dict(where={"bad key!": "x"}), "not a metadata key"),
    ]
    for kwargs, message in cases:
        with pytest.raises(strata.UserError, match=message) as e:
            index.search("arbitration", **kwargs)
        assert isinstance(e.value, ValueError), kwargs
    with pytest.raises(strata.UserError, match="pages must be"):
        index.search("arbitration", pages=[1, 2])
    with pytest.raises(strata.UserError):
        index.read_pages(docs["guide"], 9, 2)
    with pytest.raises(strata.UserError, match="query must be a string"):
        index.search(42)  # type: ignore[arg-type]


def test_settings_layer_over_the_config_and_are_checked(tmp_path, model_dir):
    toml = tmp_path / "strata.toml"
    toml.write_text("[search]\nk = 3\n[dense]\nenabled = false\n")
    with strata.Index(tmp_path / "a", config=toml) as index:
        assert index.dense_model is None, "[dense] enabled = false from the file"
    with strata.Index(tmp_path / "b", config={"dense": {"enabled": False}}, search={"k": 4}) as index:
        assert index.dense_model is None
    with pytest.raises(strata.UserError, match="kk"):
        strata.Index(tmp_path / "c", search={"kk": 1}, dense={"enabled": False})
    with pytest.raises(strata.UserError, match="search.k"):
        strata.Index(tmp_path / "c", search={"k": 0}, dense={"enabled": False})
    with pytest.raises(strata.UserError, match="serch"):
        strata.Index(tmp_path / "c", serch={"k": 1})
    with pytest.raises(strata.StrataIOError):
        strata.Index(tmp_path / "c", config=tmp_path / "absent.toml")


def test_open_refuses_a_folder_without_an_index(tmp_path):
    with pytest.raises(strata.StrataError) as e:
        strata.Index.open(tmp_path / "nothing-here", dense={"enabled": False})
    assert "nothing-here" in str(e.value)
    assert not (tmp_path / "nothing-here").exists(), "open creates nothing"


def test_a_closed_index_says_so(tmp_path):
    index = strata.Index(tmp_path / "idx", dense={"enabled": False})
    index.close()
    with pytest.raises(strata.UserError, match="closed"):
        index.documents()


def test_searching_with_another_model_is_refused(built, tmp_path):
    _, _, folder = built
    # The index records its model; a dense search with the model off is refused, naming it.
    with strata.Index.open(folder, dense={"enabled": False}) as index:
        with pytest.raises(strata.StrataError, match="dense"):
            index.search("arbitration", mode="dense")
        assert json.dumps(index.search("arbitration", mode="keyword", k=1).to_dict())
