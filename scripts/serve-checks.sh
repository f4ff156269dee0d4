#!/usr/bin/env bash
# Interop checks of `strata serve` and `strata mcp` with official non-Rust tooling, run by CI
# after the Rust tests. The Rust tests drive the server with Rust clients (reqwest, rmcp); these
# checks use independent ones, so a mismatch on the wire shows up here:
#   scripts/openapi-check.py     /openapi.json is a valid OpenAPI 3.1 document (openapi-spec-validator)
#                                with the public paths and only resolvable $refs;
#   scripts/mcp-client-check.py  the official Python MCP SDK, over stdio (`strata mcp`) and over
#                                streamable HTTP (/mcp with the bearer key), lists and calls every tool,
#                                lists and reads the resources;
#   and that the server stops cleanly (exit 0) on SIGTERM.
# It ingests one document of the shared corpus (USC title 13) into a temporary index, with the
# dense leg off (STRATA_DENSE_ENABLED=false: no embedding model needed), and serves it on a
# random loopback port with a random API key. Skips (exit 0) when ../shared is absent.
#
# Usage: scripts/serve-checks.sh      (STRATA_BIN=path/to/strata, default target/debug/strata)
# The Python packages go to a venv in ${STRATA_CACHE:-~/.cache/strata}/venv-serve-checks (reused).
set -euo pipefail
cd "$(dirname "$0")/.."

DOC=../shared/data/corpus/docx/usc-title13-census-converted.docx
if [ ! -f "$DOC" ]; then
  echo "serve-checks: skipped: $DOC is absent (no ../shared corpus next to the repo)"
  exit 0
fi
DOC=$(realpath "$DOC")
BIN=${STRATA_BIN:-target/debug/strata}
if [ ! -x "$BIN" ]; then
  echo "serve-checks: no strata binary at $BIN: build it (cargo build -p strata-cli) or set STRATA_BIN" >&2
  exit 1
fi
BIN=$(realpath "$BIN")
SCRIPTS=$(realpath scripts)

# The pinned client tooling, in a venv of its own (created once, reinstalled when the pins change).
PINS="mcp==2.3.0 openapi-spec-validator==0.9.0"
VENV=${STRATA_CACHE:-$HOME/.cache/strata}/venv-serve-checks
PY=$VENV/bin/python
if [ ! -x "$PY" ] || [ "$(cat "$VENV/.pins" 2>/dev/null)" != "$PINS" ]; then
  echo "== serve-checks: installing $PINS into $VENV"
  python3 -m venv "$VENV" || {
    echo "serve-checks: python3 -m venv failed (on Debian: apt-get install -y python3-venv)" >&2
    exit 1
  }
  # shellcheck disable=SC2086 # PINS is a list of requirements
  "$PY" -m pip install --quiet --disable-pip-version-check $PINS
  echo "$PINS" >"$VENV/.pins"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/strata-serve-checks.XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Run everything from the temporary folder, so no ./strata.toml of the caller's is read, and
# only the settings named here apply.
cd "$WORK"
unset STRATA_CONFIG STRATA_INDEX
export STRATA_DENSE_ENABLED=false
IDX=$WORK/index
STARTED=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }

echo "== serve-checks: ingesting $(basename "$DOC")"
"$BIN" --index "$IDX" ingest --quiet "$DOC"

KEY=$("$PY" -c 'import secrets; print("sc-" + secrets.token_hex(16))')
export STRATA_API_KEYS=$KEY
"$BIN" --index "$IDX" serve --addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
BASE=
for _ in $(seq 1 300); do # up to 30 s
  BASE=$(grep -m1 -o 'listening on http://[0-9.:]*' "$WORK/serve.err" | sed 's/^listening on //' || true)
  [ -n "$BASE" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "$BASE" ]; then
  echo "serve-checks: strata serve did not print 'listening on'; its stderr:" >&2
  tail -n 40 "$WORK/serve.err" >&2
  exit 1
fi
unset STRATA_API_KEYS # the checks get the key as an argument; the stdio server needs none
echo "== serve-checks: strata serve on $BASE (pid $SERVER_PID)"

PASSED=0
FAILED=0
NAMES=()
step() { # step NAME COMMAND...: runs one check, counts it, never stops the others
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s.%N)
  echo "== serve-checks: $name"
  if declare -F "$1" >/dev/null; then "$@" || rc=$?; else timeout 300 "$@" || rc=$?; fi
  if [ "$rc" -eq 0 ]; then
    PASSED=$((PASSED + 1))
    NAMES+=("PASS $name ($(elapsed "$t0"))")
  else
    FAILED=$((FAILED + 1))
    NAMES+=("FAIL $name (exit $rc, $(elapsed "$t0"))")
  fi
}

step openapi "$PY" "$SCRIPTS/openapi-check.py" --base "$BASE" --key "$KEY"
step "mcp stdio" "$PY" "$SCRIPTS/mcp-client-check.py" --transport stdio --bin "$BIN" --index "$IDX" \
  --stdio-log "$WORK/mcp-stdio.err"
step "mcp http" "$PY" "$SCRIPTS/mcp-client-check.py" --transport http --url "$BASE/mcp" --key "$KEY"

# Graceful stop: SIGTERM, then exit 0 within 20 s.
stop_server() {
  kill -TERM "$SERVER_PID"
  local rc=0
  for _ in $(seq 1 200); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "  FAIL: strata serve still running 20 s after SIGTERM" >&2
    return 1
  fi
  wait "$SERVER_PID" || rc=$?
  SERVER_PID=
  if [ "$rc" -ne 0 ]; then
    echo "  FAIL: strata serve exited $rc after SIGTERM; its stderr ends:" >&2
    tail -n 20 "$WORK/serve.err" >&2
    return 1
  fi
  echo "shutdown: PASS: strata serve exited 0 after SIGTERM"
}
step "sigterm shutdown" stop_server

if [ "$FAILED" -ne 0 ] && [ -s "$WORK/mcp-stdio.err" ]; then
  echo "== serve-checks: strata mcp (stdio) stderr, last lines:"
  tail -n 15 "$WORK/mcp-stdio.err"
fi
echo "== serve-checks: summary ($(elapsed "$STARTED") in all)"
printf '  %s\n' "${NAMES[@]}"
echo "serve-checks: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
