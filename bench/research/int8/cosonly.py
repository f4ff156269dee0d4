"""Cosine only (no timing): python cosonly.py MODEL NAME [N=1024] [IDX_FILE] [THREADS=1]
writes out/NAME.npy (when IDX_FILE is '-') and prints min/mean/frac<0.995 vs out/strata_fp32.npy."""
import sys, json, numpy as np
sys.path.insert(0, ".")
import embed as E
path, name = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
idxf = sys.argv[4] if len(sys.argv) > 4 else "-"
th = int(sys.argv[5]) if len(sys.argv) > 5 else 1
P = json.load(open("./passages.json"))[:n]
R = np.load("./out/strata_fp32.npy")[:n]
idx = np.arange(n) if idxf == "-" else np.array(json.load(open(idxf)))
X = E.embed(E.session(path, threads=th), E.tokenizer(), [P[i] for i in idx])
c = (X * R[idx]).sum(1)
if idxf == "-": np.save(f"./out/{name}.npy", X)
r = dict(name=name, n=len(idx), min_cos=round(float(c.min()), 5), mean_cos=round(float(c.mean()), 5),
         frac_lt_0995=round(float((c < 0.995).mean()), 4), argmin=int(idx[c.argmin()]))
print(json.dumps(r), flush=True)
with open("./cos.jsonl", "a") as f: f.write(json.dumps(r) + "\n")
