"""Interleaved speed benchmark against strata's fp32 graph in the same process.
  python bench.py [--threads 1] [--n 256] [--reps 3] [--bs 32] NAME...   (models/NAME.onnx)
Each rep times every model once on passages[:n] (strata's tokenize/sort/pad-per-batch/pool/normalize,
as embed.py), fp32 first; ratio = fp32 time / model time within the rep (wall clock and process CPU time);
prints per-rep lines and the median ratio over reps; appends to bench.jsonl."""
import sys, json, time, argparse, statistics, numpy as np
sys.path.insert(0, ".")
import embed as E
ap = argparse.ArgumentParser(); ap.add_argument("--threads", type=int, default=1); ap.add_argument("--n", type=int, default=256)
ap.add_argument("--reps", type=int, default=3); ap.add_argument("--bs", type=int, default=32); ap.add_argument("names", nargs="+")
a = ap.parse_args()
names = ["strata_fp32"] + [n for n in a.names if n != "strata_fp32"]
P = json.load(open("./passages.json"))[:a.n]
tok = E.tokenizer()
S = {n: E.session(f"./models/{n}.onnx", threads=a.threads) for n in names}
for n in names: E.embed(S[n], tok, P, a.bs)  # warm-up: one full pass (arena growth, page faults)
res = {n: {"wall": [], "cpu": []} for n in names}
for r in range(a.reps):
    for n in names:
        t0, c0 = time.perf_counter(), time.process_time()
        E.embed(S[n], tok, P, a.bs)
        res[n]["wall"].append(time.perf_counter() - t0); res[n]["cpu"].append(time.process_time() - c0)
    f = res["strata_fp32"]
    print(f"rep {r}: " + "  ".join(f"{n} {f['wall'][r]/res[n]['wall'][r]:.2f}x" for n in names[1:]), flush=True)
f = res["strata_fp32"]
for n in names:
    rw = [fw / w for fw, w in zip(f["wall"], res[n]["wall"])]; rc = [fc / c for fc, c in zip(f["cpu"], res[n]["cpu"])]
    out = dict(name=n, threads=a.threads, n=a.n, bs=a.bs, texts_per_s=round(a.n / statistics.median(res[n]["wall"]), 2),
               ratio_wall=round(statistics.median(rw), 3), ratio_cpu=round(statistics.median(rc), 3),
               ratios_wall=[round(x, 3) for x in rw])
    print(json.dumps(out), flush=True)
    with open("./bench.jsonl", "a") as fh: fh.write(json.dumps(out) + "\n")
