#!/usr/bin/env bash
# The web page's copy of pdf.js (crates/strata-serve/ui/vendor/pdfjs/), from the pinned npm
# tarball of pdfjs-dist, checked by its sha256.
#
# The two minified files the page needs (the library and its worker) and the licence are kept
# in the repository, so a fresh clone builds offline and the binary embeds exactly the bytes
# reviewed; this script is how they got there and how CI checks they still match the tarball.
#
# Usage: scripts/ui-assets.sh          fetch the tarball, verify it, copy the files in
#        scripts/ui-assets.sh --check  fetch and verify, and fail if the vendored files differ
# Needs curl (or npm) and tar; the tarball is cached in ${STRATA_CACHE:-~/.cache/strata}.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=5.4.624
SHA256=5c387457cd03cc2e7b9c9b1ed642e8148d1ba44c3b8e5b5b771526feb24b61b9
URL=https://registry.npmjs.org/pdfjs-dist/-/pdfjs-dist-$VERSION.tgz
FILES="build/pdf.min.mjs build/pdf.worker.min.mjs LICENSE"
DEST=crates/strata-serve/ui/vendor/pdfjs

CACHE=${STRATA_CACHE:-$HOME/.cache/strata}
TGZ=$CACHE/pdfjs-dist-$VERSION.tgz
mkdir -p "$CACHE"
if [ ! -f "$TGZ" ] || [ "$(sha256sum "$TGZ" | cut -d' ' -f1)" != "$SHA256" ]; then
  echo "== ui-assets: fetching $URL"
  if command -v curl >/dev/null; then
    curl -fsSL "$URL" -o "$TGZ.part"
  else
    (cd "$CACHE" && npm pack "pdfjs-dist@$VERSION" --silent >/dev/null && mv "pdfjs-dist-$VERSION.tgz" "$TGZ.part")
  fi
  mv "$TGZ.part" "$TGZ"
fi
GOT=$(sha256sum "$TGZ" | cut -d' ' -f1)
if [ "$GOT" != "$SHA256" ]; then
  echo "ui-assets: $TGZ has sha256 $GOT, expected $SHA256" >&2
  exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck disable=SC2086 # FILES is a list
tar -xzf "$TGZ" -C "$WORK" $(for f in $FILES; do echo "package/$f"; done)
status=0
for f in $FILES; do
  name=$(basename "$f")
  if [ "${1:-}" = "--check" ]; then
    cmp -s "$WORK/package/$f" "$DEST/$name" || { echo "ui-assets: $DEST/$name differs from pdfjs-dist $VERSION's $f" >&2; status=1; }
  else
    mkdir -p "$DEST"
    cp "$WORK/package/$f" "$DEST/$name"
  fi
done
[ "$status" = 0 ] && echo "== ui-assets: pdfjs-dist $VERSION: $(cd "$DEST" && ls | tr '\n' ' ')ok"
exit "$status"
