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
#   STRATA_LOAD_UI_CLIENTS=N  N more clients load the web page and all its files (pdf.js too,
#                          brotli) for the whole run (scripts/load-ui.lua); needs curl
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
UI_CLIENTS=${STRATA_LOAD_UI_CLIENTS:-0}
if [ "$UI_CLIENTS" -gt 0 ]; then
  UI=$(curl -s "$ADDR/" | grep -o '/ui/[0-9a-f]*' | head -1)
  FILES=$(for f in app.css app.js api.js dom.js search.js read.js manage.js pdfpage.js favicon.svg \
    vendor/pdfjs/pdf.min.mjs vendor/pdfjs/pdf.worker.min.mjs; do printf '%s/%s ' "$UI" "$f"; done)
  echo "== and $UI_CLIENTS clients loading the web page ($UI)"
  STRATA_UI_FILES=$FILES wrk -t1 -c"$UI_CLIENTS" -d"$DURATION" --latency -s scripts/load-ui.lua "$ADDR" >"$WORK/wrk-ui.txt" &
  UI_WRK=$!
fi
echo "== $CONNECTIONS clients, $DURATION, mixed modes: $ADDR"
STRATA_KEY=$KEY wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency -s scripts/load-mixed.lua "$ADDR" | tee "$WORK/wrk.txt"
if [ "$UI_CLIENTS" -gt 0 ]; then
  wait "$UI_WRK" || true
  echo "== web page clients:"
  cat "$WORK/wrk-ui.txt"
fi
kill -TERM "$SERVER"
wait "$SERVER" && echo "== the server stopped cleanly"
SERVER=
echo "== config: ${STRATA_CONFIG:-defaults}"
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
