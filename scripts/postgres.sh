#!/usr/bin/env bash
# PostgreSQL 15 + pgvector for CI and tests: installs them, and runs private throwaway clusters
# on loopback (trust auth, no passwords), outside the system's /etc/postgresql clusters.
#
#   scripts/postgres.sh install                          # apt PostgreSQL 15, build pgvector
#   scripts/postgres.sh start NAME PORT                  # create if absent, start; prints URL
#   scripts/postgres.sh replica NAME PORT PRIMARY_PORT   # streaming hot standby; prints URL
#   scripts/postgres.sh stop NAME                        # clean shutdown (pg_ctl -m fast)
#   scripts/postgres.sh kill NAME                        # crash-like stop (pg_ctl -m immediate)
#   scripts/postgres.sh restart NAME                     # start a stopped cluster; prints URL
#   scripts/postgres.sh stop-all                         # stop every cluster (replicas first)
#   scripts/postgres.sh status                           # list clusters, ports, roles, state
#   scripts/postgres.sh url NAME                         # print a cluster's URL
#   scripts/postgres.sh remove NAME                      # stop (immediate) and delete a cluster
#
# Clusters live in $STRATA_PG_DIR/NAME (default /tmp/strata-pg/NAME): data/ (PGDATA),
# server.log, and the Unix socket. They belong to the `postgres` OS user (initdb, pg_ctl and
# pg_basebackup refuse to run as root, so the script, run as root, drops to postgres for them;
# it also works when run as postgres itself). Each listens on 127.0.0.1:PORT only and has a
# database `strata` owned by `postgres`; the URL is postgres://postgres@127.0.0.1:PORT/strata.
# The URL goes to stdout (`url=$(scripts/postgres.sh start primary 55432)`), progress to stderr.
#
# `install` needs root. Debian 12 has no pgvector package, so it builds the source package of
# the next Debian release (trixie's pgvector 0.8.x builds against PostgreSQL 15), fetched with
# `apt-get source` through a private sources list and private apt state under the cache
# ($STRATA_CACHE, else $XDG_CACHE_HOME/strata, else ~/.cache/strata): the system's apt
# sources, lists and candidates stay bookworm. It does nothing when vector.control is there.
set -euo pipefail

PG_MAJOR=15
PGBIN="/usr/lib/postgresql/$PG_MAJOR/bin"
PG_CONFIG="$PGBIN/pg_config"
VECTOR_CONTROL="/usr/share/postgresql/$PG_MAJOR/extension/vector.control"
BASE="${STRATA_PG_DIR:-/tmp/strata-pg}"
CACHE="${STRATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}"
DEBIAN_MIRROR="${STRATA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PGVECTOR_SUITE="${STRATA_PGVECTOR_SUITE:-trixie}"
# Debian packages `install` makes sure of: the server, the headers and PGXS for building
# extensions (these pull clang-14/llvm-14 for the JIT bitcode), a compiler and make, and
# dpkg-dev, whose dpkg-source unpacks what `apt-get source` downloads.
APT_PACKAGES=("postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev)

# The clusters are addressed explicitly (-h/-p/-U/-D); PG* variables from the caller's
# environment (PGHOST, PGPORT, PGDATA, PGOPTIONS, ...) must not redirect or alter them.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^PG' || true)

log() { echo "postgres.sh: $*" >&2; }
die() { echo "postgres.sh: error: $*" >&2; exit 1; }

usage() {
  cat <<EOF
usage: scripts/postgres.sh COMMAND [ARGS]
  install                          install PostgreSQL $PG_MAJOR and build pgvector (root; idempotent)
  start NAME PORT                  create (if absent) and start cluster NAME on 127.0.0.1:PORT
  replica NAME PORT PRIMARY_PORT   hot-standby replica of the cluster on PRIMARY_PORT, on PORT
  stop NAME                        stop cluster NAME (pg_ctl stop -m fast)
  kill NAME                        crash-stop cluster NAME (pg_ctl stop -m immediate)
  restart NAME                     start the existing, stopped cluster NAME again
  stop-all                         stop every cluster under $BASE
  status                           list the clusters under $BASE
  url NAME                         print the URL of cluster NAME
  remove NAME                      stop cluster NAME (immediate) and delete its directory
Clusters: \$STRATA_PG_DIR/NAME (now $BASE). Cache: \$STRATA_CACHE (now $CACHE).
EOF
}

# run CMD...: print a command, run it, and fail with its exit status named.
run() {
  log "+ $*"
  local rc=0
  "$@" || rc=$?
  [[ $rc -eq 0 ]] || die "command failed (exit $rc): $*"
}

# take_lock FILE: holds an exclusive flock on FILE until the script exits. The descriptor is
# LOCK_FD; commands that leave processes behind (a postmaster, services that apt starts) run
# through unlocked, or those would hold the lock forever (and so would a lock the caller
# holds, such as a `flock` around a test run).
LOCK_FD=""
take_lock() {
  exec {LOCK_FD}>"$1"
  flock "$LOCK_FD"
}

# unlocked CMD...: CMD without any descriptor above stderr: not this script's lock, nor one the
# caller left open.
unlocked() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if ((fd > 2)); then eval "exec $fd>&-"; fi
    done
    "$@"
  )
}

