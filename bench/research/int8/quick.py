"""Quick check: session loads on CPU EP, nodes placed, cos on first 64 passages vs out/strata_fp32.npy, rough texts/s on 64."""
import sys, json, time, numpy as np, onnxruntime as ort
sys.path.insert(0, ".")
import embed as E
P = json.load(open("./passages.json"))[:64]
R = np.load("./out/strata_fp32.npy")[:64]
tok = E.tokenizer()
for path in sys.argv[1:]:
    try:
        s = E.session(path)
    except Exception as e:
        print(path, "FAIL", str(e)[:300]); continue
    try:
        E.embed(s, tok, P[:32]); t0 = time.perf_counter(); X = E.embed(s, tok, P); dt = time.perf_counter() - t0
    except Exception as e:
        print(path, "RUNFAIL", str(e)[:300]); continue
    c = (X * R).sum(1)
    print(f"{path}: {64/dt:.1f} t/s  min cos {c.min():.5f} mean {c.mean():.5f}", flush=True)
