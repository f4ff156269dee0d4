#!/usr/bin/env python3
"""Embedding throughput of several models (or graphs of one model) on the same corpus
chunks, in one run, with the ratio to the first and, where the widths match, the cosine to
the first's vectors (minimum, mean, share under 0.995).

    cargo build --release -p strata-embed --example embed_bench
    python3 scripts/bench/embed-models.py all-MiniLM-L6-v2 all-MiniLM-L6-v2@int8 all-MiniLM-L6-v2-static [--n 1024] [--rounds 3]

`MODEL@PRECISION` runs MODEL with `STRATA_DENSE_PRECISION=PRECISION` (fp32, int8, auto); a
bare name runs in fp32. `MODEL@PRECISION:LANES` also sets `STRATA_DENSE_LANES` (sessions
side by side; default one per core).

Inputs: N texts of 800-1000 characters (about 200 tokens, a chunk), paragraphs of the RFCs in
../shared/data/corpus/txt joined until 800 characters. Each round runs every model once
(interleaved, so a busy machine slows all alike); the median round is reported. The example
uses every core and the models' defaults (batch 32, capped at 256 padded tokens).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared/data/corpus/txt"
BENCH = ROOT / "target/release/examples/embed_bench"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed_peers import inputs  # noqa: E402  (the same passages as the peer comparison)


def run(spec, texts_path, vectors_path):
    model, _, graph = spec.partition("@")
    precision, _, lanes = graph.partition(":")
    env = dict(os.environ, STRATA_DENSE_PRECISION=precision or "fp32")
    if lanes:
        env["STRATA_DENSE_LANES"] = lanes
    line = subprocess.run([str(BENCH), texts_path, model, "32", vectors_path], check=True,
                          capture_output=True, text=True, env=env).stdout
    fields = dict(f.split("=", 1) for f in line.split()[1:])
    return float(fields["sent_per_s"])


def read_vectors(path, n):
    import array
    a = array.array("f")
    a.frombytes(Path(path).read_bytes())
    dim = len(a) // n
    return [a[i * dim:(i + 1) * dim] for i in range(n)], dim


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"embed-models: {CORPUS} is absent (the shared corpus); nothing to measure")
    texts = inputs(args.n)
    tmp = Path(tempfile.mkdtemp())
    texts_path = tmp / "texts.jsonl"
    texts_path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    rates = {m: [] for m in args.models}
    for _ in range(args.rounds):
        for i, m in enumerate(args.models):
            rates[m].append(run(m, str(texts_path), str(tmp / f"{i}.f32")))
    base, base_dim = read_vectors(tmp / "0.f32", len(texts))
    first = statistics.median(rates[args.models[0]])
    print(f"{len(texts)} texts, {args.rounds} rounds, cores={os.cpu_count()}")
    print("model\ttexts_per_s\tx_first\tmin_cos\tmean_cos\tunder_0.995")
    for i, m in enumerate(args.models):
        rate = statistics.median(rates[m])
        cos = "\t-\t-\t-"
        vectors, dim = read_vectors(tmp / f"{i}.f32", len(texts))
        if i > 0 and dim == base_dim:
            c = [sum(x * y for x, y in zip(a, b)) for a, b in zip(base, vectors)]
            cos = f"\t{min(c):.4f}\t{statistics.mean(c):.4f}\t{sum(x < 0.995 for x in c) / len(c):.3f}"
        print(f"{m}\t{rate:.1f}\t{rate / first:.2f}{cos}")


if __name__ == "__main__":
    main()
