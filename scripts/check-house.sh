#!/usr/bin/env bash
# Checks the house's layering, which no compiler checks:
# - the query side (strata-search) and the hosted models (strata-providers) link no reader and
#   no model runtime: `cargo tree -e normal` of each lists none of the crates below;
# - no two files of a crate import each other, directly or round a loop
#   (scripts/file-cycles.py);
# - no function in crates/*/src is over 100 lines (scripts/long-functions.py).
# scripts/test.sh runs it; it exits 1 naming what broke the rule.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
for crate in strata-search:'lopdf|zip|html5ever|scraper|ort|ureq|tokenizers|tiktoken-rs|strata-ingest|strata-embed' \
  strata-providers:'lopdf|zip|html5ever|scraper|ort|tokenizers|tiktoken-rs|strata-ingest|strata-embed'; do
  name="${crate%%:*}" banned="^(${crate#*:}) v"
  found="$(cargo tree --locked -p "$name" -e normal --prefix none | sort -u | grep -E "$banned" || true)"
  if [[ -n "$found" ]]; then
    echo "$name links what it must not (its normal dependencies):" >&2
    echo "$found" | sed 's/^/  /' >&2
    status=1
  else
    echo "$name: no reader, no model runtime"
  fi
done
python3 scripts/file-cycles.py || status=1
python3 scripts/long-functions.py || status=1
exit "$status"
