"""Build ONNX graphs of all-MiniLM-L6-v2 from model.safetensors with numpy + onnx.

  strata  : node-for-node replica of strata-embed/src/local/graph.rs (Head::Encoder), opset 20.
  fused   : the same weights written directly with ORT contrib ops (com.microsoft):
            Attention (fused QKV [H,3H], mask_index = attention_mask int32), SkipLayerNormalization,
            BiasGelu; i.e. what onnxruntime.transformers.optimizer would produce, but built by hand
            (so a Rust builder can emit the same nodes).
Usage: python build_graph.py OUTDIR
"""
import json, sys, os
import numpy as np
import onnx
from onnx import helper as H, TensorProto as T, numpy_helper as NH
from safetensors.numpy import load_file

MODEL = os.path.expanduser("~/.cache/strata/models/all-MiniLM-L6-v2")


def load():
    cfg = json.load(open(f"{MODEL}/config.json"))
    w = load_file(f"{MODEL}/model.safetensors")
    pre = next(p for p in ["", "bert.", "model."] if f"{p}embeddings.word_embeddings.weight" in w)
    g = lambda n: w[pre + n].astype(np.float32)
    return cfg, g


class B:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def init(self, name, arr):
        self.inits.append(NH.from_array(np.asarray(arr), name))
        return name

    def node(self, op, inputs, nout=1, domain="", **attrs):
        self.n += 1
        base = f"{op.lower()}_{self.n}"
        outs = [base] if nout == 1 else [f"{base}_{i}" for i in range(nout)]
        self.nodes.append(H.make_node(op, inputs, outs, name=base, domain=domain or None, **attrs))
        return outs[0] if nout == 1 else outs


def common_io(h):
    ins = [H.make_tensor_value_info("input_ids", T.INT64, ["batch", "sequence"]),
           H.make_tensor_value_info("attention_mask", T.INT64, ["batch", "sequence"])]
    out = [H.make_tensor_value_info("last_hidden_state", T.FLOAT, ["batch", "sequence", h])]
    return ins, out


def qkv_fused(g, p, h, scale):
    ws, bs = [], []
    for part, f in [("query", scale), ("key", 1.0), ("value", 1.0)]:
        ws.append(g(f"{p}.attention.self.{part}.weight").T * f)   # [in, out]
        bs.append(g(f"{p}.attention.self.{part}.bias") * f)
    return np.concatenate(ws, axis=1).astype(np.float32), np.concatenate(bs).astype(np.float32)


