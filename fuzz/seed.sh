#!/usr/bin/env bash
# Lays the seed corpora of the fuzz targets under fuzz/corpus/<target>/ (never committed):
#
# - small files of the shared test corpus (shared/data/corpus beside the repository, or
#   $STRATA_CORPUS): every file up to 300 KB for Markdown, HTML and plain text, the two
#   smallest up to 300 KB for DOCX and PDF;
# - the tiny inputs of fuzz/seeds/ (committed), which the fuzzer mutates much faster than
#   whole documents; tests/fuzz_budgets.rs in strata-ingest replays them on stable Rust.
#
# Files already there (found by the fuzzer) are kept. Run from anywhere.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${STRATA_CORPUS:-$here/../../shared/data/corpus}"
out="$here/corpus"
max=$((300 * 1024))

[ -d "$src" ] || { echo "seed.sh: no corpus at $src (set STRATA_CORPUS)" >&2; exit 1; }

# copy DIR TARGET [LIMIT]: files of $src/DIR up to $max bytes, smallest first, at most LIMIT.
copy() {
    local dir=$1 target=$2 limit=${3:-1000000} n=0 size file
    mkdir -p "$out/$target"
    while read -r size file; do
        [ "$size" -le "$max" ] || continue
        [ "$n" -lt "$limit" ] || break
        install -m 0644 "$file" "$out/$target/"
        n=$((n + 1))
    done < <(find "$src/$dir" -maxdepth 1 -type f -printf '%s %p\n' | sort -n)
    echo "read_${target#read_}: $n file(s) from $dir"
}

copy markdown read_markdown
copy html read_html
copy txt read_text
copy docx read_docx 2
copy pdf read_pdf 2

# The tiny inputs committed under fuzz/seeds/<target>/ (short markup, RFC-style text, a
# two-page PDF with a font, outline and page labels, a DOCX with styles, numbering, a footnote
# and a table), which the fuzzer mutates much faster than whole documents.
for dir in "$here"/seeds/*/; do
    target=$(basename "$dir")
    mkdir -p "$out/$target"
    install -m 0644 "$dir"* "$out/$target/"
done
echo "every target: the tiny seeds of fuzz/seeds/"
