"""Per-op-type and top individual node times (ORT profiler) on 64 passages, 1 thread.  python profile2.py MODEL..."""
import sys, json, os, collections
sys.path.insert(0, ".")
import onnxruntime as ort, embed as E
P = json.load(open("./passages.json"))[:64]
tok = E.tokenizer()
for path in sys.argv[1:]:
    so = ort.SessionOptions(); so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 1; so.inter_op_num_threads = 1; so.enable_profiling = True
    so.profile_file_prefix = "./prof_" + os.path.basename(path)
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    E.embed(s, tok, P)
    f = s.end_profiling(); ev = json.load(open(f)); os.remove(f)
    t = collections.Counter(); prov = collections.Counter()
    for e in ev:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            t[e["args"]["op_name"]] += e["dur"]; prov[(e["args"]["op_name"], e["args"].get("provider"))] += 1
    tot = sum(t.values())
    print(os.path.basename(path), f"total {tot/1e6:.2f}s", ", ".join(f"{k} {v/tot:.1%}" for k, v in t.most_common(14)))
    print("   providers:", sorted({f"{k[0]}@{k[1]}" for k in prov}))