def build_strata(cfg, g):
    h, heads, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    hd, eps = h // heads, float(cfg.get("layer_norm_eps", 1e-12))
    b = B()
    word = b.init("word_embeddings", g("embeddings.word_embeddings.weight"))
    pos = g("embeddings.position_embeddings.weight")
    types = g("embeddings.token_type_embeddings.weight")
    gathered = b.node("Gather", [word, "input_ids"])
    shape = b.node("Shape", ["input_ids"])
    one, two, zero = b.init("const_1", np.array([1], np.int64)), b.init("const_2", np.array([2], np.int64)), b.init("const_0", np.array([0], np.int64))
    seq = b.node("Slice", [shape, one, two])
    pt = b.init("position_type_embeddings", (pos + types[0][None, :]).astype(np.float32))
    positions = b.node("Slice", [pt, zero, seq, zero])
    emb = b.node("Add", [gathered, positions])

    def ln(x, prefix):
        ga = b.init(f"{prefix}.weight", g(f"{prefix}.weight"))
        be = b.init(f"{prefix}.bias", g(f"{prefix}.bias"))
        return b.node("LayerNormalization", [x, ga, be], axis=-1, epsilon=eps)

    x = ln(emb, "embeddings.LayerNorm")
    mask = b.node("Cast", ["attention_mask"], to=T.FLOAT)
    onef, neg = b.init("const_1f", np.array(1.0, np.float32)), b.init("const_neg", np.array(-10000.0, np.float32))
    bias = b.node("Mul", [b.node("Sub", [onef, mask]), neg])
    bias = b.node("Unsqueeze", [bias, b.init("const_axes_1_2", np.array([1, 2], np.int64))])
    split_sizes = b.init("const_qkv_split", np.array([h, h, h], np.int64))
    heads_shape = b.init("const_heads_shape", np.array([0, 0, heads, hd], np.int64))
    merged = b.init("const_merged_shape", np.array([0, 0, h], np.int64))
    scale = 1.0 / np.sqrt(np.float32(hd))
    for l in range(L):
        p = f"encoder.layer.{l}"
        qw, qb = qkv_fused(g, p, h, scale)
        qkv = b.node("Add", [b.node("MatMul", [x, b.init(f"{p}.qkv.weight", qw)]), b.init(f"{p}.qkv.bias", qb)])
        parts = b.node("Split", [qkv, split_sizes], nout=3, axis=-1)
        sp = [b.node("Reshape", [pp, heads_shape]) for pp in parts]
        q = b.node("Transpose", [sp[0]], perm=[0, 2, 1, 3])
        k = b.node("Transpose", [sp[1]], perm=[0, 2, 3, 1])
        v = b.node("Transpose", [sp[2]], perm=[0, 2, 1, 3])
        s = b.node("Add", [b.node("MatMul", [q, k]), bias])
        pr = b.node("Softmax", [s], axis=-1)
        c = b.node("Transpose", [b.node("MatMul", [pr, v])], perm=[0, 2, 1, 3])
        c = b.node("Reshape", [c, merged])
        ow = b.init(f"{p}.attention.output.dense.weight", g(f"{p}.attention.output.dense.weight").T.copy())
        ob = b.init(f"{p}.attention.output.dense.bias", g(f"{p}.attention.output.dense.bias"))
        att = b.node("Add", [b.node("MatMul", [c, ow]), ob])
        ao = ln(b.node("Add", [att, x]), f"{p}.attention.output.LayerNorm")
        uw = b.init(f"{p}.intermediate.dense.weight", g(f"{p}.intermediate.dense.weight").T.copy())
        ub = b.init(f"{p}.intermediate.dense.bias", g(f"{p}.intermediate.dense.bias"))
        up = b.node("Add", [b.node("MatMul", [ao, uw]), ub])
        act = b.node("Gelu", [up], approximate="none")
        dw = b.init(f"{p}.output.dense.weight", g(f"{p}.output.dense.weight").T.copy())
        db = b.init(f"{p}.output.dense.bias", g(f"{p}.output.dense.bias"))
        down = b.node("Add", [b.node("MatMul", [act, dw]), db])
        x = ln(b.node("Add", [down, ao]), f"{p}.output.LayerNorm")
    b.nodes.append(H.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    ins, out = common_io(h)
    graph = H.make_graph(b.nodes, "strata_encoder", ins, out, b.inits)
    return H.make_model(graph, opset_imports=[H.make_opsetid("", 20)], ir_version=10)


def q8_cols(w, rr=False):
    """Symmetric per-output-column int8 of a [in, out] matrix: scale = max|w[:, j]| / 127 (63 with reduce_range)."""
    qmax = 63.0 if rr else 127.0
    scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / qmax
    q = np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8)
    return q, scale.astype(np.float32)


def smooth_scales(a, w, alpha):
    """SmoothQuant: per input channel s = amax^alpha / wmax^(1-alpha); x/s and diag(s)W give the same product."""
    wmax = np.maximum(np.abs(w).max(axis=1), 1e-5)
    s = np.power(np.maximum(a, 1e-5), alpha) / np.power(wmax, 1 - alpha)
    return np.clip(s, 1e-3, 1e3).astype(np.float32)


