#!/usr/bin/env bash
# Load test of `strata serve` on loopback: 64 concurrent clients for 60 s of POST /v1/search
# in mixed modes (keyword, exact, hybrid, hierarchical, dense; scripts/load-mixed.lua), with
# wrk. Ingests four corpus documents (DOCX, RFC text, Markdown, a >100k-token HTML manual)
# with the embedding model into a temporary index first. Prints wrk's report and one JSON
# line (requests, non-200 answers, socket errors, p50/p90/p99/max latency).
#
# Usage: scripts/load-test.sh [DURATION] [CONNECTIONS]      (defaults 60s 64)
#   STRATA_LOAD_INDEX=DIR  use (and keep) this index: ingested when it has no documents yet
#   STRATA_CONFIG=FILE     the server's configuration (e.g. [search] dense_highlights = false)
# Needs wrk (apt-get install wrk), a release build (cargo build --release -p strata-cli, or
# STRATA_BIN=...), the model (scripts/fetch-models.sh all-MiniLM-L6-v2) and ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-60s}
CONNECTIONS=${2:-64}
BIN=$(realpath "${STRATA_BIN:-target/release/strata}")
CORPUS=../shared/data/corpus
command -v wrk >/dev/null || { echo "load-test: wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -d "$CORPUS" ] || { echo "load-test: skipped: $CORPUS is absent"; exit 0; }
DOCS=(
  "$CORPUS/docx/usc-title13-census-converted.docx"
  "$CORPUS/txt/rfc7231-http11-semantics.txt"
  "$CORPUS/markdown/openapi-spec-3.2.0.md"
  "$CORPUS/html/bash-reference-manual.html"
)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/strata-load.XXXXXX")
SERVER=
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT

INDEX=${STRATA_LOAD_INDEX:-$WORK/index}
if [ "$("$BIN" --index "$INDEX" --json docs 2>/dev/null | grep -c '"id"')" != "${#DOCS[@]}" ]; then
  echo "== ingest (with the model)"
  "$BIN" --index "$INDEX" ingest --quiet "${DOCS[@]}"
fi
KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
STRATA_API_KEYS=$KEY RUST_LOG=warn "$BIN" --index "$INDEX" serve --addr 127.0.0.1:0 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do
  grep -q "listening on" "$WORK/serve.log" && break
  sleep 0.2
done
ADDR=$(sed -n 's/^listening on //p' "$WORK/serve.log")
[ -n "$ADDR" ] || { echo "load-test: the server did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1; }

echo "== warm-up (10 s, 8 clients)"
STRATA_KEY=$KEY wrk -t2 -c8 -d10s -s scripts/load-mixed.lua "$ADDR" >/dev/null
echo "== $CONNECTIONS clients, $DURATION, mixed modes: $ADDR"
STRATA_KEY=$KEY wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency -s scripts/load-mixed.lua "$ADDR" | tee "$WORK/wrk.txt"
kill -TERM "$SERVER"
wait "$SERVER" && echo "== the server stopped cleanly"
SERVER=
echo "== config: ${STRATA_CONFIG:-defaults}"
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
