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

Flat search is measured in `--rounds` interleaved rounds (Rust, then FAISS) and each side keeps
its best, because the machine is shared; HNSW (build + ef sweep) runs once per side.
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
    p.add_argument("--rounds", type=int, default=3, help="interleaved flat rounds (best kept)")
    p.add_argument("--no-hnsw", action="store_true")
    a = p.parse_args()

    def run_rust(ef, extra=()):
        cmd = [a.bin, "--dir", a.dir, "--rows", str(a.rows), "--dim", str(a.dim), "--queries",
               str(a.queries), "--k", str(a.k), "--batch", str(a.batch), "--m", str(a.m),
               "--ef-construction", str(a.ef_construction), "--threads", str(a.threads),
               "--min-secs", str(a.min_secs), "--ef", ef, "--data", a.data, *extra]
        print("$", " ".join(cmd), flush=True)
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        print(out, flush=True)
        res = {}
        for line in out.splitlines():
            if line.startswith("RESULT "):
                _, name, value = line.split()
                res[name] = float(value)
        return res, out

    import faiss
    import hnswlib

    print(f"faiss {faiss.__version__}, hnswlib 0.8.0 (pip), numpy {np.__version__}")
    print(f"faiss default distance_compute_blas_threshold = {faiss.cvar.distance_compute_blas_threshold}")
    k = a.k
    best = {}

    def keep(name, value):
        best[name] = max(best.get(name, 0.0), value)

    # Flat: interleave the two sides `--rounds` times and keep each side's best, because the
    # machine is shared and its load changes from minute to minute.
    index = None
    for rnd in range(a.rounds):
        rust, _ = run_rust("none")
        for name in ("flat_single_qps", "flat_single_1t_qps", "flat_batch_qps"):
            keep("strata_" + name, rust[name])
        if index is None:
            xb = read_matrix(os.path.join(a.dir, "data.vec"))
            xq = read_matrix(os.path.join(a.dir, "queries.vec"))
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

        # FAISS at its best here: one OpenMP thread for single queries (two threads only add
        # barrier overhead for nq = 1 on a loaded machine), and the BLAS path forced for batches
        # (the default threshold of this version keeps 100 queries on the per-query SIMD path).
        for nt in (1, a.threads):
            faiss.omp_set_num_threads(nt)
            fs = rate(a.min_secs, flat_single) * len(xq)
            keep(f"faiss_single_{nt}t", fs)
        faiss.omp_set_num_threads(a.threads)
        default_threshold = faiss.cvar.distance_compute_blas_threshold
        fb_default = rate(a.min_secs, flat_batch) * len(xq)
        keep("faiss_batch_default", fb_default)
        faiss.cvar.distance_compute_blas_threshold = 20
        fb = rate(a.min_secs, flat_batch) * len(xq)
        keep("faiss_batch_blas", fb)
        faiss.cvar.distance_compute_blas_threshold = default_threshold
        print(f"round {rnd}: faiss single 1t/{a.threads}t {best['faiss_single_1t']:.1f}/"
              f"{best[f'faiss_single_{a.threads}t']:.1f}, batch default {fb_default:.1f} blas {fb:.1f}",
              flush=True)

    faiss_single = max(best["faiss_single_1t"], best[f"faiss_single_{a.threads}t"])
    faiss_batch = max(best["faiss_batch_default"], best["faiss_batch_blas"])
    rows = [
        ("flat, single query (QPS)", best["strata_flat_single_qps"], faiss_single, "faiss IndexFlatIP, best of 1/2 threads"),
        ("flat, single query, strata on 1 thread (QPS)", best["strata_flat_single_1t_qps"], best["faiss_single_1t"],
         "faiss IndexFlatIP, 1 thread"),
        (f"flat, batches of {a.batch} (QPS)", best["strata_flat_batch_qps"], faiss_batch, "faiss IndexFlatIP, BLAS"),
    ]
    for name, value in sorted(best.items()):
        print(f"best {name} {value:.1f}")

    hnsw_rows = []
    if not a.no_hnsw:
        # Both graphs are built once; the ef sweeps then alternate `--rounds` times (strata loads its
        # saved graph) and each side keeps its best QPS per ef. Recall does not change between rounds.
        graph = os.path.join(a.dir, "graph.hnsw")
        if os.path.exists(graph):
            os.remove(graph)
        h = hnswlib.Index(space="ip", dim=xb.shape[1])
        h.init_index(max_elements=len(xb), M=a.m, ef_construction=a.ef_construction, random_seed=100)
        h.set_num_threads(a.threads)
        t = time.perf_counter()
        h.add_items(xb, np.arange(len(xb)))
        build = time.perf_counter() - t
        print(f"hnswlib build {build:.2f} s", flush=True)
        efs = [int(x) for x in a.ef.split(",")]
        strata_best, strata_recall, peer_best, peer_recall = {}, {}, {}, {}
        strata_build = None
        for rnd in range(a.rounds):
            rust, _ = run_rust(a.ef, ["--graph", graph, "--hnsw-only", "1"])
            strata_build = strata_build or rust.get("hnsw_build_s")
            for ef in efs:
                strata_best[ef] = max(strata_best.get(ef, 0.0), rust[f"hnsw_ef{ef}_qps"])
                strata_recall[ef] = rust[f"hnsw_ef{ef}_recall"]
            for ef in efs:
                h.set_ef(max(ef, k))
                res = {}

                def run():
                    res["labels"], _ = h.knn_query(xq, k=k, num_threads=a.threads)

                qps = rate(a.min_secs, run) * len(xq)
                peer_best[ef] = max(peer_best.get(ef, 0.0), qps)
                peer_recall[ef] = recall(exact, res["labels"], k)
                print(f"round {rnd} hnswlib ef {ef}: {qps:.1f} QPS, recall@{k} {peer_recall[ef]:.4f}", flush=True)
        rows.append(("HNSW build (s, lower is better)", strata_build, build, "hnswlib"))
        for ef in efs:
            hnsw_rows.append((ef, strata_best[ef], strata_recall[ef], peer_best[ef], peer_recall[ef]))

    print()
    print("| measure | strata | peer | strata / peer |")
    print("|---|---:|---:|---:|")
    for name, s, peer, who in rows:
        ratio = f"{s / peer:.2f}" if s else "n/a"
        print(f"| {name} | {s:.1f} | {peer:.1f} ({who}) | {ratio} |")
    if hnsw_rows:
        print()
        print(f"| ef | strata QPS | strata recall@{k} | hnswlib QPS | hnswlib recall@{k} | QPS ratio |")
        print("|---:|---:|---:|---:|---:|---:|")
        for ef, sq, sr, hq, hr in hnsw_rows:
            ratio = f"{sq / hq:.2f}" if sq else "n/a"
            print(f"| {ef} | {sq:.1f} | {sr:.4f} | {hq:.1f} | {hr:.4f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