# as_postgres CMD...: run CMD as the postgres OS user, from / (root's cwd may be unreadable to
# postgres, which makes initdb and pg_ctl complain).
as_postgres() {
  if [[ $EUID -eq 0 ]]; then
    (cd / && runuser -u postgres -- "$@")
  elif [[ "$(id -un)" == postgres ]]; then
    (cd / && "$@")
  else
    die "run this as root (or as the postgres user): it manages clusters owned by postgres"
  fi
}

# ---------------------------------------------------------------------------------------------
# install

pkg_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" == installed ]]
}

install_packages() {
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do pkg_installed "$pkg" || missing+=("$pkg"); done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "Debian packages present: ${APT_PACKAGES[*]}"
    return
  fi
  log "missing Debian packages: ${missing[*]}"
  # All of them are named (not only the missing ones) so that postgresql-15 is brought to the
  # same minor version as the postgresql-server-dev-15 that gets installed.
  run apt-get update
  DEBIAN_FRONTEND=noninteractive unlocked run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

# Fetches the pgvector source package of $PGVECTOR_SUITE into CACHE/pgvector-src, builds it
# against PostgreSQL 15 and installs it.
build_pgvector() {
  local aptdir="$CACHE/apt-$PGVECTOR_SUITE" srcroot="$CACHE/pgvector-src"
  mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/sources.list.d" \
    "$srcroot"
  # Only a deb-src line: nothing from this list can ever be installed, even by accident.
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $PGVECTOR_SUITE main" \
    >"$aptdir/sources.list"
  # Private sources list (and an empty sources.list.d), private lists and cache. apt.conf.d
  # still applies (proxies etc.). Downloads run as root: _apt cannot enter ~/.cache of root.
  local apt_opts=(
    -o "Dir::Etc::SourceList=$aptdir/sources.list"
    -o "Dir::Etc::SourceParts=$aptdir/sources.list.d"
    -o "Dir::State::Lists=$aptdir/lists"
    -o "Dir::Cache=$aptdir/cache"
    -o "APT::Sandbox::User=root"
  )
  log "fetching the pgvector source package from Debian $PGVECTOR_SUITE ($DEBIAN_MIRROR), private apt state in $aptdir"
  run apt-get "${apt_opts[@]}" update
  # A fresh unpack each time (the downloaded .dsc/.tar files are kept and reused by apt).
  rm -rf "$srcroot"/pgvector-*/
  (cd "$srcroot" && run apt-get "${apt_opts[@]}" source pgvector)
  local srcdir
  srcdir="$(find "$srcroot" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | sort -V | tail -n1)"
  [[ -n "$srcdir" && -f "$srcdir/Makefile" ]] \
    || die "apt-get source pgvector left no pgvector-*/Makefile under $srcroot"
  log "building $(basename "$srcdir") against $("$PG_CONFIG" --version) in $srcdir"
  # Debian's no-native patch drops upstream's -march=native, so the build is portable.
  run make -C "$srcdir" PG_CONFIG="$PG_CONFIG" clean
  run make -C "$srcdir" -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
  run make -C "$srcdir" PG_CONFIG="$PG_CONFIG" install
  [[ -f "$VECTOR_CONTROL" ]] || die "make install did not produce $VECTOR_CONTROL"
}

pgvector_version() {
  sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$VECTOR_CONTROL"
}

cmd_install() {
  if [[ -f "$VECTOR_CONTROL" && -x "$PGBIN/postgres" ]]; then
    log "already installed: $("$PGBIN/postgres" --version), pgvector $(pgvector_version)"
    return
  fi
  [[ $EUID -eq 0 ]] || die "install needs root (apt-get install, make install)"
  mkdir -p "$CACHE"
  # Two concurrent installs would fight over apt and the build dir.
  take_lock "$CACHE/postgres-install.lock"
  if [[ -f "$VECTOR_CONTROL" && -x "$PGBIN/postgres" ]]; then
    log "installed meanwhile by another run"
    return
  fi
  install_packages
  [[ -x "$PG_CONFIG" ]] || die "$PG_CONFIG missing after installing ${APT_PACKAGES[*]}"
  [[ -f "$VECTOR_CONTROL" ]] || build_pgvector
  log "installed: $("$PGBIN/postgres" --version), pgvector $(pgvector_version)"
}

# ---------------------------------------------------------------------------------------------
# clusters

require_postgres() {
  [[ -x "$PGBIN/pg_ctl" ]] || die "PostgreSQL $PG_MAJOR is not installed ($PGBIN/pg_ctl missing): run scripts/postgres.sh install"
  id postgres >/dev/null 2>&1 || die "no postgres OS user: run scripts/postgres.sh install"
  [[ -f "$VECTOR_CONTROL" ]] || log "warning: pgvector is not installed (run scripts/postgres.sh install)"
}

check_name() {
  [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9_-]*$ ]] || die "bad cluster name '$1' (letters, digits, _ and -)"
}

