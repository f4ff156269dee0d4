#!/usr/bin/env python3
"""document-leg-latency.py BIN INDEX: hybrid search latency on financebench-dev's questions
with the document leg off, then on, interleaved question by question on one index, so that
both see the same machine; prints p50/p95 of `timings.total` and the ratio."""
import json, os, statistics, subprocess, sys, tempfile

QUERIES = "../shared/data/eval/financebench-dev/queries.jsonl"
if not os.path.exists(QUERIES):
    sys.exit(f"skipped: {QUERIES} is absent (the shared data sets are not here)")
binary, index = sys.argv[1:3]
off = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
off.write("[search.weights]\ndocuments = 0.0\n")
off.close()
times = {"off": [], "on": []}
stage = []
for line in open(QUERIES):
    query = json.loads(line)["query"]
    for name, extra in [("off", ["--config", off.name]), ("on", [])]:
        out = subprocess.run([binary, "--index", index, "--json", *extra, "search", query, "--mode", "hybrid",
                              "-k", "10", "--highlights", "0", "--merge", "0"], capture_output=True, text=True, check=True)
        timings = json.loads(out.stdout)["timings"]
        times[name].append(timings["total"])
        if name == "on":
            stage.append(timings.get("documents", 0.0))
for name, v in times.items():
    print(f"{name}: p50 {statistics.median(v):.1f} ms  p95 {sorted(v)[int(0.95 * len(v)) - 1]:.1f} ms")
print(f"on/off p50 {statistics.median(times['on']) / statistics.median(times['off']):.2f}; "
      f"documents stage p50 {statistics.median(stage):.2f} ms")
os.unlink(off.name)
