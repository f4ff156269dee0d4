#!/usr/bin/env bash
# Ingests each hostile input of issues 53 and 55 (scripts/bench/bombs.py writes them) alone into a
# fresh index with a release build, and prints its wall time, peak RSS and exit status
# (`/usr/bin/time -v`). Each run is held to TIMEOUT seconds (default 300) and MEMORY_GB of
# address space (default 8), so that a bomb fails instead of taking the machine.
#
# Usage: [BOMBS="headings.md …"] scripts/bench/bombs.sh [BIN] [OCR]
#        BIN: default target/release/strata; OCR: the
#        [ingest] ocr mode, default auto (the image bombs are read only by OCR)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${1:-target/release/strata}")
OCR=${2:-auto}
TIMEOUT=${TIMEOUT:-300}
MEMORY_GB=${MEMORY_GB:-8}
[ -x /usr/bin/time ] || { echo "bombs: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/strata-bombs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
python3 scripts/bench/bombs.py "$WORK/in" >/dev/null
echo "strata: $("$BIN" --version 2>/dev/null || echo "$BIN"), ocr = $OCR, $(nproc) cores, limits ${TIMEOUT}s and ${MEMORY_GB} GB"
printf '%-16s %10s %9s %12s %5s  %s\n' bomb bytes seconds "peak MB" rc "last line"
for f in ${BOMBS:-content-ops.pdf image-huge.pdf page-huge.pdf speckles.pdf headings.md outline.docx backticks.md}; do
  rm -rf "$WORK/index"
  set +e
  (
    ulimit -v $((MEMORY_GB * 1024 * 1024))
    STRATA_DENSE_ENABLED=false STRATA_INGEST_OCR=$OCR timeout "$TIMEOUT" \
      /usr/bin/time -v -o "$WORK/time" "$BIN" --index "$WORK/index" ingest "$WORK/in/$f" >"$WORK/out" 2>&1
  )
  rc=$?
  set -e
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$WORK/time" 2>/dev/null || echo "?")
  peak=$(awk -F': ' '/Maximum resident set size/ {printf "%d", $2/1024}' "$WORK/time" 2>/dev/null || echo "?")
  last=$(grep -v '^\s*$' "$WORK/out" | tail -n 1 | cut -c1-150 || true)
  printf '%-16s %10s %9s %12s %5s  %s\n' "$f" "$(stat -c %s "$WORK/in/$f")" "${secs:-?}" "${peak:-?}" "$rc" "$last"
done
