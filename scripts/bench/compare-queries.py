#!/usr/bin/env python3
"""Which questions a change moved: two rows of `strata eval`'s queries.jsonl, query by query.

Usage:
  compare-queries.py QUERIES.jsonl STRATEGY_A STRATEGY_B [METRIC ...]
  compare-queries.py A/queries.jsonl:STRATEGY B/queries.jsonl:STRATEGY [METRIC ...]

The first form compares two strategies of one run, the second one strategy across two runs
(`FILE:STRATEGY` each). METRIC defaults to those of recall@10, span_recall@10, page_recall@10
and mrr@10 that the rows hold (the suite's recall is the set's own one of them); for each it
prints how many questions rose, fell and stayed, the mean change, and the questions that moved
most each way. A gain carried by a handful of questions reads differently from a broad one.
"""
import json
import sys

DEFAULT_METRICS = ["recall@10", "span_recall@10", "page_recall@10", "mrr@10"]


def rows(path, strategy):
    """The metrics of each question of `strategy` (the first ingest's, when the run had
    several)."""
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["strategy"] == strategy:
                out.setdefault(r["id"], r["metrics"])
    if not out:
        sys.exit(f"{path}: no row for strategy {strategy!r}")
    return out


def main(argv):
    if len(argv) < 2 or (".jsonl:" not in argv[0] and len(argv) < 3):
        sys.exit(__doc__)
    if ".jsonl:" in argv[0]:
        (pa, sa), (pb, sb) = (a.rsplit(":", 1) for a in argv[:2])
        metrics = argv[2:]
    else:
        pa = pb = argv[0]
        sa, sb = argv[1], argv[2]
        metrics = argv[3:]
    a, b = rows(pa, sa), rows(pb, sb)
    common = [q for q in a if q in b]
    if not metrics:
        first = a[common[0]]
        metrics = [m for m in DEFAULT_METRICS if m in first]
    print(f"{sa} ({pa}) -> {sb} ({pb}): {len(common)} questions in both")
    for m in metrics:
        delta = {q: b[q].get(m, 0.0) - a[q].get(m, 0.0) for q in common}
        up = sorted((d, q) for q, d in delta.items() if d > 1e-9)
        down = sorted((d, q) for q, d in delta.items() if d < -1e-9)
        mean = sum(delta.values()) / max(len(delta), 1)
        print(f"  {m}: {len(up)} rose, {len(down)} fell, {len(common) - len(up) - len(down)} same; "
              f"mean {mean:+.4f}")
        for d, q in list(reversed(up))[:3] + down[:3]:
            print(f"    {d:+.3f}  {q}")


if __name__ == "__main__":
    main(sys.argv[1:])
