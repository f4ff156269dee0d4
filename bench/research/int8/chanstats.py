"""Per-channel mean/std/absmax of each projection input (mha_fp32, passages[1024:1280]) -> out/calib_stats.npz; prints outlier channels."""
import sys, json, numpy as np, onnx
sys.path.insert(0, ".")
import embed as E
m = onnx.load("./models/mha_fp32.onnx")
mms = [n for n in m.graph.node if n.op_type == "MatMul"]
for n in mms: m.graph.output.append(onnx.helper.make_tensor_value_info(n.input[0], onnx.TensorProto.FLOAT, None))
s = E.session(m.SerializeToString(), threads=1)
P = json.load(open("./passages.json"))[1024:1280]
tok = E.tokenizer(); acc = {}
for b0 in range(0, len(P), 32):
    es = tok.encode_batch(P[b0:b0 + 32]); L = max(len(e.ids) for e in es)
    ids = np.zeros((len(es), L), np.int64); mask = np.zeros((len(es), L), np.int64)
    for r, e in enumerate(es): ids[r, :len(e.ids)] = e.ids; mask[r, :len(e.ids)] = 1
    outs = s.run([n.input[0] for n in mms], {"input_ids": ids, "attention_mask": mask})
    for n, x in zip(mms, outs):
        x = x[mask.astype(bool)].astype(np.float64); k = n.input[1]
        a = acc.setdefault(k, [0, 0, 0, 0]); a[0] += len(x); a[1] = a[1] + x.sum(0); a[2] = a[2] + (x * x).sum(0); a[3] = np.maximum(a[3], np.abs(x).max(0))
out = {}
for k, (n, s1, s2, am) in acc.items():
    mu = s1 / n; sd = np.sqrt(np.maximum(s2 / n - mu * mu, 0))
    out[k + ".mean"], out[k + ".std"], out[k + ".amax"] = mu, sd, am
    dev = np.maximum(np.abs(am - 0), 0)
    top = np.argsort(-am)[:4]; amc = np.maximum(np.abs(am), 0)
    print(k[8:36], " ".join(f"c{i}: mean {mu[i]:+.1f} sd {sd[i]:.2f} amax {am[i]:.1f} |" for i in top), f"median amax {np.median(am):.2f} median sd {np.median(sd):.2f}")
np.savez("./out/calib_stats.npz", **out)
