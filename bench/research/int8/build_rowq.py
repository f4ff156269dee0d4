"""Second study (issue 21): int8 matmuls with PER-ROW (per-token) dynamic activation scales.

Same contrib-op graph as build_graph.build_fused(mha=True) (Gather/Add/LayerNorm embeddings; per layer
QKV MatMul -> Split -> MultiHeadAttention(bias, key_padding_mask) -> out-proj -> SkipLayerNormalization(bias)
-> FFN-up -> BiasGelu(bias) -> FFN-down -> SkipLayerNormalization(bias)); every bias is added by the
downstream fused op, so the projections themselves are bias-free.  Each of the 24 projections is built
by one of these modes (chosen per kind: qkv, o, up, down):

  fp32   MatMul(x, W)
  dqmm   com.microsoft DynamicQuantizeMatMul(x, Wq int8 [K,N], wscale [N])  (per-tensor u8 activations)
  rowmi  standard ops only (brief, item 1):
           amax = ReduceMax(Abs(x), axes=[-1], keepdims=1)            [B,S,1]
           s    = Max(amax, 1e-8) * (1/127)                           [B,S,1]
           q    = Cast(Clip(Round(x / s), -127, 127), to=INT8)        [B,S,K] int8
           y    = MatMulInteger(q, Wq int8 [K,N])                    [B,S,N] int32 (no zero points)
           out  = Cast(y, FLOAT) * s * wscale[N]
  rowmiu as rowmi but u8 activations with zero point 128 (so MLAS takes its u8s8 VNNI kernel):
           q    = Cast(Round(x * (127/amax)) + 128, to=UINT8); MatMulInteger(q, Wq, a_zero_point=128 u8)
  rowtf  com.microsoft MatMulIntegerToFloat, which applies a non-scalar a_scale by a broadcast
         multiply after the u8s8 GEMM (dynamic_quantize_matmul.cc: ScaleOutput) and per-column
         b_scale inside the GEMM's output processor:
           amax = ReduceMax(Abs(x), axes=[-1], keepdims=1);  s = Max(amax,1e-8)/127   [B,S,1]
           q    = <quantizer>(x, s) -> uint8 [B,S,K], value round(x/s)+128
           out  = MatMulIntegerToFloat(q, Wq int8 [K,N], a_scale=s [B,S,1], b_scale=wscale [N],
                                       a_zero_point=128 u8 scalar)          (no bias input!)
         quantizer 'ew': Cast(Round(x * Reciprocal(s)) + 128, UINT8)    (values already in [1,255])
         quantizer 'ql': QuantizeLinear opset 21 blocked: QuantizeLinear(x, s, zp, axis=-1, block_size=K)
                         with zp = Expand(uint8 128, Shape(s))
  nb4/nb8  MatMulNBits (via onnxruntime.quantization MatMulNBitsQuantizer), see quant2.py

  more modes (see the comments in mm()): wdq / wdqb<blk> (weight-only error, fp32 activations),
  rowtfs (FFN-down +0.17 shift, u8 zp 0), rowtfa (per-row asymmetric), rowtfo<T>[m] and rowtfc (outlier
  input channels split off into an fp32 Gather + MatMul/Gemm side path; rowtfc takes them from the weights,
  tw=T, and from calibration, ta=T over out/calib_chan.json).

usage: python build_rowq.py NAME qkv=MODE o=MODE up=MODE down=MODE [quant=ew|ql] [tw=5] [ta=0]
       [side=add|gemm] [mask=1|0|qkv,o,up,down] [attn=mha|std]      -> models/NAME.onnx
"""
import os, sys
import numpy as np
import onnx
from onnx import helper as H, TensorProto as T
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_graph as bg

MS = "com.microsoft"
GELU_SHIFT = 0.17  # > -min GELU(x) = 0.16997
TW, TA, CAL, OSET, SIDE, MASK, ATTN = 5.0, 0.0, None, {}, "add", True, "mha"


