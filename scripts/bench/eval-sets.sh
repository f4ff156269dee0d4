#!/bin/bash
# eval-sets.sh BIN OUT [SET...]: runs BIN's `strata eval` on the shared sets with the grids of
# bench/results/eval (anthropic, chroma, finance; all three by default), each into OUT/SET,
# its index in OUT-idx-SET (removed after), its log in OUT.SET.log and its wall time in
# OUT.times. Compare two runs with scripts/bench/compare-metrics.py. MODEL=NAME embeds with
# that model (`--model`, e.g. all-MiniLM-L6-v2-static) instead of the default.
set -u
BIN=$1; OUT=$2; shift 2
SETS=${*:-anthropic chroma finance}
cd "$(dirname "$0")/../.."
for s in $SETS; do
  case $s in
    anthropic) args="../shared/data/eval/anthropic-codebase --chunking given,auto --context none,structural";;
    chroma) args="../shared/data/eval/chroma-chunking --chunking auto,128,256";;
    finance) args="../shared/data/eval/financebench-dev/queries.jsonl --context none,structural";;
    *) echo "unknown set $s: anthropic, chroma or finance" >&2; exit 2;;
  esac
  start=$(date +%s)
  # shellcheck disable=SC2086
  nice -n 10 "$BIN" ${MODEL:+--model "$MODEL"} eval $args --out "$OUT/$s" --index-dir "$OUT-idx-$s" > "$OUT.$s.log" 2>&1
  echo "$s rc=$? $(( $(date +%s) - start ))s" >> "$OUT.times"
  rm -rf "$OUT-idx-$s"
done
