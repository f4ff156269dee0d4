#!/usr/bin/env python3
"""mode-latency.py BIN INDEX [MODE...]: warm search latency of each mode (hybrid and
hierarchical by default) on financebench-dev's 52 questions, through one `strata serve` (so
the catalog and the heading terms are read once, as a server reads them), the modes
interleaved question by question so that all see the same machine. Two rounds; the first is
a warm-up. Prints p50/p95 of `timings.total` and of the hierarchy stage, and each mode's p50
over the first's. Run from the repository root."""
import json, os, socket, statistics, subprocess, sys, time, urllib.request

QUERIES = "../shared/data/eval/financebench-dev/queries.jsonl"
if not os.path.exists(QUERIES):
    sys.exit(f"skipped: {QUERIES} is absent (the shared data sets are not here)")
binary, index = sys.argv[1:3]
modes = sys.argv[3:] or ["hybrid", "hierarchical"]
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen([binary, "--index", index, "serve", "--addr", f"127.0.0.1:{port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    url = f"http://127.0.0.1:{port}/v1/search"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/documents", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    queries = [json.loads(line)["query"] for line in open(QUERIES)]
    times = {m: [] for m in modes}
    stage = {m: [] for m in modes}
    for round in range(2):
        for q in queries:
            for m in modes:
                body = json.dumps({"query": q, "mode": m, "k": 10, "merge": 0, "highlights": 0}).encode()
                req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
                t = json.load(urllib.request.urlopen(req, timeout=60))["timings"]
                if round == 1:
                    times[m].append(t["total"])
                    stage[m].append(t.get("hierarchy") or 0.0)
    p = lambda v, q: sorted(v)[max(0, int(q * len(v)) - 1)]
    base = statistics.median(times[modes[0]])
    for m in modes:
        v = times[m]
        print(f"{m}: p50 {statistics.median(v):.1f} ms  p95 {p(v, 0.95):.1f} ms  "
              f"hierarchy stage p50 {statistics.median(stage[m]):.2f} ms  ×{statistics.median(v) / base:.2f}")
finally:
    server.terminate()
    server.wait()
