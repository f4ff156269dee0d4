#!/usr/bin/env bash
# small-files.sh BIN OUT [MODEL]: dense ingest throughput of one large file against the same
# text as 300 one-page files (issue 21's target: the small files reach >= 80% of the large
# file's chunks/s). The text is the two RFCs of ../shared/data/corpus/txt (RFC 3261 and RFC
# 9000), cut at line ends into 300 pieces of about 3,500 characters (a printed page); the
# large file is those pieces joined. Each case is ingested into a fresh index with BIN
# (`--model MODEL` when given) under /usr/bin/time; OUT gets the summaries, the times and
# results.tsv (chunks, seconds, chunks/s, embedding chunks/s, peak RSS).
set -euo pipefail
BIN=$(realpath "$1"); OUT=$2; MODEL=${3:-}
cd "$(dirname "$0")/../.."
CORPUS=../shared/data/corpus/txt
[[ -d $CORPUS ]] || { echo "small-files: $CORPUS is absent (the shared corpus); nothing to measure" >&2; exit 2; }
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$CORPUS" "$work" <<'PY'
import os, sys
corpus, work = sys.argv[1], sys.argv[2]
text = "".join(open(os.path.join(corpus, f), encoding="utf-8").read() for f in ("rfc3261-sip.txt", "rfc9000-quic-unpaginated.txt"))
lines = text.replace("\f", "\n").splitlines(keepends=True)
size = len(text) // 300 + 1
pieces, cur = [], []
for line in lines:
    cur.append(line)
    if sum(map(len, cur)) >= size:
        pieces.append("".join(cur)); cur = []
if cur:
    pieces.append("".join(cur))
os.makedirs(f"{work}/many"); os.makedirs(f"{work}/one")
for i, p in enumerate(pieces):
    open(f"{work}/many/page-{i:03}.txt", "w").write(p)
open(f"{work}/one/all.txt", "w").write("".join(pieces))
print(f"{len(pieces)} files of {size} characters", file=sys.stderr)
PY
printf 'case\tfiles\tchunks\tseconds\tchunks_per_s\tembed_chunks_per_s\tpeak_rss_mb\n' > "$OUT/results.tsv"
for case in one many; do
  rm -rf "$work/index"
  /usr/bin/time -f '%M %e' -o "$OUT/$case.time" \
    "$BIN" --index "$work/index" ${MODEL:+--model "$MODEL"} ingest --quiet --json "$work/$case" > "$OUT/$case.json"
  python3 - "$OUT" "$case" >> "$OUT/results.tsv" <<'PY'
import json, sys
out, case = sys.argv[1], sys.argv[2]
s = json.load(open(f"{out}/{case}.json"))
rss_kb, wall = open(f"{out}/{case}.time").read().split()[-2:]
print(f"{case}\t{s['ingested']}\t{s['chunks']}\t{float(wall):.1f}\t{s['chunks'] / float(wall):.1f}\t"
      f"{s['embedded'] / max(s['embed_seconds'], 1e-9):.1f}\t{int(rss_kb) / 1024:.0f}")
PY
done
column -t "$OUT/results.tsv"
python3 - "$OUT/results.tsv" <<'PY'
import csv, sys
rows = {r["case"]: r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t")}
print(f"many/one chunks/s: {float(rows['many']['chunks_per_s']) / float(rows['one']['chunks_per_s']):.2f}")
PY