def build_fused(cfg, g, int8=False, rr=False, keep_fp32=(), mha=False, int8_qkv=True, smooth=None, alpha=0.5, smooth_only=None):
    """smooth: {weight name: per-input-channel |x| max from calibration}; smoothing applied (explicit Mul by 1/s)
    to int8 matmuls whose name contains one of smooth_only (all when None)."""
    """keep_fp32: names (substrings) of weights to leave fp32 when int8, e.g. 'output.dense' or 'layer.5.'."""
    """Contrib-op graph: Gather+Add+LayerNorm embeddings, then per layer
    Attention -> MatMul+bias fused into SkipLayerNormalization -> MatMul -> BiasGelu -> MatMul -> SkipLayerNormalization."""
    h, heads, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    hd, eps = h // heads, float(cfg.get("layer_norm_eps", 1e-12))
    MS = "com.microsoft"
    b = B()

    def mm(x, name, w):
        """MatMul by constant w [in, out]: fp32 MatMul, or DynamicQuantizeMatMul with int8 per-column weights."""
        if not int8 or any(k in name for k in keep_fp32):
            return b.node("MatMul", [x, b.init(name, w)])
        if smooth is not None and name in smooth and (smooth_only is None or any(k in name for k in smooth_only)):
            sm = smooth_scales(np.asarray(smooth[name], np.float32), w, alpha)
            x = b.node("Mul", [x, b.init(name + ".smooth_inv", (1.0 / sm).astype(np.float32))])
            w = w * sm[:, None]
        q, s = q8_cols(w, rr)
        return b.node("DynamicQuantizeMatMul", [x, b.init(name + ".q", q), b.init(name + ".scale", s)], domain=MS)

    word = b.init("word_embeddings", g("embeddings.word_embeddings.weight"))
    pos = g("embeddings.position_embeddings.weight")
    types = g("embeddings.token_type_embeddings.weight")
    gathered = b.node("Gather", [word, "input_ids"])
    shape = b.node("Shape", ["input_ids"])
    one, two, zero = b.init("const_1", np.array([1], np.int64)), b.init("const_2", np.array([2], np.int64)), b.init("const_0", np.array([0], np.int64))
    seq = b.node("Slice", [shape, one, two])
    pt = b.init("position_type_embeddings", (pos + types[0][None, :]).astype(np.float32))
    positions = b.node("Slice", [pt, zero, seq, zero])
    emb = b.node("Add", [gathered, positions])
    x = b.node("LayerNormalization", [emb, b.init("emb_ln.w", g("embeddings.LayerNorm.weight")), b.init("emb_ln.b", g("embeddings.LayerNorm.bias"))], axis=-1, epsilon=eps)
    # mask_index: raw 2-D mask [batch, seq] as int32 (Attention accepts 2D key padding mask)
    mask = b.node("Cast", ["attention_mask"], to=T.INT32)
    scale = 1.0 / np.sqrt(np.float32(hd))
    for l in range(L):
        p = f"encoder.layer.{l}"
        qw, qb = qkv_fused(g, p, h, 1.0)  # Attention applies 1/sqrt(d) itself (scale attr default)
        if not mha:
            att = b.node("Attention", [x, b.init(f"{p}.qkv.weight", qw), b.init(f"{p}.qkv.bias", qb), mask], domain=MS, num_heads=heads)
        else:
            # QKV projection as its own (int8) matmul, bias added by MultiHeadAttention, mask as key_padding_mask.
            qkv = mm(x, f"{p}.qkv.weight", qw) if int8_qkv else b.node("MatMul", [x, b.init(f"{p}.qkv.weight", qw)])
            q, k, v = b.node("Split", [qkv, b.init(f"{p}.split", np.array([h, h, h], np.int64))], nout=3, axis=-1)
            att = b.node("MultiHeadAttention", [q, k, v, b.init(f"{p}.qkv.bias", qb), mask], domain=MS, num_heads=heads)
        ob = b.init(f"{p}.attention.output.dense.bias", g(f"{p}.attention.output.dense.bias"))
        o = mm(att, f"{p}.attention.output.dense.weight", g(f"{p}.attention.output.dense.weight").T.copy())
        ao = b.node("SkipLayerNormalization", [o, x, b.init(f"{p}.ln1.w", g(f"{p}.attention.output.LayerNorm.weight")),
                                               b.init(f"{p}.ln1.b", g(f"{p}.attention.output.LayerNorm.bias")), ob], domain=MS, epsilon=eps)
        ub = b.init(f"{p}.intermediate.dense.bias", g(f"{p}.intermediate.dense.bias"))
        act = b.node("BiasGelu", [mm(ao, f"{p}.intermediate.dense.weight", g(f"{p}.intermediate.dense.weight").T.copy()), ub], domain=MS)
        db = b.init(f"{p}.output.dense.bias", g(f"{p}.output.dense.bias"))
        d = mm(act, f"{p}.output.dense.weight", g(f"{p}.output.dense.weight").T.copy())
        x = b.node("SkipLayerNormalization", [d, ao, b.init(f"{p}.ln2.w", g(f"{p}.output.LayerNorm.weight")),
                                              b.init(f"{p}.ln2.b", g(f"{p}.output.LayerNorm.bias")), db], domain=MS, epsilon=eps)
    b.nodes.append(H.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    ins, out = common_io(h)
    graph = H.make_graph(b.nodes, "fused_encoder", ins, out, b.inits)
    return H.make_model(graph, opset_imports=[H.make_opsetid("", 20), H.make_opsetid(MS, 1)], ir_version=10)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "./models"
    os.makedirs(out, exist_ok=True)
    cfg, g = load()
    assert cfg["hidden_act"] == "gelu"
    onnx.save(build_strata(cfg, g), f"{out}/strata_fp32.onnx")
    onnx.save(build_fused(cfg, g), f"{out}/fused_fp32.onnx")
    onnx.save(build_fused(cfg, g, int8=True), f"{out}/fused_dqmm.onnx")          # hand-built int8, no ORT tooling
    onnx.save(build_fused(cfg, g, int8=True, rr=True), f"{out}/fused_dqmm_rr.onnx")
    onnx.save(build_fused(cfg, g, mha=True), f"{out}/mha_fp32.onnx")
    onnx.save(build_fused(cfg, g, int8=True, mha=True), f"{out}/mha_dqmm.onnx")
    print("ok")
