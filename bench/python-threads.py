"""Throughput of searches from 1, 2 and 4 Python threads sharing one `strata.Index`.

    scripts/python.sh bench            # or: python bench/python-threads.py [--rounds N]

Each trial runs the same batch of searches (every query `--repeat` times, in a fixed
shuffled order) from N threads of a pool, and counts searches a second. Trials of 1, 2 and 4
threads alternate, `--rounds` times, so a change in the machine's load falls on all of them;
the median of each is printed. Exits 1 when 4 threads reach less than 1.6 times one thread.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from python_bench_index import QUERIES, open_index


def trial(index, threads, batch, mode):
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in pool.map(lambda q: index.search(q, mode=mode), batch):
            pass
    return len(batch) / (time.perf_counter() - started)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=4)
    args = parser.parse_args()
    index = open_index()
    batch = QUERIES * args.repeat
    random.Random(7).shuffle(batch)
    print(f"{len(batch)} searches a trial, {args.rounds} trials per thread count, {os.cpu_count()} cores\n")
    print("| mode | 1 thread | 2 threads | 4 threads | 4 threads / 1 |")
    print("|---|---|---|---|---|")
    verdict = None
    for mode in ("hierarchical", "keyword"):
        trial(index, 4, batch, mode)  # warm-up
        rates = {1: [], 2: [], 4: []}
        for _ in range(args.rounds):
            for threads in rates:
                rates[threads].append(trial(index, threads, batch, mode))
        median = {t: statistics.median(r) for t, r in rates.items()}
        speedup = median[4] / median[1]
        if mode == "hierarchical":
            verdict = speedup
        print(
            f"| {mode} | {median[1]:.1f}/s | {median[2]:.1f}/s | {median[4]:.1f}/s | {speedup:.2f}x |"
        )
    print(f"\nhierarchical: 4 threads = {verdict:.2f}x one thread (at least 1.6)")
    sys.exit(0 if verdict >= 1.6 else 1)


if __name__ == "__main__":
    main()