check_port() {
  if ! [[ "$1" =~ ^[1-9][0-9]{3,4}$ ]] || (("$1" > 65535)); then
    die "bad port '$1' (1024-65535)"
  fi
  (("$1" >= 1024)) || die "bad port '$1' (1024-65535)"
}

url() { echo "postgres://postgres@127.0.0.1:$1/strata"; }

# The base directory belongs to postgres, and postgres must be able to reach it.
ensure_base() {
  if [[ ! -d "$BASE" ]]; then
    mkdir -p "$BASE"
    [[ $EUID -ne 0 ]] || chown postgres:postgres "$BASE"
  fi
  as_postgres test -w "$BASE" -a -x "$BASE" \
    || die "the postgres user cannot write to $BASE (is a parent directory closed to it?)"
}

# lock_cluster NAME: serializes commands on one cluster (two `start`s at once, say).
lock_cluster() { take_lock "$BASE/.$1.lock"; }

is_cluster() { [[ -f "$BASE/$1/data/PG_VERSION" ]]; }
is_standby() { [[ -f "$BASE/$1/data/standby.signal" ]]; }
require_cluster() { is_cluster "$1" || die "no cluster '$1' under $BASE"; }

# is_running NAME: the postmaster of NAME is up (pg_ctl status: 0 running, 3 stopped).
is_running() {
  as_postgres "$PGBIN/pg_ctl" status -D "$BASE/$1/data" >/dev/null 2>&1
}

# conf_port NAME: the port NAME is configured for (written by write_conf).
conf_port() {
  sed -n 's/^port = \([0-9][0-9]*\)$/\1/p' "$BASE/$1/data/strata.conf" 2>/dev/null | tail -n1
}

# running_port NAME: the port of the running postmaster (line 4 of postmaster.pid).
running_port() {
  sed -n 4p "$BASE/$1/data/postmaster.pid" 2>/dev/null
}

# write_conf NAME PORT: the settings of this script, rewritten on every start (a replica's copy
# comes from its primary and gets its own port and socket here). postgresql.conf includes it;
# postgresql.auto.conf (ALTER SYSTEM, pg_basebackup -R) still overrides it.
write_conf() {
  local name="$1" port="$2" dir="$BASE/$1"
  cat >"$dir/data/strata.conf" <<EOF
# Written by scripts/postgres.sh at each start: change the script, not this file.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
cluster_name = 'strata-$name'
max_connections = 200
# Streaming replication (replicas made with pg_basebackup; no slots, WAL kept instead).
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
wal_keep_size = '256MB'
hot_standby = on
# Durable as usual: crash tests (scripts/postgres.sh kill) rely on it.
fsync = on
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
EOF
  [[ $EUID -ne 0 ]] || chown postgres:postgres "$dir/data/strata.conf"
}

# Trust for local sockets and 127.0.0.1, for normal and replication connections.
write_hba() {
  cat >"$1/pg_hba.conf" <<'EOF'
# Written by scripts/postgres.sh: test clusters, loopback only, no passwords.
# TYPE  DATABASE     USER  ADDRESS        METHOD
local   all          all                  trust
host    all          all   127.0.0.1/32   trust
local   replication  all                  trust
host    replication  all   127.0.0.1/32   trust
EOF
  [[ $EUID -ne 0 ]] || chown postgres:postgres "$1/pg_hba.conf"
}

psql_at() {
  local port="$1"; shift
  "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"
}

