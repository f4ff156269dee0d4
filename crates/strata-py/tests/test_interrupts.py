"""Python behaves like Python (issue 55): a bad index path is a ValueError, Ctrl-C stops a
long ingest with KeyboardInterrupt, and an exception in a progress callback stops the ingest
and comes out of it. No model needed: the dense leg is off."""

from __future__ import annotations

import os
import signal
import time
import traceback

import pytest

import strata


def _documents(folder, count):
    """``count`` small Markdown documents, one section each."""
    folder.mkdir()
    for i in range(count):
        (folder / f"doc{i:04}.md").write_text(f"# Document {i}\n\nClause {i} pays the agent on closing.\n")
    return str(folder)


def test_regression_an_empty_or_file_index_path_is_a_value_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for empty in ["", " "]:
        with pytest.raises(ValueError, match="is empty"):
            strata.Index(empty, dense={"enabled": False})
    assert os.listdir(tmp_path) == [], "nothing was written into the working directory"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not an index")
    with pytest.raises(ValueError, match=r"notes\.txt is not a folder"):
        strata.Index(a_file, dense={"enabled": False})


def test_regression_an_exception_in_the_progress_callback_stops_the_ingest(tmp_path):
    docs = _documents(tmp_path / "docs", 200)
    calls = []

    def observer(done, total, message):
        calls.append(done)
        if done >= 3:
            raise RuntimeError(f"the callback gave up at {done} of {total}")

    with strata.Index(tmp_path / "idx", dense={"enabled": False}) as index:
        with pytest.raises(RuntimeError, match="the callback gave up") as raised:
            index.ingest(docs, progress=observer)
        # Raised from the callback itself, with its traceback.
        assert "observer" in "".join(traceback.format_tb(raised.value.__traceback__))
        assert calls[-1] == 3, "not called again after it raised"
        # What was read before the stop is committed; the rest was not taken.
        kept = len(index.documents())
        assert 3 <= kept < 200, kept
        # The index goes on: the next ingest takes the rest.
        report = index.ingest(docs, progress=False)
        assert report.ingested + report.unchanged == 200 and report.failed == 0, report.outcomes


def test_regression_ctrl_c_during_an_ingest_raises_keyboard_interrupt(tmp_path):
    docs = _documents(tmp_path / "docs", 400)

    sent = []

    def observer(done, total, message):
        # Ctrl-C, as the terminal sends it, once the ingest is under way; each call takes a
        # little time, so that the ingest would run on for seconds.
        if done >= 2 and not sent:
            sent.append(done)
            signal.raise_signal(signal.SIGINT)
        time.sleep(0.005)

    with strata.Index(tmp_path / "idx", dense={"enabled": False}) as index:
        with pytest.raises(KeyboardInterrupt):
            index.ingest(docs, progress=observer)
        kept = len(index.documents())
        assert kept < 400, "the ingest stopped before its end"
        assert index.ingest(docs, progress=False).failed == 0