def build(cfg, g, modes, quant="ew", opset=21):
    h, heads, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    b = bg.B()
    c = {}

    def const(name, arr):
        if name not in c:
            c[name] = b.init(name, arr)
        return c[name]

    def rowscale(x):
        amax = b.node("ReduceMax", [b.node("Abs", [x]), const("axes_m1", np.array([-1], np.int64))], keepdims=1)
        amax = b.node("Max", [amax, const("eps_f", np.array(1e-8, np.float32))])
        return amax, b.node("Mul", [amax, const("inv127", np.array(1 / 127, np.float32))])

    delta = {}

    def mm(x, name, w, kind):
        mode = modes[kind]
        if mode == "wdq":  # fp32 activations, int8 per-column weights dequantized (weight-only error)
            q, ws = bg.q8_cols(w)
            return b.node("MatMul", [x, b.init(name, (q.astype(np.float32) * ws).astype(np.float32))])
        if mode.startswith("wdqb"):  # weight-only error of K-blocked int8 (block = int after 'wdqb')
            blk = int(mode[4:]); K = w.shape[0]; wd = np.empty_like(w)
            for k0 in range(0, K, blk):
                qq, ss = bg.q8_cols(w[k0:k0 + blk]); wd[k0:k0 + blk] = qq * ss
            return b.node("MatMul", [x, b.init(name, wd.astype(np.float32))])
        if mode == "fp32":
            return b.node("MatMul", [x, b.init(name, w)])
        q, ws = bg.q8_cols(w)
        if mode == "dqmm":
            return b.node("DynamicQuantizeMatMul", [x, b.init(name + ".q", q), b.init(name + ".scale", ws)], domain=MS)
        if mode in ("rowmi", "rowmiu", "rowtf"):
            amax, s = rowscale(x)
        if mode == "rowmi":
            r = b.node("Round", [b.node("Div", [x, s])])
            r = b.node("Clip", [r, const("m127", np.array(-127, np.float32)), const("p127", np.array(127, np.float32))])
            qa = b.node("Cast", [r], to=T.INT8)
            y = b.node("MatMulInteger", [qa, b.init(name + ".q", q)])
            y = b.node("Cast", [y], to=T.FLOAT)
            return b.node("Mul", [b.node("Mul", [y, s]), b.init(name + ".scale", ws)])
        if mode == "rowmiu":
            inv = b.node("Div", [const("c127", np.array(127, np.float32)), amax])
            r = b.node("Add", [b.node("Round", [b.node("Mul", [x, inv])]), const("c128", np.array(128, np.float32))])
            qa = b.node("Cast", [r], to=T.UINT8)
            y = b.node("MatMulInteger", [qa, b.init(name + ".q", q), const("zp128", np.array(128, np.uint8))])
            y = b.node("Cast", [y], to=T.FLOAT)
            return b.node("Mul", [b.node("Mul", [y, s]), b.init(name + ".scale", ws)])
        if mode == "rowtf":
            if quant == "ew":
                inv = b.node("Div", [const("c127", np.array(127, np.float32)), amax])
                r = b.node("Add", [b.node("Round", [b.node("Mul", [x, inv])]), const("c128", np.array(128, np.float32))])
                qa = b.node("Cast", [r], to=T.UINT8)
            elif quant == "ql":
                zp = b.node("Expand", [const("zp128", np.array(128, np.uint8)), b.node("Shape", [s])])
                qa = b.node("QuantizeLinear", [x, s, zp], axis=-1, block_size=int(w.shape[0]))
            else:
                raise ValueError(quant)
            return b.node("MatMulIntegerToFloat", [qa, b.init(name + ".q", q), s, b.init(name + ".scale", ws),
                                                   const("zp128", np.array(128, np.uint8))], domain=MS)
        if mode == "rowtfs":
            # FFN-down input = GELU output >= -0.16997: shift by +0.17 so it is >= 0, then per-row u8 with
            # zero point 0 and scale max/255 (2x the resolution of symmetric); the shift comes back as a
            # constant bias correction -0.17 * colsum(Wdeq), folded into the downstream bias.
            xs = b.node("Add", [x, const("c017", np.array(GELU_SHIFT, np.float32))])
            amax = b.node("ReduceMax", [xs, const("axes_m1", np.array([-1], np.int64))], keepdims=1)
            s = b.node("Mul", [amax, const("inv255", np.array(1 / 255, np.float32))])
            qa = b.node("QuantizeLinear", [xs, s], axis=-1, block_size=int(w.shape[0]))
            delta[name] = -GELU_SHIFT * (q.astype(np.float32) * ws).sum(0)
            return b.node("MatMulIntegerToFloat", [qa, b.init(name + ".q", q), s, b.init(name + ".scale", ws)], domain=MS)
        if mode == "rowtfc":
            # outlier set from weights (rows with max|W[k,:]| > TW * median) AND from calibrated activations
            # (channels with max|x_k| > TA * median_k, out/calib_chan.json from calib.py); masked.
            rmax = np.abs(w).max(1); O = set(np.where(rmax > TW * np.median(rmax))[0].tolist())
            if TA > 0:
                a = np.asarray(CAL[name], np.float32); O |= set(np.where(a > TA * np.median(a))[0].tolist())
            mode = "rowtfoO"; OSET[name] = np.array(sorted(O), np.int64)
        if mode.startswith("rowtfo"):
            # rowtfo<T>[m]: per-row int8 (shifted for FFN-down, symmetric otherwise) with OUTLIER WEIGHT ROWS
            # split off: input channels k with max|W[k,:]| > T * median_k(max|W[k,:]|) are zeroed in the int8
            # weight (so they no longer set the per-column scales) and computed in fp32 on the side:
            #   y = MatMulIntegerToFloat(...) + MatMul(Gather(x, O, axis=-1), W[O, :])
            # 'm' also masks those channels out of the activation row max (one extra Mul by a 0/1 vector).
            if mode == "rowtfoO":
                masked, O = (MASK is True or kind in MASK), OSET[name]
            else:
                spec = mode[6:]; masked = spec.endswith("m"); t = float(spec.rstrip("m"))
                rmax = np.abs(w).max(1); O = np.where(rmax > t * np.median(rmax))[0]
            w_in = w.copy(); w_in[O] = 0
            q, ws = bg.q8_cols(w_in)
            K = int(w.shape[0]); ax = const("axes_m1", np.array([-1], np.int64))
            shifted = kind == "down"
            xs = b.node("Add", [x, const("c017", np.array(GELU_SHIFT, np.float32))]) if shifted else x
            if masked and len(O):
                m = np.ones(K, np.float32); m[O] = 0
                xs = b.node("Mul", [xs, b.init(name + ".mask", m)])
            if shifted:
                amax = b.node("ReduceMax", [xs, ax], keepdims=1)
                s = b.node("Mul", [amax, const("inv255", np.array(1 / 255, np.float32))])
                qa = b.node("QuantizeLinear", [xs, s], axis=-1, block_size=K)
                delta[name] = -GELU_SHIFT * (q.astype(np.float32) * ws).sum(0)
                y = b.node("MatMulIntegerToFloat", [qa, b.init(name + ".q", q), s, b.init(name + ".scale", ws)], domain=MS)
            else:
                amax, s = rowscale(xs)
                zp = b.node("Expand", [const("zp128", np.array(128, np.uint8)), b.node("Shape", [s])])
                qa = b.node("QuantizeLinear", [xs, s, zp], axis=-1, block_size=K)
                y = b.node("MatMulIntegerToFloat", [qa, b.init(name + ".q", q), s, b.init(name + ".scale", ws),
                                                    const("zp128", np.array(128, np.uint8))], domain=MS)
            if len(O) == 0:
                return y
            xo = b.node("Gather", [x, b.init(name + ".oidx", O.astype(np.int64))], axis=-1)
            wo = b.init(name + ".wout", w[O].astype(np.float32))
            if SIDE == "gemm":  # y2d + xo2d @ wo in one Gemm (C input), reshaped back to [B,S,N]
                y2 = b.node("Reshape", [y, const("shape_2d_" + str(w.shape[1]), np.array([-1, w.shape[1]], np.int64))])
                x2 = b.node("Reshape", [xo, b.init(name + ".oshape", np.array([-1, len(O)], np.int64))])
                z = b.node("Gemm", [x2, wo, y2], alpha=1.0, beta=1.0)
                return b.node("Reshape", [z, b.node("Shape", [y])])
            return b.node("Add", [y, b.node("MatMul", [xo, wo])])
        if mode == "rowtfa":
            # generic per-row asymmetric: x' = x - rmin (>= 0), rmin = min(row min, 0); s = (rmax - rmin)/255;
            # y = s * (q @ Wq) * ws + rmin * colsum(Wdeq)   (extra [M,N] Mul + Add)
            ax = const("axes_m1", np.array([-1], np.int64))
            rmin = b.node("Min", [b.node("ReduceMin", [x, ax], keepdims=1), const("zero_f", np.array(0, np.float32))])
            rmax = b.node("ReduceMax", [x, ax], keepdims=1)
            s = b.node("Max", [b.node("Mul", [b.node("Sub", [rmax, rmin]), const("inv255", np.array(1 / 255, np.float32))]), const("eps_f", np.array(1e-8, np.float32))])
            qa = b.node("QuantizeLinear", [b.node("Sub", [x, rmin]), s], axis=-1, block_size=int(w.shape[0]))
            y = b.node("MatMulIntegerToFloat", [qa, b.init(name + ".q", q), s, b.init(name + ".scale", ws)], domain=MS)
            cs = b.init(name + ".colsum", (q.astype(np.float32) * ws).sum(0).astype(np.float32))
            return b.node("Add", [y, b.node("Mul", [rmin, cs])])
        raise ValueError(mode)

    def bias(name, arr, mmname):
        return b.init(name, (arr + delta.get(mmname, 0)).astype(np.float32))

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
    mask = b.node("Cast", ["attention_mask"], to=T.INT32)
    hd = h // heads
    if ATTN != "mha":
        mf = b.node("Cast", ["attention_mask"], to=T.FLOAT)
        mbias = b.node("Mul", [b.node("Sub", [const("one_f", np.array(1.0, np.float32)), mf]), const("neg_f", np.array(-10000.0, np.float32))])
        mbias = b.node("Unsqueeze", [mbias, const("axes_1_2", np.array([1, 2], np.int64))])
    for l in range(L):
        p = f"encoder.layer.{l}"
        if ATTN == "mha":
            qw, qb = bg.qkv_fused(g, p, h, 1.0)
            qkv = mm(x, f"{p}.qkv.weight", qw, "qkv")
            q_, k_, v_ = b.node("Split", [qkv, b.init(f"{p}.split", np.array([h, h, h], np.int64))], nout=3, axis=-1)
            att = b.node("MultiHeadAttention", [q_, k_, v_, bias(f"{p}.qkv.bias", qb, f"{p}.qkv.weight"), mask], domain=MS, num_heads=heads)
        else:  # strata's standard-op attention (graph.rs): 1/sqrt(d) folded into Q weights, additive mask bias
            qw, qb = bg.qkv_fused(g, p, h, 1.0 / np.sqrt(np.float32(hd)))
            qkv = mm(x, f"{p}.qkv.weight", qw, "qkv")
            qkv = b.node("Add", [qkv, bias(f"{p}.qkv.bias", qb, f"{p}.qkv.weight")])
            parts = b.node("Split", [qkv, const("qkv_split", np.array([h, h, h], np.int64))], nout=3, axis=-1)
            sp = [b.node("Reshape", [pp, const("heads_shape", np.array([0, 0, heads, hd], np.int64))]) for pp in parts]
            qh = b.node("Transpose", [sp[0]], perm=[0, 2, 1, 3])
            kh = b.node("Transpose", [sp[1]], perm=[0, 2, 3, 1])
            vh = b.node("Transpose", [sp[2]], perm=[0, 2, 1, 3])
            sc = b.node("Add", [b.node("MatMul", [qh, kh]), mbias])
            pr = b.node("Softmax", [sc], axis=-1)
            att = b.node("Reshape", [b.node("Transpose", [b.node("MatMul", [pr, vh])], perm=[0, 2, 1, 3]),
                                     const("merged_shape", np.array([0, 0, h], np.int64))])
        o = mm(att, f"{p}.attention.output.dense.weight", g(f"{p}.attention.output.dense.weight").T.copy(), "o")
        ob = bias(f"{p}.attention.output.dense.bias", g(f"{p}.attention.output.dense.bias"), f"{p}.attention.output.dense.weight")
        ao = b.node("SkipLayerNormalization", [o, x, b.init(f"{p}.ln1.w", g(f"{p}.attention.output.LayerNorm.weight")),
                                               b.init(f"{p}.ln1.b", g(f"{p}.attention.output.LayerNorm.bias")), ob], domain=MS, epsilon=eps)
        u = mm(ao, f"{p}.intermediate.dense.weight", g(f"{p}.intermediate.dense.weight").T.copy(), "up")
        ub = bias(f"{p}.intermediate.dense.bias", g(f"{p}.intermediate.dense.bias"), f"{p}.intermediate.dense.weight")
        act = b.node("BiasGelu", [u, ub], domain=MS)
        d = mm(act, f"{p}.output.dense.weight", g(f"{p}.output.dense.weight").T.copy(), "down")
        db = bias(f"{p}.output.dense.bias", g(f"{p}.output.dense.bias"), f"{p}.output.dense.weight")
        x = b.node("SkipLayerNormalization", [d, ao, b.init(f"{p}.ln2.w", g(f"{p}.output.LayerNorm.weight")),
                                              b.init(f"{p}.ln2.b", g(f"{p}.output.LayerNorm.bias")), db], domain=MS, epsilon=eps)
    b.nodes.append(H.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    ins, out = bg.common_io(h)
    graph = H.make_graph(b.nodes, "rowq_encoder", ins, out, b.inits)
    return H.make_model(graph, opset_imports=[H.make_opsetid("", opset), H.make_opsetid(MS, 1)], ir_version=10)


if __name__ == "__main__":
    name = sys.argv[1]
    kv = dict(a.split("=", 1) for a in sys.argv[2:])
    modes = {k: kv.get(k, "fp32") for k in ("qkv", "o", "up", "down")}
    TW, TA = float(kv.get("tw", 5)), float(kv.get("ta", 0))
    SIDE, MASK, ATTN = kv.get("side", "add"), kv.get("mask", "1"), kv.get("attn", "mha")
    MASK = True if MASK == "1" else tuple(MASK.split(",")) if MASK != "0" else ()
    if TA > 0:
        import json; CAL = json.load(open("./out/calib_chan.json"))
    cfg, g = bg.load()
    os.makedirs("./models", exist_ok=True)
    m = build(cfg, g, modes, quant=kv.get("quant", "ew"))
    onnx.save(m, f"./models/{name}.onnx")
    print(name, modes, {k[8:]: len(v) for k, v in OSET.items()} if OSET else "", round(os.path.getsize(f"./models/{name}.onnx") / 1e6, 1), "MB")