# launch NAME: start the postmaster of NAME on its configured port and wait until it is ready
# (a primary accepts connections; a standby accepts read-only ones).
launch() {
  local name="$1" dir="$BASE/$1" port
  port="$(conf_port "$name")"
  [[ -n "$port" ]] || die "no port in $dir/data/strata.conf"
  # pg_isready: 0 accepting, 1 rejecting (starting up), 2 no response.
  local rc=0
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2 || rc=$?
  [[ $rc -ge 2 ]] || die "port $port is taken by another PostgreSQL server (scripts/postgres.sh status)"
  log "starting '$name' on 127.0.0.1:$port (log: $dir/server.log)"
  if ! unlocked as_postgres "$PGBIN/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t 120 >&2; then
    tail -n 30 "$dir/server.log" >&2 || true
    die "cluster '$name' did not start on port $port (log above: $dir/server.log)"
  fi
  local i
  for ((i = 0; i < 120; i++)); do
    "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres && break
    sleep 0.5
  done
  "$PGBIN/pg_isready" -h 127.0.0.1 -p "$port" -U postgres -d postgres >&2 \
    || die "cluster '$name' is not ready on port $port (see $dir/server.log)"
  if is_standby "$name"; then
    # pg_ctl -w already waits for a hot standby to take connections; check it is read-only.
    local rec=""
    for ((i = 0; i < 120; i++)); do
      rec="$(psql_at "$port" -d postgres -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null || true)"
      [[ "$rec" == t ]] && break
      sleep 0.5
    done
    [[ "$rec" == t ]] || die "replica '$name' on port $port does not accept read-only connections"
  fi
}

