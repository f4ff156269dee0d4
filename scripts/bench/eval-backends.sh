#!/usr/bin/env bash
# strata eval on the Anthropic set with each backend, side by side: the embedded store,
# PostgreSQL with BM25 in SQL (the default) and with ts_rank, and vectors in Milvus. Writes
# one report folder per backend under bench/results/eval-backends/.
#
#   scripts/bench/eval-backends.sh POSTGRES_URL MILVUS_URL [STRATA_BINARY]
#
# POSTGRES_URL must name a database of its own: each run drops its strata tables first.
# MILVUS_URL is a Milvus server (scripts/milvus.sh start eval 19640); the run drops and
# re-creates its strata_eval_* collections.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: scripts/bench/eval-backends.sh POSTGRES_URL MILVUS_URL [STRATA_BINARY]"
url="${1:?$usage}"
milvus="${2:?$usage}"
strata="${3:-target/release/strata}"
data=../shared/data/eval/anthropic-codebase
out=bench/results/eval-backends
args=(eval "$data" --chunking given --context none --strategies keyword,dense,hybrid,hierarchical -q)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '[store]\nkeyword = "ts_rank"\n' >"$tmp/ts_rank.toml"

time "$strata" "${args[@]}" --out "$out/embedded" --index-dir "$tmp/idx"
time "$strata" "${args[@]}" --out "$out/postgres-bm25" --index-dir "$tmp/idx" --postgres "$url"
time "$strata" --config "$tmp/ts_rank.toml" "${args[@]}" --out "$out/postgres-ts_rank" --index-dir "$tmp/idx" --postgres "$url"
time "$strata" "${args[@]}" --out "$out/milvus" --index-dir "$tmp/idx" --milvus "$milvus"
