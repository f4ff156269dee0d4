#!/usr/bin/env python3
"""finance-search.py BIN INDEX MODE [--gold-doc] [--config F] [-v]

financebench-dev page recall@10 and MRR@10 from `strata search --json` over an index already
built with `strata --index INDEX ingest ../shared/data/eval/financebench-dev/` (a dev loop
that needs no re-ingest; the numbers to report come from `strata eval`). --gold-doc restricts
each question to its gold filing (`--doc`). Run from the repository root."""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

QUERIES = "../shared/data/eval/financebench-dev/queries.jsonl"
if not os.path.exists(QUERIES):
    sys.exit(f"skipped: {QUERIES} is absent (the shared data sets are not here)")
binary, index, mode = sys.argv[1:4]
gold_doc = "--gold-doc" in sys.argv
extra = ["--config", sys.argv[sys.argv.index("--config") + 1]] if "--config" in sys.argv else []
qs = [json.loads(l) for l in open(QUERIES)]


def run(q):
    args = [binary, "--index", index, "--json", *extra, "search", q["query"], "--mode", mode,
            "-k", "10", "--merge", "0", "--highlights", "0"]
    if gold_doc:
        args += ["--doc", q["gold"][0]["doc"]]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


with ThreadPoolExecutor(2) as ex:
    results = list(ex.map(run, qs))
recall = mrr = first_in_gold = 0.0
rows = []
for q, r in zip(qs, results):
    gold = {(g["doc"], g["page"]) for g in q["gold"]}
    hits = r["hits"][:10]
    found, first = set(), None
    for i, h in enumerate(hits):
        name = os.path.basename(h["source_path"])
        covered = {(d, p) for (d, p) in gold if d == name and h["pages"]["first"] <= p <= h["pages"]["last"]}
        if covered and first is None:
            first = i + 1
        found |= covered
    recall += len(found) / len(gold)
    mrr += 1 / first if first else 0
    top = os.path.basename(hits[0]["source_path"]) if hits else ""
    first_in_gold += top == q["gold"][0]["doc"]
    rows.append((q["id"], len(found) / len(gold), first, hits[0].get("document_rank") if hits else None, top))
n = len(qs)
print(f"{mode}{' gold-doc' if gold_doc else ''}: page recall@10 {recall/n:.3f}  MRR@10 {mrr/n:.3f}  "
      f"top hit in the gold filing {first_in_gold/n:.3f}")
if "-v" in sys.argv:
    for row in rows:
        print(*row, sep="\t")
