#!/usr/bin/env bash
# The web page (`strata serve`'s `/`) in a real browser: Debian's chromium, headless, driven
# over WebDriver by chromium-driver and Python selenium (scripts/ui-check.py says what is
# checked). Run by CI after scripts/serve-checks.sh, on the binary `cargo test` built.
#
# It ingests USC Title 35 (HTML) and one PDF of the shared corpus into a temporary index with
# the dense leg off (no model needed), serves it on a random loopback port with a random API
# key, and runs the checks; then serves the same index without keys and checks that the page
# does not ask for one. Screenshots go to $STRATA_UI_SHOTS when set (docs/ui to refresh the
# README's). About 15 s after the build.
#
# Skips (exit 0) when ../shared is absent, like every corpus test. Skips when chromium or
# chromium-driver is missing, unless STRATA_UI_REQUIRE_BROWSER=1 (CI sets it): then a missing
# browser fails, as a browser that does not start always does.
#
# Usage: scripts/ui-checks.sh      (STRATA_BIN=path/to/strata, default target/debug/strata)
set -euo pipefail
cd "$(dirname "$0")/.."

CORPUS=../shared/data/corpus
HTML=$CORPUS/html/usc-title35-patents.htm
PDF=$CORPUS/pdf/aosa-bash-chapter-no-outline.pdf
REQUIRE=${STRATA_UI_REQUIRE_BROWSER:-0}
skip() {
  if [ "$REQUIRE" = 1 ]; then
    echo "ui-checks: FAIL: $1 (STRATA_UI_REQUIRE_BROWSER=1)" >&2
    exit 1
  fi
  echo "ui-checks: skipped: $1"
  exit 0
}
if [ ! -f "$HTML" ] || [ ! -f "$PDF" ]; then # as every corpus test: skipped, in CI too
  echo "ui-checks: skipped: $HTML or $PDF is absent (no ../shared corpus next to the repo)"
  exit 0
fi
CHROME=$(command -v chromium || command -v chromium-browser || true)
DRIVER=$(command -v chromedriver || true)
[ -n "$CHROME" ] && [ -n "$DRIVER" ] || skip "chromium or chromium-driver is not installed (apt-get install -y chromium chromium-driver)"
BIN=${STRATA_BIN:-target/debug/strata}
if [ ! -x "$BIN" ]; then
  echo "ui-checks: no strata binary at $BIN: build it (cargo build -p strata-cli) or set STRATA_BIN" >&2
  exit 1
fi
BIN=$(realpath "$BIN")
HTML=$(realpath "$HTML")
PDF=$(realpath "$PDF")
CHECK=$(realpath scripts/ui-check.py)
SHOTS=${STRATA_UI_SHOTS:+$(realpath -m "$STRATA_UI_SHOTS")}

PINS="selenium==4.45.0"
VENV=${STRATA_CACHE:-$HOME/.cache/strata}/venv-ui-checks
PY=$VENV/bin/python
if [ ! -x "$PY" ] || [ "$(cat "$VENV/.pins" 2>/dev/null)" != "$PINS" ]; then
  echo "== ui-checks: installing $PINS into $VENV"
  python3 -m venv "$VENV" || { echo "ui-checks: python3 -m venv failed (apt-get install -y python3-venv)" >&2; exit 1; }
  # shellcheck disable=SC2086 # PINS is a list of requirements
  "$PY" -m pip install --quiet --disable-pip-version-check $PINS
  echo "$PINS" >"$VENV/.pins"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/strata-ui-checks.XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$WORK"
unset STRATA_CONFIG STRATA_INDEX
export STRATA_DENSE_ENABLED=false
STARTED=$SECONDS
echo "== ui-checks: ingesting $(basename "$HTML") and $(basename "$PDF")"
"$BIN" --index "$WORK/index" ingest --quiet "$HTML" "$PDF"
echo "== ui-checks: ingested in $((SECONDS - STARTED)) s"

# start_server [KEY]: strata serve on a random port (with API key KEY when given); sets BASE.
start_server() {
  if [ -n "${1:-}" ]; then export STRATA_API_KEYS=$1; else unset STRATA_API_KEYS; fi
  "$BIN" --index "$WORK/index" serve --addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
  SERVER_PID=$!
  unset STRATA_API_KEYS
  BASE=
  for _ in $(seq 1 300); do # up to 30 s
    BASE=$(grep -m1 -o 'listening on http://[0-9.:]*' "$WORK/serve.err" | sed 's/^listening on //' || true)
    [ -n "$BASE" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$BASE" ]; then
    echo "ui-checks: strata serve did not print 'listening on'; its stderr:" >&2
    tail -n 40 "$WORK/serve.err" >&2
    exit 1
  fi
  echo "== ui-checks: strata serve on $BASE${1:+ with an API key}"
}
stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

rc=0
KEY=ui-$("$PY" -c 'import secrets; print(secrets.token_hex(16))')
start_server "$KEY"
"$PY" "$CHECK" --base "$BASE" --key "$KEY" --chrome "$CHROME" --driver "$DRIVER" \
  --work "$WORK" ${SHOTS:+--shots "$SHOTS"} || rc=$?
[ "$rc" -eq 0 ] || { echo "== ui-checks: strata serve's stderr, last lines:"; tail -n 20 "$WORK/serve.err"; }
stop_server
# The same index served without keys: the page must not ask for one.
start_server
"$PY" "$CHECK" --base "$BASE" --open --chrome "$CHROME" --driver "$DRIVER" --work "$WORK" || rc=$?
stop_server
echo "== ui-checks: $((SECONDS - STARTED)) s in all"
exit "$rc"
