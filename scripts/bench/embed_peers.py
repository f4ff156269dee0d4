#!/usr/bin/env python3
"""Embedding throughput: strata's local embedder vs sentence-transformers, same model, same
inputs, same machine, one run (interleaved rounds), plus the cosine between their vectors.

    python3 -m venv /tmp/stbench && /tmp/stbench/bin/pip install torch sentence-transformers
    cargo build --release -p strata-embed --example embed_bench
    /tmp/stbench/bin/python scripts/bench/embed_peers.py [--rounds 3] [--batch 32]

Inputs: 512 texts of 800-1000 characters (about 200 tokens), paragraphs of RFC 9000 (then
RFC 7231) from ../shared/data/corpus/txt joined until 800 characters. Both sides use 2
threads, sort by length before batching, truncate at 256 tokens and L2-normalize.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared/data/corpus/txt"
CACHE = Path(os.environ.get("STRATA_CACHE", Path.home() / ".cache/strata"))


def inputs(n=512):
    out = []
    # A third RFC only for n past the first two (embed-models.py asks for 1,024).
    for name in ["rfc9000-quic-unpaginated.txt", "rfc7231-http11-semantics.txt", "rfc3261-sip.txt"]:
        text = (CORPUS / name).read_text()
        paras = [re.sub(r"[ \t]+", " ", p.strip()) for p in re.split(r"\n\s*\n", text) if p.strip()]
        cur = ""
        for p in paras:
            if cur and len(cur) + 2 + len(p) > 1000:
                out.append(cur)
                cur = ""
            cur = (cur + "\n\n" + p) if cur else p
            if len(cur) >= 800:
                out.append(cur[:1000])
                cur = ""
            if len(out) == n:
                return out
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"skipping: the shared corpus is not at {CORPUS}")
    import numpy as np, torch, sentence_transformers
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    texts = inputs()
    tmp = Path(tempfile.mkdtemp())
    jsonl = tmp / "inputs.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    model_dir = CACHE / "models" / args.model
    st = SentenceTransformer(str(model_dir), device="cpu")
    st.max_seq_length = 256
    exe = ROOT / "target/release/examples/embed_bench"
    print(f"inputs: {len(texts)} texts, mean {statistics.mean(map(len, texts)):.0f} chars; "
          f"torch {torch.__version__}, sentence-transformers {sentence_transformers.__version__}, "
          f"threads 2, batch {args.batch}")
    ratios = []
    for r in range(args.rounds):
        st.encode(texts[: args.batch], batch_size=args.batch, normalize_embeddings=True)
        t = time.perf_counter()
        ref = st.encode(texts, batch_size=args.batch, normalize_embeddings=True)
        st_rate = len(texts) / (time.perf_counter() - t)
        out = tmp / "strata.f32"
        line = subprocess.run([str(exe), str(jsonl), str(model_dir), str(args.batch), str(out)],
                              check=True, capture_output=True, text=True).stdout.strip()
        rate = float(re.search(r"sent_per_s=([0-9.]+)", line).group(1))
        ours = np.fromfile(out, dtype=np.float32).reshape(len(texts), -1)
        cos = (ours * ref).sum(1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(ref, axis=1)
        ratios.append(rate / st_rate)
        print(f"round {r + 1}: sentence-transformers {st_rate:.2f}/s, strata {rate:.2f}/s, "
              f"ratio {rate / st_rate:.2f}x, min cosine {cos.min():.7f}, mean cosine {cos.mean():.7f}")
    print(f"median ratio strata/sentence-transformers: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
