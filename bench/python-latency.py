"""A search from Python against the same search through the Rust `Engine`, in one process,
on one index, interleaved.

    scripts/python.sh bench            # or: python bench/python-latency.py [--rounds N]

For every query and round, in random order, the same `Engine` answers twice: once timed in
Rust around `Engine::search` alone (`NativeIndex.search_seconds`, the response dropped
unread), once timed in Python around `Index.search` (building the options, the call, the
response's JSON, `json.loads` and the typed classes). Printed per mode: the total and p50 of
each side and the Python/Rust ratio. Exits 1 when the default mode's ratio passes 1.10.

With `--rust-bin target/release/examples/search_timing` (`cargo build --release -p
strata-engine --no-default-features --example search_timing`) the Rust side is also a
separate process, built by cargo alone, with its own `Engine` on the same index: it reads
each query on stdin and answers the seconds `Engine::search` took, interleaved the same way
(a second table).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from python_bench_index import FOLDER, QUERIES, open_index

from strata._options import search_options


class RustProcess:
    """The `search_timing` example on the same index: one query in, its seconds out."""

    def __init__(self, binary, folder, model, mode):
        args = [binary, str(folder), model] + ([mode] if mode else [])
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, query):
        self.process.stdin.write(query + "\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline().split()[0])

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def measure(index, mode, rounds, rng, rust_side=None):
    rust, python = [], []
    for _ in range(rounds):
        for query in rng.sample(QUERIES, len(QUERIES)):
            kwargs = {} if mode is None else {"mode": mode}
            options = json.dumps(search_options(query, **kwargs))
            sides = ["rust", "python"]
            rng.shuffle(sides)
            for side in sides:
                if side == "rust" and rust_side is not None:
                    rust.append(rust_side(query))
                elif side == "rust":
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
    parser.add_argument("--rust-bin", help="the search_timing example, for a second table")
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
    if args.rust_bin:
        print("\nThe Rust side in a separate process (the search_timing example, its own Engine):\n")
        print("| mode | Rust total | Python total | ratio | Rust p50 | Python p50 | Python p50 - Rust p50 |")
        print("|---|---|---|---|---|---|---|")
        for mode in (None, "hybrid", "keyword"):
            rust_side = RustProcess(args.rust_bin, FOLDER, os.environ["STRATA_MODEL_DIR"], mode)
            measure(index, mode, 1, rng, rust_side)
            rust, python = measure(index, mode, args.rounds, rng, rust_side)
            rust_side.close()
            print(
                f"| {mode or 'default (hierarchical)'} | {sum(rust):.2f} s | {sum(python):.2f} s "
                f"| {sum(python) / sum(rust):.3f} | {1000 * statistics.median(rust):.2f} ms "
                f"| {1000 * statistics.median(python):.2f} ms "
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
    return f"{name}, {os.cpu_count()} cores"


if __name__ == "__main__":
    main()