# ensure_db PORT: the database `strata`, owned by postgres (a replica gets it from its primary).
ensure_db() {
  local port="$1"
  if [[ -z "$(psql_at "$port" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'strata'")" ]]; then
    run "$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U postgres -O postgres strata
  fi
}

# already_running NAME PORT: true (and prints nothing) when NAME runs on PORT; dies when it
# runs on another port; false when it is stopped.
already_running() {
  is_running "$1" || return 1
  local running
  running="$(running_port "$1")"
  [[ "$running" == "$2" ]] || die "cluster '$1' is already running on port $running, not $2"
  log "cluster '$1' is already running on port $2"
}

cmd_start() {
  local name="$1" port="$2" dir="$BASE/$1"
  check_name "$name"; check_port "$port"; require_postgres; ensure_base; lock_cluster "$name"
  if ! is_cluster "$name"; then
    [[ ! -e "$dir/data" ]] || die "$dir/data exists but is no cluster: remove it (scripts/postgres.sh remove $name)"
    mkdir -p "$dir"
    [[ $EUID -ne 0 ]] || chown postgres:postgres "$dir"
    chmod 0755 "$dir"
    log "creating cluster '$name' in $dir/data"
    if ! as_postgres "$PGBIN/initdb" -D "$dir/data" --auth=trust --username=postgres \
      --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
      cat "$dir/initdb.log" >&2
      rm -rf "$dir/data"
      die "initdb failed for '$name' (output above)"
    fi
    write_hba "$dir/data"
    echo "include_if_exists = 'strata.conf'" >>"$dir/data/postgresql.conf"
  fi
  is_standby "$name" && die "cluster '$name' is a replica: use 'replica' or 'restart'"
  if ! already_running "$name" "$port"; then
    write_conf "$name" "$port"
    launch "$name"
  fi
  ensure_db "$port"
  url "$port"
}

cmd_replica() {
  local name="$1" port="$2" primary="$3" dir="$BASE/$1"
  check_name "$name"; check_port "$port"; check_port "$primary"
  [[ "$port" != "$primary" ]] || die "the replica needs a port of its own"
  require_postgres; ensure_base; lock_cluster "$name"
  if is_cluster "$name"; then
    is_standby "$name" || die "cluster '$name' exists and is not a replica"
    grep -q "port=${primary}[ ']" "$dir/data/postgresql.auto.conf" \
      || die "replica '$name' follows another primary than port $primary (see $dir/data/postgresql.auto.conf)"
  else
    [[ ! -e "$dir/data" ]] || die "$dir/data exists but is no cluster: remove it (scripts/postgres.sh remove $name)"
    "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$primary" -U postgres -d postgres \
      || die "no primary accepting connections on 127.0.0.1:$primary"
    mkdir -p "$dir"
    [[ $EUID -ne 0 ]] || chown postgres:postgres "$dir"
    chmod 0755 "$dir"
    log "base backup of 127.0.0.1:$primary into $dir/data"
    # -R: standby.signal + primary_conninfo; -X stream: WAL during the backup comes along;
    # -c fast: checkpoint at once instead of spread out.
    if ! as_postgres "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -w \
      -D "$dir/data" -R -X stream -c fast >&2; then
      rm -rf "$dir/data"
      die "pg_basebackup from port $primary failed"
    fi
  fi
  if ! already_running "$name" "$port"; then
    write_conf "$name" "$port"
    launch "$name"
  fi
  url "$port"
}

# halt NAME MODE: pg_ctl stop -m MODE, if running.
halt() {
  local name="$1" mode="$2"
  if ! is_running "$name"; then
    log "cluster '$name' is not running"
    return
  fi
  log "stopping '$name' (-m $mode)"
  as_postgres "$PGBIN/pg_ctl" stop -D "$BASE/$name/data" -m "$mode" -w -t 120 >&2 \
    || die "pg_ctl stop -m $mode failed for '$name' (see $BASE/$name/server.log)"
}

cmd_stop() {
  check_name "$1"; require_postgres; require_cluster "$1"; lock_cluster "$1"
  halt "$1" fast
}

cmd_kill() {
  check_name "$1"; require_postgres; require_cluster "$1"; lock_cluster "$1"
  halt "$1" immediate
}

cmd_restart() {
  local name="$1" port
  check_name "$name"; require_postgres; require_cluster "$name"; lock_cluster "$name"
  port="$(conf_port "$name")"
  [[ -n "$port" ]] || die "no port in $BASE/$name/data/strata.conf"
  if ! already_running "$name" "$port"; then
    launch "$name"
  fi
  is_standby "$name" || ensure_db "$port"
  url "$port"
}

# clusters: the names of the clusters under BASE, replicas first (so that stop-all does not
# leave replicas retrying a primary that is gone).
clusters() {
  local d name pass
  for pass in standby primary; do
    for d in "$BASE"/*/data/PG_VERSION; do
      [[ -e "$d" ]] || continue
      name="$(basename "$(dirname "$(dirname "$d")")")"
      if is_standby "$name"; then [[ $pass == standby ]] && echo "$name"
      else [[ $pass == primary ]] && echo "$name"; fi
    done
  done
}

cmd_stop_all() {
  require_postgres
  local name any=0 failed=()
  while read -r name; do
    any=1
    # One failure does not keep the others running; it is reported at the end.
    (lock_cluster "$name"; halt "$name" fast) || failed+=("$name")
  done < <(clusters)
  [[ $any -eq 1 ]] || log "no clusters under $BASE"
  [[ ${#failed[@]} -eq 0 ]] || die "could not stop: ${failed[*]}"
}

cmd_status() {
  require_postgres
  local name role state
  printf '%-16s %-6s %-8s %-8s %s\n' NAME PORT ROLE STATE URL
  while read -r name; do
    if is_standby "$name"; then role=replica; else role=primary; fi
    if is_running "$name"; then state=running; else state=stopped; fi
    printf '%-16s %-6s %-8s %-8s %s\n' "$name" "$(conf_port "$name")" "$role" "$state" \
      "$(url "$(conf_port "$name")")"
  done < <(clusters)
}

cmd_url() {
  check_name "$1"; require_cluster "$1"
  url "$(conf_port "$1")"
}

cmd_remove() {
  local name="$1"
  check_name "$name"; require_postgres
  [[ -d "$BASE/$name" ]] || { log "no cluster '$name' under $BASE"; return; }
  lock_cluster "$name"
  ! is_cluster "$name" || halt "$name" immediate
  log "removing $BASE/$name"
  rm -rf "${BASE:?}/$name"
}

# ---------------------------------------------------------------------------------------------

# want N ARGS...: the command got exactly N arguments.
want() {
  local n="$1"; shift
  [[ $# -eq $n ]] || { usage >&2; exit 2; }
}

cmd="${1:-}"
[[ $# -eq 0 ]] || shift
case "$cmd" in
  install) want 0 "$@"; cmd_install ;;
  start) want 2 "$@"; cmd_start "$@" ;;
  replica) want 3 "$@"; cmd_replica "$@" ;;
  stop) want 1 "$@"; cmd_stop "$@" ;;
  kill) want 1 "$@"; cmd_kill "$@" ;;
  restart) want 1 "$@"; cmd_restart "$@" ;;
  stop-all) want 0 "$@"; cmd_stop_all ;;
  status) want 0 "$@"; cmd_status ;;
  url) want 1 "$@"; cmd_url "$@" ;;
  remove) want 1 "$@"; cmd_remove "$@" ;;
  help | -h | --help) usage ;;
  *)
    [[ -z "$cmd" ]] || echo "postgres.sh: unknown command '$cmd'" >&2
    usage >&2
    exit 2
    ;;
esac
