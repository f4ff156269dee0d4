#!/usr/bin/env bash
# Soak test of `strata serve` (scripts/soak.py): 30 minutes of mixed searches, ingests and
# removals against one server on loopback, RSS sampled every 10 s, then the documents
# compared with a fresh ingest of the same files.
#
# Usage: scripts/soak.sh [MINUTES] [OUT]        (defaults 30 and soak-out)
# Needs a release build (cargo build --release -p strata-cli, or STRATA_BIN=...), the model
# (scripts/fetch-models.sh all-MiniLM-L6-v2) and ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/soak.py --bin "${STRATA_BIN:-target/release/strata}" --minutes "${1:-30}" --out "${2:-soak-out}"
