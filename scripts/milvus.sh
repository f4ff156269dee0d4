#!/usr/bin/env bash
# Milvus Lite for CI and tests: installs it from PyPI into a venv, and runs private servers on
# loopback, each with its own data directory.
#
#   scripts/milvus.sh install             # venv with milvus-lite and pymilvus (idempotent)
#   scripts/milvus.sh start NAME PORT     # start server NAME on 127.0.0.1:PORT; prints URL
#   scripts/milvus.sh stop NAME           # clean stop (SIGTERM: flushes, closes)
#   scripts/milvus.sh kill NAME           # crash (SIGKILL: the next start replays the WAL)
#   scripts/milvus.sh restart NAME        # start a stopped server again on its port; prints URL
#   scripts/milvus.sh stop-all            # stop every server under $STRATA_MILVUS_DIR
#   scripts/milvus.sh url NAME            # print a server's URL
#
# Servers live in $STRATA_MILVUS_DIR/NAME (default /tmp/strata-milvus/NAME): data/, port,
# pid and server.log. The URL (http://127.0.0.1:PORT) goes to stdout, progress to stderr.
#
# Milvus Lite 3.x is a Python re-implementation of Milvus's gRPC API (see docs/milvus-lite.md
# for what it does and does not do). Its server imports pymilvus's generated gRPC code, so
# pymilvus is installed with it although milvus-lite does not declare it.
set -euo pipefail

MILVUS_LITE_VERSION=3.2.2
PYMILVUS_VERSION=3.0.2
CACHE="${STRATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}"
VENV="$CACHE/venv-milvus"
BASE="${STRATA_MILVUS_DIR:-/tmp/strata-milvus}"
SERVER="$(cd "$(dirname "$0")" && pwd)/milvus_lite_server.py"

log() { echo "milvus.sh: $*" >&2; }
die() { echo "milvus.sh: error: $*" >&2; exit 1; }

installed() {
  [[ -x "$VENV/bin/python" ]] &&
    "$VENV/bin/python" -c "
import importlib.metadata as m, sys
sys.exit(m.version('milvus-lite') != '$MILVUS_LITE_VERSION' or m.version('pymilvus') != '$PYMILVUS_VERSION')
" 2>/dev/null
}

install() {
  if installed; then
    log "already installed: milvus-lite $MILVUS_LITE_VERSION, pymilvus $PYMILVUS_VERSION in $VENV"
    return
  fi
  python3 -c 'import venv, ensurepip' 2>/dev/null ||
    die "python3 with venv and ensurepip is needed (Debian: apt-get install python3-venv)"
  log "installing milvus-lite $MILVUS_LITE_VERSION and pymilvus $PYMILVUS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "milvus-lite==$MILVUS_LITE_VERSION" "pymilvus==$PYMILVUS_VERSION"
  installed || die "the install in $VENV did not take; remove it and run again"
}

url_of() { echo "http://127.0.0.1:$(cat "$BASE/$1/port")"; }

alive() { [[ -f "$BASE/$1/pid" ]] && kill -0 "$(cat "$BASE/$1/pid")" 2>/dev/null; }

launch() {
  local name=$1 port=$2 dir="$BASE/$1"
  installed || die "Milvus Lite is not installed; run scripts/milvus.sh install"
  alive "$name" && die "server $name is already running (pid $(cat "$dir/pid"))"
  mkdir -p "$dir/data"
  echo "$port" >"$dir/port"
  # setsid: the server outlives this script and its process group; stdin from /dev/null.
  # Descriptors the caller left open (a `flock` around a test run) are closed first, or the
  # server would hold them for as long as it runs.
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if ((fd > 2)); then eval "exec $fd>&-"; fi
    done
    exec setsid "$VENV/bin/python" "$SERVER" "$dir/data" "$port" </dev/null >"$dir/server.log" 2>&1
  ) &
  echo $! >"$dir/pid"
  local i
  for ((i = 0; i < 300; i++)); do
    if grep -q '^PORT ' "$dir/server.log" 2>/dev/null; then
      log "server $name ready on 127.0.0.1:$port (pid $(cat "$dir/pid"), data $dir/data)"
      url_of "$name"
      return
    fi
    alive "$name" || { cat "$dir/server.log" >&2; die "server $name exited while starting (log above)"; }
    sleep 0.1
  done
  die "server $name did not start within 30 s; see $dir/server.log"
}

stop() {
  local name=$1 signal=$2 dir="$BASE/$1"
  alive "$name" || { log "server $name is not running"; return 0; }
  local pid
  pid="$(cat "$dir/pid")"
  kill "-$signal" "$pid"
  local i
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || { log "server $name stopped ($signal)"; rm -f "$dir/pid"; return 0; }
    sleep 0.1
  done
  log "server $name did not stop within 20 s of SIG$signal; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

case "${1:-}" in
  install) install ;;
  start) [[ $# -eq 3 ]] || die "usage: start NAME PORT"; launch "$2" "$3" ;;
  restart) [[ -f "$BASE/$2/port" ]] || die "no server $2 under $BASE"; launch "$2" "$(cat "$BASE/$2/port")" ;;
  stop) stop "$2" TERM ;;
  kill) stop "$2" KILL ;;
  stop-all)
    for d in "$BASE"/*/; do
      [[ -d "$d" ]] && stop "$(basename "$d")" TERM
    done ;;
  url) url_of "$2" ;;
  *) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
