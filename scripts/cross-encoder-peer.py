#!/usr/bin/env python3
"""Peer timing for strata's cross-encoder benchmark (crates/strata-embed/benches/rerank.rs).

Scores one query against a list of passages with sentence-transformers' `CrossEncoder` on
PyTorch (CPU), the usual way to run cross-encoder/ms-marco-MiniLM-L-6-v2, and prints the
latency of `predict` and the scores, so the bench can compare strata with it on the same input
in the same run.

    python scripts/cross-encoder-peer.py --model-dir DIR --input FILE
        [--runs N (10)] [--threads T (2)] [--batch-size B (32, CrossEncoder's default)]

DIR: a BertForSequenceClassification folder as strata's bench writes it: config.json,
model.safetensors (state_dict names bert.*, classifier.weight, classifier.bias; no metadata
needed) and tokenizer.json. Nothing else is needed and DIR is not modified. When it has no
tokenizer_config.json, the model is loaded from a temporary folder of links to DIR's files
plus the tokenizer_config.json of the real ms-marco-MiniLM-L-6-v2 (lower-casing, model_max_length
512, the BERT special tokens), so the folder looks like a saved CrossEncoder.
FILE: JSON {"query": "...", "passages": ["...", ...]}.

The model is loaded with CrossEncoder(DIR, max_length=512, device="cpu",
activation_fn=torch.nn.Identity()): the real model's config.json names Identity
(sbert_ce_default_activation_function), but a folder without that key would get CrossEncoder's
default for num_labels=1, a Sigmoid. So `predict` returns the raw logits. torch.set_num_threads(T);
one warm-up call, then N timed calls of model.predict([(query, p) for p in passages],
batch_size=B) with time.perf_counter() (tokenizing, length-sorting and per-batch padding included,
as in strata's `score`).

Prints one line of JSON to stdout:
    {"peer": "sentence-transformers X CrossEncoder, torch Y, T threads, batch B",
     "runs_ms": [...], "median_ms": m, "best_ms": b, "scores": [raw logits, input order]}
Everything else (warnings, progress bars) goes to stderr.

Set-up (CPU use, but the Linux torch wheel on PyPI needs its CUDA wheels even to import: about
5.8 GB installed, 4.8 GB without triton, which CPU inference never loads; where the disk is short,
make the venv in /dev/shm and link /tmp/xenc-venv to it):

    python3 -m venv /tmp/xenc-venv
    /tmp/xenc-venv/bin/pip install --no-cache-dir torch transformers sentence-transformers \
        safetensors numpy
    STRATA_RERANK_PEER_PYTHON=/tmp/xenc-venv/bin/python cargo bench -p strata-embed --bench rerank

Checked with sentence-transformers 6.2.0, transformers 5.24.0, torch 2.15.0 (Python 3.11).
"""

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# The tokenizer_config.json of cross-encoder/ms-marco-MiniLM-L-6-v2 (bert-base-uncased's).
TOKENIZER_CONFIG = {
    "do_lower_case": True,
    "do_basic_tokenize": True,
    "never_split": None,
    "tokenize_chinese_chars": True,
    "strip_accents": None,
    "unk_token": "[UNK]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
    "model_max_length": 512,
    "tokenizer_class": "BertTokenizer",
}
MAX_LENGTH = 512


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", required=True, type=Path)
    ap.add_argument("--input", required=True, type=Path)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    if args.runs < 1 or args.threads < 1 or args.batch_size < 1:
        ap.error("--runs, --threads and --batch-size must be at least 1")
    return args


def staged(model_dir: Path, tmp: str) -> str:
    """DIR itself if it has a tokenizer_config.json, else a folder in `tmp` of symlinks to
    DIR's files plus TOKENIZER_CONFIG (DIR is left as it is)."""
    if (model_dir / "tokenizer_config.json").is_file():
        return str(model_dir)
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (model_dir / name).is_file():
            sys.exit(f"cross-encoder-peer: {model_dir / name} is missing")
    for entry in model_dir.iterdir():
        if entry.is_file():
            os.symlink(entry.resolve(), os.path.join(tmp, entry.name))
    with open(os.path.join(tmp, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(TOKENIZER_CONFIG, f)
    return tmp


def main():
    args = parse_args()
    # Before torch is imported, so its OpenMP pool never starts more threads than asked for.
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

    data = json.loads(args.input.read_text(encoding="utf-8"))
    query, passages = data["query"], data["passages"]
    if not isinstance(query, str) or not passages or not all(isinstance(p, str) for p in passages):
        sys.exit("cross-encoder-peer: --input must hold {\"query\": str, \"passages\": [str, ...]}")
    pairs = [(query, p) for p in passages]

    real_stdout = sys.stdout
    # Anything a library prints goes to stderr; stdout carries only the result line.
    with contextlib.redirect_stdout(sys.stderr), tempfile.TemporaryDirectory() as tmp:
        import sentence_transformers
        import torch
        from sentence_transformers import CrossEncoder

        torch.set_num_threads(args.threads)
        model = CrossEncoder(
            staged(args.model_dir, tmp),
            max_length=MAX_LENGTH,
            device="cpu",
            activation_fn=torch.nn.Identity(),
        )
        assert model.num_labels == 1, f"expected one label, the model has {model.num_labels}"

        def predict():
            return model.predict(pairs, batch_size=args.batch_size, show_progress_bar=False)

        scores = predict()  # warm-up; its scores are the ones reported
        runs_ms = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            predict()
            runs_ms.append((time.perf_counter() - t0) * 1000.0)
        threads = torch.get_num_threads()
        peer = (f"sentence-transformers {sentence_transformers.__version__} CrossEncoder, "
                f"torch {torch.__version__}, {threads} threads, batch {args.batch_size}")

    result = {
        "peer": peer,
        "runs_ms": [round(t, 3) for t in runs_ms],
        "median_ms": round(statistics.median(runs_ms), 3),
        "best_ms": round(min(runs_ms), 3),
        "scores": [float(s) for s in scores],
    }
    print(json.dumps(result), file=real_stdout, flush=True)


if __name__ == "__main__":
    main()
