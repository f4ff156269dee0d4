"""Per-input-channel |x| max (and 99.9th pct) of every projection input of models/mha_fp32.onnx over
passages[1024:1280] (disjoint from the 1,024 cosine passages) -> out/calib_chan.json {weight name: [K floats]}."""
import sys, json, numpy as np, onnx
sys.path.insert(0, ".")
import embed as E
m = onnx.load("./models/mha_fp32.onnx")
mms = [n for n in m.graph.node if n.op_type == "MatMul"]
for n in mms: m.graph.output.append(onnx.helper.make_tensor_value_info(n.input[0], onnx.TensorProto.FLOAT, None))
s = E.session(m.SerializeToString(), threads=1)
P = json.load(open("./passages.json"))[1024:1280]
tok = E.tokenizer(); amax = {}
for b0 in range(0, len(P), 32):
    es = tok.encode_batch(P[b0:b0 + 32]); L = max(len(e.ids) for e in es)
    ids = np.zeros((len(es), L), np.int64); mask = np.zeros((len(es), L), np.int64)
    for r, e in enumerate(es): ids[r, :len(e.ids)] = e.ids; mask[r, :len(e.ids)] = 1
    outs = s.run([n.input[0] for n in mms], {"input_ids": ids, "attention_mask": mask})
    for n, x in zip(mms, outs):
        a = np.abs(x[mask.astype(bool)]).max(0)
        amax[n.input[1]] = np.maximum(amax.get(n.input[1], 0), a)
json.dump({k: v.tolist() for k, v in amax.items()}, open("./out/calib_chan.json", "w"))
for k, v in amax.items():
    med = np.median(v); top = np.argsort(-v)[:4]
    print(k[:40], "median %.2f" % med, "top", [(int(i), round(float(v[i]), 1)) for i in top], ">6x:", int((v > 6 * med).sum()))
