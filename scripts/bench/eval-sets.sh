#!/bin/bash
# eval-sets.sh BIN OUT [SET...]: runs BIN's `strata eval` on the shared sets, each into
# OUT/SET (its index in OUT-idx-SET, removed after; its log in OUT.SET.log; its wall time in
# OUT.times), then writes OUT/summary.md and OUT/summary.json (scripts/bench/suite-summary.py).
# BIN and OUT may be relative to where it is started. It exits 1 when a set (or the summary)
# failed, after running the others.
#
# SET is anthropic, chroma, finance, cuad or qasper; all five by default.
#
# GRID=suite (the default) runs every set the same way: `auto` chunking, the structural
# context (`strata ingest`'s default) and the suite's strategies, SUITE_STRATEGIES, by
# default the default mode (hierarchical), flat hybrid, hybrid without the document leg,
# dense and keyword. GRID=full runs the older per-set grids of bench/results/eval
# (anthropic: given,auto x none,structural; chroma: auto,128,256; finance: none,structural).
#
# Vectors are shared between runs through VECTOR_CACHE (default ~/.cache/strata/eval-vectors;
# VECTOR_CACHE=off embeds everything): a second run after a ranking-only change embeds
# nothing. MODEL=NAME embeds with that model (`--model`, e.g. all-MiniLM-L6-v2-static).
# Compare two runs with scripts/bench/compare-metrics.py OUT1/SET/report.json OUT2/SET/report.json.
# For comparisons, set STRATA_DENSE_ANN_THRESHOLD=10000000: dense search is then exact on
# every set, and two runs of one binary give the same numbers (the HNSW graph of
# financebench-dev and cuad, built on several threads, is not the same graph twice and moved
# financebench-dev's dense row by .02 between two runs; bench/results/eval/suite/README.md).
set -u
if [ $# -lt 2 ]; then
  echo "usage: eval-sets.sh BIN OUT [SET...]" >&2
  exit 2
fi
# Both are taken from where the script was started, before it moves to the repository root.
BIN=$1; OUT=$(realpath -m -- "$2"); shift 2
case $BIN in */*) BIN=$(realpath -- "$BIN");; esac
SETS=${*:-anthropic chroma finance cuad qasper}
GRID=${GRID:-suite}
SUITE_STRATEGIES=${SUITE_STRATEGIES:-hierarchical,hybrid,hybrid@documents=0,dense,keyword}
VECTOR_CACHE=${VECTOR_CACHE:-${STRATA_CACHE:-$HOME/.cache/strata}/eval-vectors}
cd "$(dirname "$0")/../.."
data=../shared/data/eval
if [ ! -d "$data" ]; then
  echo "eval-sets: $data is absent; the shared evaluation sets are needed" >&2
  exit 2
fi
mkdir -p "$OUT"
failed=""
cache_args=()
[ "$VECTOR_CACHE" != off ] && cache_args=(--vector-cache "$VECTOR_CACHE")
for s in $SETS; do
  case $s in
    anthropic) input=$data/anthropic-codebase;;
    chroma) input=$data/chroma-chunking;;
    finance) input=$data/financebench-dev/queries.jsonl;;
    cuad) input=$data/cuad/queries.jsonl;;
    qasper) input=$data/qasper/queries.jsonl;;
    *) echo "unknown set $s: anthropic, chroma, finance, cuad or qasper" >&2; exit 2;;
  esac
  case $GRID:$s in
    suite:*) grid="--chunking auto --context structural --strategies $SUITE_STRATEGIES";;
    full:anthropic) grid="--chunking given,auto --context none,structural";;
    full:chroma) grid="--chunking auto,128,256";;
    full:*) grid="--context none,structural";;
    *) echo "unknown GRID $GRID: suite or full" >&2; exit 2;;
  esac
  start=$(date +%s)
  # shellcheck disable=SC2086
  nice -n 10 "$BIN" ${MODEL:+--model "$MODEL"} eval "$input" $grid "${cache_args[@]}" \
    --out "$OUT/$s" --index-dir "$OUT-idx-$s" > "$OUT.$s.log" 2>&1
  rc=$?
  echo "$s rc=$rc $(( $(date +%s) - start ))s" >> "$OUT.times"
  if [ "$rc" -ne 0 ]; then
    echo "eval-sets: $s failed (rc $rc); its log is $OUT.$s.log" >&2
    failed="$failed $s"
  fi
  rm -rf "$OUT-idx-$s"
done
python3 scripts/bench/suite-summary.py "$OUT" $SETS || failed="$failed summary"
if [ -n "$failed" ]; then
  echo "eval-sets: failed:$failed" >&2
  exit 1
fi
