"""Embed passages the way strata-embed/src/local/mod.rs does: tokenizer.json truncated to 256
(longest-first, right), no padding; sort by token length descending; batches of 32 padded to the
batch's longest; inputs input_ids + attention_mask (i64); output last_hidden_state; mean pool over
the mask; L2 normalize. Session: ORT_ENABLE_ALL, intra_op 1, inter_op 1.

  python embed.py MODEL.onnx NAME [N_COS=1024] [REPS=2]
writes out/NAME.npy (N_COS x 384) and prints texts/s on passages[:256] (best of REPS) and
min/mean/p1 cosine vs out/strata_fp32.npy when present."""
import json, os, sys, time
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MODEL_DIR = os.path.expanduser("~/.cache/strata/models/all-MiniLM-L6-v2")


def tokenizer():
    t = Tokenizer.from_file(f"{MODEL_DIR}/tokenizer.json")
    t.enable_truncation(256, strategy="longest_first", direction="right")
    t.no_padding()
    return t


def session(path, threads=1, extra=None):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    for k, v in (extra or {}).items():
        so.add_session_config_entry(k, v)
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def embed(sess, tok, texts, bs=32):
    encs = tok.encode_batch(texts)
    order = sorted(range(len(encs)), key=lambda i: -len(encs[i].ids))  # stable: ties keep input order
    out = np.zeros((len(texts), 384), np.float32)
    for s in range(0, len(order), bs):
        idx = order[s:s + bs]
        L = max(len(encs[i].ids) for i in idx)
        ids = np.zeros((len(idx), L), np.int64)
        mask = np.zeros((len(idx), L), np.int64)
        for r, i in enumerate(idx):
            e = encs[i]
            ids[r, :len(e.ids)] = e.ids
            mask[r, :len(e.ids)] = e.attention_mask
        h = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (h * m).sum(1) / np.maximum(m.sum(1), 1.0)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        out[idx] = pooled
    return out


if __name__ == "__main__":
    path, name = sys.argv[1], sys.argv[2]
    ncos = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    os.makedirs("./out", exist_ok=True)
    passages = json.load(open("./passages.json"))
    tok = tokenizer()
    t0 = time.time(); sess = session(path); load_s = time.time() - t0
    embed(sess, tok, passages[:32])  # warm-up batch
    best, bcpu = 1e9, 1e9
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        embed(sess, tok, passages[:256])
        best, bcpu = min(best, time.perf_counter() - t0), min(bcpu, time.process_time() - c0)
    res = {"name": name, "file_mb": round(os.path.getsize(path) / 1e6, 1), "load_s": round(load_s, 2),
           "texts_per_s_wall": round(256 / best, 2), "texts_per_s_cpu": round(256 / bcpu, 2)}
    if ncos:
        E = embed(sess, tok, passages[:ncos])
        np.save(f"./out/{name}.npy", E)
        ref = "./out/strata_fp32.npy"
        if os.path.exists(ref) and name != "strata_fp32":
            R = np.load(ref)[:ncos]
            c = (E * R).sum(1)
            res.update(min_cos=round(float(c.min()), 6), mean_cos=round(float(c.mean()), 6), p01_cos=round(float(np.quantile(c, 0.01)), 6),
                       argmin=int(c.argmin()), n=ncos)
    print(json.dumps(res), flush=True)
    with open("./results.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")
