#!/usr/bin/env bash
# The Python package `strata` (crates/strata-py): builds its wheel with maturin, installs it
# into a venv, and tests it.
#
#   scripts/python.sh build     the wheel, into $CARGO_TARGET_DIR/wheels (default target/wheels)
#   scripts/python.sh test      build, install into the test venv, run pytest (crates/strata-py/tests)
#                               on corpus documents with the real model and the real langchain-core
#                               and llama-index-core
#   scripts/python.sh readme    install the wheel into a fresh venv and run the README's Python
#                               example there
#   scripts/python.sh ci        test, then readme (what .ci/run calls)
#   scripts/python.sh bench     build (release) with the Rust side's example, then
#                               bench/python-latency.py and bench/python-threads.py on the corpus
#
# Everything from PyPI is pinned and goes to venvs under ${STRATA_CACHE:-~/.cache/strata}:
# maturin into venv-python-build, pytest and the frameworks into venv-python-test (each
# reinstalled when its pins change). The model comes from scripts/fetch-models.sh, as for the
# Rust tests (STRATA_MODEL_DIR overrides it); the tests fail instead of skipping without it
# (STRATA_REQUIRE_MODEL=1), and skip with a message when ../shared/data/corpus is absent.
#
# STRATA_PY_PROFILE picks the cargo profile: release (the default) or dev, which CI uses so
# that the wheel reuses the dependencies `cargo test` compiled in the same target folder.
# STRATA_BIN names the strata binary the CLI-equivalence test compares with (default
# $CARGO_TARGET_DIR/debug/strata; the test skips, with a message, when there is none).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${STRATA_CACHE:-$HOME/.cache/strata}
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
PROFILE=${STRATA_PY_PROFILE:-release}
WHEELS=$TARGET/wheels
BUILD_PINS="maturin==1.16.0"
TEST_PINS="pytest==9.2.0 langchain-core==1.8.3 llama-index-core==0.14.25"

# venv DIR PINS: a venv holding exactly PINS (created once, reinstalled when they change).
venv() {
  local dir=$1 pins=$2
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.pins" 2>/dev/null)" != "$pins" ]; then
    echo "== python: installing $pins into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir" || {
      echo "python.sh: python3 -m venv failed (on Debian: apt-get install -y python3-venv)" >&2
      exit 1
    }
    # shellcheck disable=SC2086 # a list of requirements
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check $pins
    echo "$pins" >"$dir/.pins"
  fi
}

build() {
  venv "$CACHE/venv-python-build" "$BUILD_PINS"
  rm -f "$WHEELS"/strata-*.whl
  echo "== python: maturin build --profile $PROFILE (target $TARGET)"
  local t0=$SECONDS
  CARGO_TARGET_DIR=$TARGET "$CACHE/venv-python-build/bin/maturin" build --quiet \
    --manifest-path crates/strata-py/Cargo.toml --profile "$PROFILE" --locked \
    --interpreter python3 --out "$WHEELS"
  WHEEL=$(ls "$WHEELS"/strata-*.whl)
  echo "== python: built $(basename "$WHEEL") ($(du -h "$WHEEL" | cut -f1)) in $((SECONDS - t0)) s"
}

install_test_venv() {
  venv "$CACHE/venv-python-test" "$TEST_PINS"
  "$CACHE/venv-python-test/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$WHEEL"
}

model_env() {
  STRATA_MODEL_DIR="${STRATA_MODEL_DIR:-$(scripts/fetch-models.sh all-MiniLM-L6-v2)}"
  export STRATA_MODEL_DIR STRATA_REQUIRE_MODEL=1
  # Absolute: the tests run from their own folder.
  STRATA_BIN=$(realpath -m "${STRATA_BIN:-$TARGET/debug/strata}")
  export STRATA_BIN
}

run_tests() {
  model_env
  echo "== python: pytest crates/strata-py/tests"
  # From a folder of its own: no ./strata.toml of the caller's is read.
  (cd crates/strata-py/tests && "$CACHE/venv-python-test/bin/python" -m pytest -q -p no:cacheprovider .)
}

# The README's first ```python block, run in a fresh venv with only the wheel installed, in a
# temporary folder holding the example document it ingests.
readme() {
  model_env
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/strata-readme.XXXXXX")
  trap 'rm -rf "$work"' RETURN
  python3 -m venv "$work/venv"
  "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$WHEEL"
  mkdir -p "$work/run/examples"
  cp examples/sample-agreement.md "$work/run/examples/"
  awk '/^```python$/ { on = 1; next } on && /^```$/ { exit } on' README.md >"$work/run/readme_example.py"
  echo "== python: the README example, in a fresh venv ($(wc -l <"$work/run/readme_example.py") lines)"
  (cd "$work/run" && STRATA_DENSE_MODEL="$STRATA_MODEL_DIR" "$work/venv/bin/python" readme_example.py) | tee "$work/out.txt"
  grep -q '^\[Sample Hosting Services Agreement' "$work/out.txt" || {
    echo "python.sh: the README example printed no citation of the sample agreement" >&2
    return 1
  }
}

case "${1:-test}" in
  build) build ;;
  test) build && install_test_venv && run_tests ;;
  readme) build && readme ;;
  ci) build && install_test_venv && run_tests && readme ;;
  bench)
    PROFILE=release build && install_test_venv && model_env
    CARGO_TARGET_DIR=$TARGET cargo build --quiet --release --locked -p strata-engine --no-default-features \
      --example search_timing
    "$CACHE/venv-python-test/bin/python" bench/python-latency.py --rust-bin "$TARGET/release/examples/search_timing" "${@:2}"
    "$CACHE/venv-python-test/bin/python" bench/python-threads.py "${@:2}"
    ;;
  *)
    echo "usage: scripts/python.sh [build|test|readme|ci|bench]" >&2
    exit 2
    ;;
esac
