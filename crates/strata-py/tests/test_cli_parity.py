"""The same query gives the same answer from Python as from ``strata search --json``: the
same hits in the same order with the same scores, legs, highlights, citations, definitions
and context block (only the timings differ)."""

from __future__ import annotations

import json
import subprocess

import pytest

CASES = [
    ("petition to order arbitration in district court", []),
    ("section 4", ["--mode", "exact"]),
    ("what does Bureau mean", ["--mode", "hybrid", "-k", "8", "--budget", "700"]),
    ("confidential information", ["--mode", "dense", "--doc", "title13"]),
    ("stay of proceedings", ["--mode", "keyword", "--refs"]),
]

PY_ARGS = {
    "--mode": ("mode", str),
    "-k": ("k", int),
    "--budget": ("budget", int),
    "--doc": ("doc", str),
}


def _python_kwargs(flags):
    kwargs, i = {}, 0
    while i < len(flags):
        if flags[i] == "--refs":
            kwargs["refs"] = True
            i += 1
            continue
        name, kind = PY_ARGS[flags[i]]
        kwargs[name] = kind(flags[i + 1])
        i += 2
    return kwargs


def _comparable(response: dict) -> dict:
    return {k: v for k, v in response.items() if k not in ("took_ms", "timings")}


@pytest.mark.parametrize("query,flags", CASES)
def test_python_answers_as_the_cli(built, model_dir, strata_bin, query, flags, tmp_path):
    index, _, folder = built
    cli = subprocess.run(
        [strata_bin, "--index", str(folder), "--model", model_dir, "--json", "search", query, *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no ./strata.toml of the caller's
    )
    assert cli.returncode == 0, cli.stderr
    expected = _comparable(json.loads(cli.stdout))
    got = _comparable(index.search(query, **_python_kwargs(flags)).to_dict())
    assert [(h["chunk_id"], h["score"]) for h in got["hits"]] == [
        (h["chunk_id"], h["score"]) for h in expected["hits"]
    ]
    assert got == expected
