"""Numpy simulation of int8 error per MatMul on real activations (one batch of 32 hard passages):
relative error ||XW - Q(X)Q(W)|| / ||XW|| for weight-only, activation-only (per-tensor u8, as DynamicQuantizeLinear),
both, activation per-row, and SmoothQuant alpha 0.5."""
import sys, json, numpy as np, onnx
from onnx import numpy_helper as nh
sys.path.insert(0, ".")
import embed as E, build_graph as bg
m = onnx.load("./models/mha_fp32.onnx")
W = {i.name: nh.to_array(i) for i in m.graph.initializer}
mms = [n for n in m.graph.node if n.op_type == "MatMul"]
for n in mms: m.graph.output.append(onnx.helper.make_tensor_value_info(n.input[0], onnx.TensorProto.FLOAT, None))
s = E.session(m.SerializeToString())
P = json.load(open("./passages.json"))[:1024]
R = np.load("./out/strata_fp32.npy"); Q = np.load("./out/fused_dqmm.npy")
idx = np.argsort((R * Q).sum(1))[:32] if "hard" in sys.argv else np.arange(32)
tok = E.tokenizer(); es = tok.encode_batch([P[i] for i in idx]); L = max(len(e.ids) for e in es)
ids = np.zeros((32, L), np.int64); mask = np.zeros((32, L), np.int64)
for r, e in enumerate(es): ids[r, :len(e.ids)] = e.ids; mask[r, :len(e.ids)] = 1
outs = s.run([n.input[0] for n in mms], {"input_ids": ids, "attention_mask": mask})
cal = json.load(open("./out/calib_absmax.json"))
def qa(x):  # DynamicQuantizeLinear: u8 asymmetric per tensor, range includes 0
    lo, hi = min(x.min(), 0), max(x.max(), 0); sc = (hi - lo) / 255; zp = np.round(-lo / sc)
    return (np.clip(np.round(x / sc) + zp, 0, 255) - zp) * sc
def qa_row(x):
    lo = np.minimum(x.min(1, keepdims=True), 0); hi = np.maximum(x.max(1, keepdims=True), 0); sc = (hi - lo) / 255; zp = np.round(-lo / sc)
    return (np.clip(np.round(x / sc) + zp, 0, 255) - zp) * sc
def qw(w):
    q, sc = bg.q8_cols(w); return q.astype(np.float32) * sc
kinds = ["qkv", "attn_out", "ffn_up", "ffn_down"]
print("matmul        w-only  a-only  both    a-row+w  smooth.5")
for i, (n, x) in enumerate(zip(mms, outs)):
    x = x[mask.astype(bool)]; w = W[n.input[1]]; y = x @ w
    err = lambda yy: np.linalg.norm(yy - y) / np.linalg.norm(y)
    sm = bg.smooth_scales(np.asarray(cal[n.input[1]], np.float32), w, 0.5)
    r = [err(x @ qw(w)), err(qa(x) @ w), err(qa(x) @ qw(w)), err(qa_row(x) @ qw(w)), err(qa(x / sm) @ qw(w * sm[:, None]))]
    print(f"L{i//4} {kinds[i%4]:9s} " + "  ".join(f"{v:.4f}" for v in r))
