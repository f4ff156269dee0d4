#!/usr/bin/env python3
"""Runs the same searches with two strata binaries over one index and compares the answers.

Usage: scripts/bench/compare-search.py BIN_A BIN_B INDEX QUERIES.jsonl|questions.csv [N]

For the first N queries (default 40) and every mode (keyword, dense, hybrid,
hierarchical), each binary answers `strata search --json -k 20`; the hits (chunk id, fused
score, every leg's rank and score), definitions and context text must be equal. A move of
code must answer alike on the same index; `strata eval` alone cannot show it when two
ingests of the same data lay out tantivy's segments differently.
"""
import csv
import json
import subprocess
import sys

MODES = ["keyword", "dense", "hybrid", "hierarchical"]


def queries(path, n):
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            return [row["question"] for row in csv.DictReader(f)][:n]
    with open(path) as f:
        return [json.loads(line)["query"] for line in f if line.strip()][:n]


def answer(binary, index, query, mode):
    out = subprocess.run(
        [binary, "--index", index, "--json", "search", query, "--mode", mode, "-k", "20"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    r = json.loads(out.stdout)
    hits = [(h["chunk_id"], h["score"], sorted((k, v["rank"], v["score"]) for k, v in h["legs"].items())) for h in r["hits"]]
    context = (r.get("context") or {}).get("text")
    return {"hits": hits, "definitions": r.get("definitions", []), "context": context}


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    a, b, index, path = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    same = differ = 0
    for q in queries(path, n):
        for mode in MODES:
            x, y = answer(a, index, q, mode), answer(b, index, q, mode)
            if x == y:
                same += 1
            else:
                differ += 1
                print(f"differs: {mode} {q!r}")
    print(f"{index}: {same} answers identical, {differ} different")
    sys.exit(1 if differ else 0)


main()
