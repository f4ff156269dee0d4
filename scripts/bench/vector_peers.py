#!/usr/bin/env python3
"""strata-vector against FAISS (IndexFlatIP) and hnswlib on the same vectors and queries.

The Rust side (`crates/strata-vector/examples/vector_bench.rs`) generates the vectors from a seed,
writes them as strata matrix files (64-byte header, then little-endian f32) and prints its own
numbers as `RESULT name value` lines. This script runs it, reads the same files with
`numpy.fromfile(offset=64)`, runs the peers with 2 threads, and prints one table with the ratios
strata / peer (> 1: strata is faster).

Setup and run:

    python3 -m venv /tmp/vecbench && /tmp/vecbench/bin/pip install faiss-cpu hnswlib numpy
    cargo build --release -p strata-vector --example vector_bench -j 2
    /tmp/vecbench/bin/python scripts/bench/vector_peers.py

`--skip-rust FILE` reuses the RESULT lines of an earlier run (saved with `--save-rust FILE`).
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HEADER = 64


def read_matrix(path):
    with open(path, "rb") as f:
        head = f.read(HEADER)
    assert head[:8] == b"STRATVEC", path
    dim = int.from_bytes(head[12:16], "little")
    rows = int.from_bytes(head[16:24], "little")
    data = np.fromfile(path, dtype="<f4", offset=HEADER)
    assert data.size == rows * dim, path
    return np.ascontiguousarray(data.reshape(rows, dim))


def rate(min_secs, fn):
    """Passes per second of fn, after one warm-up pass, over at least min_secs (>= 2 passes)."""
    fn()
    start = time.perf_counter()
    n = 0
    while n < 2 or time.perf_counter() - start < min_secs:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def recall(exact, got, k):
    hits = sum(len(set(e[:k]) & set(g[:k])) for e, g in zip(exact, got))
    return hits / (len(exact) * k)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=os.path.join(root, "target/release/examples/vector_bench"))
    p.add_argument("--dir", default="/tmp/vecbench-data")
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--ef-construction", type=int, default=200)
    p.add_argument("--ef", default="100,200,400,800,1600")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--data", default="random", help="random or clustered:<clusters>:<spread>")
    p.add_argument("--min-secs", type=float, default=3.0)
    p.add_argument("--skip-rust", help="read RESULT lines from this file instead of running Rust")
    p.add_argument("--save-rust", help="save the Rust RESULT lines to this file")
    p.add_argument("--no-hnsw", action="store_true")
    a = p.parse_args()

    if a.skip_rust:
        out = open(a.skip_rust).read()
    else:
        cmd = [a.bin, "--dir", a.dir, "--rows", str(a.rows), "--dim", str(a.dim), "--queries",
               str(a.queries), "--k", str(a.k), "--batch", str(a.batch), "--m", str(a.m),
               "--ef-construction", str(a.ef_construction), "--threads", str(a.threads),
               "--min-secs", str(a.min_secs), "--ef", a.ef, "--data", a.data]
        print("$", " ".join(cmd), flush=True)
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        if a.save_rust:
            open(a.save_rust, "w").write(out)
    rust = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            _, name, value = line.split()
            rust[name] = float(value)
    print(out, flush=True)

    import faiss
    import hnswlib

    faiss.omp_set_num_threads(a.threads)
    xb = read_matrix(os.path.join(a.dir, "data.vec"))
    xq = read_matrix(os.path.join(a.dir, "queries.vec"))
    k = a.k
    print(f"faiss {faiss.__version__}, hnswlib {getattr(hnswlib, '__version__', '?')}, numpy {np.__version__}")
    print(f"data {xb.shape}, queries {xq.shape}, threads {a.threads}", flush=True)

    index = faiss.IndexFlatIP(xb.shape[1])
    index.add(xb)
    _, exact = index.search(xq, k)

    def flat_single():
        for i in range(len(xq)):
            index.search(xq[i:i + 1], k)

    def flat_batch():
        for i in range(0, len(xq), a.batch):
            index.search(xq[i:i + a.batch], k)

    rows = []  # (name, strata, peer, unit)
    fs = rate(a.min_secs, flat_single) * len(xq)
    rows.append(("flat, single query (QPS)", rust.get("flat_single_qps"), fs, "faiss IndexFlatIP"))
    fb = rate(a.min_secs, flat_batch) * len(xq)
    rows.append((f"flat, batches of {a.batch} (QPS)", rust.get("flat_batch_qps"), fb, "faiss IndexFlatIP"))
    print(f"faiss flat single {fs:.1f} QPS, batch {fb:.1f} QPS", flush=True)

    hnsw_rows = []
    if not a.no_hnsw:
        h = hnswlib.Index(space="ip", dim=xb.shape[1])
        h.init_index(max_elements=len(xb), M=a.m, ef_construction=a.ef_construction, random_seed=100)
        h.set_num_threads(a.threads)
        t = time.perf_counter()
        h.add_items(xb, np.arange(len(xb)))
        build = time.perf_counter() - t
        print(f"hnswlib build {build:.2f} s", flush=True)
        rows.append(("HNSW build (s, lower is better)", rust.get("hnsw_build_s"), build, "hnswlib"))
        for ef in [int(x) for x in a.ef.split(",")]:
            h.set_ef(max(ef, k))
            res = {}

            def run():
                res["labels"], _ = h.knn_query(xq, k=k, num_threads=a.threads)

            qps = rate(a.min_secs, run) * len(xq)
            r = recall(exact, res["labels"], k)
            hnsw_rows.append((ef, rust.get(f"hnsw_ef{ef}_qps"), rust.get(f"hnsw_ef{ef}_recall"), qps, r))
            print(f"hnswlib ef {ef}: {qps:.1f} QPS, recall@{k} {r:.4f}", flush=True)

    print()
    print("| measure | strata | peer | strata / peer |")
    print("|---|---:|---:|---:|")
    for name, s, peer, who in rows:
        ratio = f"{s / peer:.2f}" if s else "n/a"
        print(f"| {name} | {s} | {peer:.1f} ({who}) | {ratio} |")
    if hnsw_rows:
        print()
        print(f"| ef | strata QPS | strata recall@{k} | hnswlib QPS | hnswlib recall@{k} | QPS ratio |")
        print("|---:|---:|---:|---:|---:|---:|")
        for ef, sq, sr, hq, hr in hnsw_rows:
            ratio = f"{sq / hq:.2f}" if sq else "n/a"
            print(f"| {ef} | {sq} | {sr} | {hq:.1f} | {hr:.4f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
