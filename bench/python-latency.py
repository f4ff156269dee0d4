"""A search from Python against the same search through the Rust `Engine`, in one process,
on one index, interleaved.

    scripts/python.sh bench            # or: python bench/python-latency.py [--rounds N]

For every query and round, in random order, the same `Engine` answers twice: once timed in
Rust around `Engine::search` alone (`NativeIndex.search_seconds`, the response dropped
unread), once timed in Python around `Index.search` (building the options, the call, the
response's JSON, `json.loads` and the typed classes). Printed per mode: the total and p50 of
each side and the Python/Rust ratio. Exits 1 when the default mode's ratio passes 1.10.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import subprocess
import sys
import time

from python_bench_index import QUERIES, open_index

from strata._options import search_options


def measure(index, mode, rounds, rng):
    rust, python = [], []
    for _ in range(rounds):
        for query in rng.sample(QUERIES, len(QUERIES)):
            kwargs = {} if mode is None else {"mode": mode}
            options = json.dumps(search_options(query, **kwargs))
            sides = ["rust", "python"]
            rng.shuffle(sides)
            for side in sides:
                if side == "rust":
                    rust.append(index._native.search_seconds(options))
                else:
                    started = time.perf_counter()
                    index.search(query, **kwargs)
                    python.append(time.perf_counter() - started)
    return rust, python


def p(values, q):
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    index = open_index()
    rng = random.Random(args.seed)
    docs = index.documents()
    print(f"index: {len(docs)} documents, {sum(d.chunks for d in docs)} chunks; model {index.dense_model}")
    print(f"machine: {platform.processor() or platform.machine()}, {cpu()}, Python {platform.python_version()}")
    print(f"{len(QUERIES)} queries x {args.rounds} rounds per mode, each timed on both sides, interleaved\n")
    print("| mode | Rust total | Python total | ratio | Rust p50 | Python p50 | Python p50 - Rust p50 |")
    print("|---|---|---|---|---|---|---|")
    verdict = None
    for mode in (None, "hybrid", "keyword"):
        measure(index, mode, 1, rng)  # warm-up: every query once on both sides
        rust, python = measure(index, mode, args.rounds, rng)
        ratio = sum(python) / sum(rust)
        if mode is None:
            verdict = ratio
        print(
            f"| {mode or 'default (hierarchical)'} | {sum(rust):.2f} s | {sum(python):.2f} s | {ratio:.3f} "
            f"| {1000 * statistics.median(rust):.2f} ms | {1000 * statistics.median(python):.2f} ms "
            f"| {1000 * (statistics.median(python) - statistics.median(rust)):.2f} ms |"
        )
    print(f"\ndefault mode: Python/Rust = {verdict:.3f} (limit 1.10)")
    sys.exit(0 if verdict <= 1.10 else 1)


def cpu():
    try:
        model = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        name = next(line.split(":", 1)[1].strip() for line in model.splitlines() if line.startswith("Model name"))
    except (OSError, StopIteration):
        name = "unknown CPU"
    import os

    return f"{name}, {os.cpu_count()} cores"


if __name__ == "__main__":
    main()
