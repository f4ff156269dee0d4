"""``strata.Client`` against a real ``strata serve`` on the session's index: the same typed
answers as ``strata.Index``, the server's errors as the same exception classes, ingest as a
job."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import time

import pytest

import strata


def _serve(strata_bin, folder, model_dir, tmp_path, *extra):
    key = "py-" + secrets.token_hex(16)
    err = open(tmp_path / "serve.err", "w+")
    server = subprocess.Popen(
        [strata_bin, "--index", str(folder), "--model", model_dir, "serve", "--addr", "127.0.0.1:0", *extra],
        stdout=subprocess.DEVNULL,
        stderr=err,
        cwd=tmp_path,
        env={**os.environ, "STRATA_API_KEYS": key},
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        err.seek(0)
        found = re.search(r"listening on (http://[0-9.:]+)", err.read())
        if found:
            return server, found.group(1), key
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    err.seek(0)
    pytest.fail(f"strata serve did not start: {err.read()[-2000:]}")


@pytest.fixture(scope="module")
def served(built, strata_bin, model_dir, tmp_path_factory):
    index, _, folder = built
    server, url, key = _serve(strata_bin, folder, model_dir, tmp_path_factory.mktemp("serve"))
    yield strata.Client(url, api_key=key), index
    server.terminate()
    assert server.wait(timeout=30) == 0


def test_client_answers_as_the_index(served, docs):
    client, index = served
    for kwargs in [dict(k=5), dict(mode="exact", k=3), dict(mode="hybrid", budget=500, refs=True)]:
        remote = client.search("section 4 petition", **kwargs).to_dict()
        local = index.search("section 4 petition", **kwargs).to_dict()
        for answer in (remote, local):
            answer.pop("took_ms"), answer.pop("timings")
        assert remote == local, kwargs
    assert [d.to_dict() for d in client.documents()] == [d.to_dict() for d in index.documents()]
    title9 = docs["title9"]
    assert client.outline(title9) == index.outline(title9)
    assert client.section(title9, "4") == index.section(title9, "4")
    assert client.section(title9) == index.section(title9)
    assert client.read_pages(docs["guide"], 2, 3) == index.read_pages(docs["guide"], 2, 3)
    assert client.define("Bureau") == index.define("Bureau")
    assert client.references(title9, "3") == index.references(title9, "3")


def test_client_raises_the_server_errors_as_strata_exceptions(served):
    client, _ = served
    with pytest.raises(strata.NotFound, match="no-such-doc"):
        client.outline("no-such-doc")
    with pytest.raises(strata.UserError, match="unknown mode"):
        client.search("x", mode="fuzzy")
    with pytest.raises(strata.AccessDenied):
        strata.Client(client.url, api_key="wrong").documents()
    with pytest.raises(strata.RemoteError, match="cannot reach"):
        strata.Client("http://127.0.0.1:9", timeout=5).documents()


def test_client_ingests_and_removes_through_jobs(strata_bin, model_dir, corpus, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(corpus["title9"], root / "title9.htm")
    server, url, key = _serve(strata_bin, tmp_path / "idx", model_dir, tmp_path, "--root", str(root))
    try:
        client = strata.Client(url, api_key=key)
        report = client.ingest(str(root / "title9.htm"))
        assert (report.ingested, report.failed) == (1, 0) and report.chunks > 50
        assert [o.status for o in client.ingest(str(root / "title9.htm")).outcomes] == ["unchanged"]
        assert client.search("petition to order arbitration", k=1).hits[0].doc_title.startswith("TITLE 9")
        with pytest.raises(strata.UserError, match="contextualize and meta"):
            client.ingest(str(root / "title9.htm"), meta={"a": "b"})
        removed = client.remove("title9")
        assert client.documents() == [] and removed.startswith("title9")
    finally:
        server.terminate()
        server.wait(timeout=30)
