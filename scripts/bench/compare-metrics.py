#!/usr/bin/env python3
"""Compares the metric blocks of two `strata eval` report.json files.

Usage: scripts/bench/compare-metrics.py BEFORE/report.json AFTER/report.json

Prints every (ingest, strategy, metric) whose value differs, then a count; exits 1 when any
differs or a row is missing on one side. Latencies and ingest costs are not compared: a move
of code must leave the numbers identical, not the time they took.
"""
import json
import sys


def metrics(path):
    report = json.load(open(path))
    return {(row["ingest"], row["strategy"]): row["metrics"] for row in report["rows"]}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = metrics(sys.argv[1]), metrics(sys.argv[2])
    same = differ = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print(f"{key}: only in {'after' if key in after else 'before'}")
            differ += 1
            continue
        for name in sorted(set(before[key]) | set(after[key])):
            a, b = before[key].get(name), after[key].get(name)
            if a == b:
                same += 1
            else:
                differ += 1
                print(f"{key} {name}: {a} -> {b}")
    print(f"{len(before)} rows; {same} metrics identical, {differ} different")
    sys.exit(1 if differ else 0)


main()
