#!/usr/bin/env bash
# Fuzzes the readers for a bounded time, each input within the fuzz budget: 256 MB of memory
# (-rss_limit_mb, -malloc_limit_mb) and 2 s (-timeout). An input over a budget is a finding,
# like a crash: libFuzzer writes it to fuzz/artifacts/<target>/ (oom-…, timeout-…, crash-…).
#
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
#   SECONDS per target (default 60); targets: read_markdown read_html read_text read_pdf
#   read_docx (default all).
#
# Builds on stable Rust, without cargo-fuzz: the flags cargo-fuzz passes with
# `--sanitizer none` (README.md), into fuzz/target/. The first build compiles strata-ingest's
# dependencies with coverage instrumentation (about 12 minutes on 2 cores). Lays the seeds
# first (seed.sh); the corpus each run grows stays in fuzz/corpus/ (never committed), and
# `cargo test -p strata-ingest --test fuzz_budgets` replays it on a normal build with the same
# budgets. Exits 1 when a target found anything.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(read_markdown read_html read_text read_pdf read_docx)
triple=$(rustc -vV | sed -n 's/^host: //p')

cd "$here"
RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Coverflow-checks -Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares" \
  cargo build --release --locked --bins --target "$triple"
"$here/seed.sh"

found=0
for target in "${targets[@]}"; do
  mkdir -p "artifacts/$target" "corpus/$target"
  before=$(find "artifacts/$target" -type f | wc -l)
  echo "== $target: ${seconds}s, 256 MB and 2 s per input"
  set +e
  "target/$triple/release/$target" "corpus/$target" -max_total_time="$seconds" \
    -rss_limit_mb=256 -malloc_limit_mb=256 -timeout=2 -max_len=65536 \
    -artifact_prefix="artifacts/$target/" -print_final_stats=1 2>"artifacts/$target.log"
  rc=$?
  set -e
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+ +DONE|ERROR|SUMMARY" "artifacts/$target.log" || true
  after=$(find "artifacts/$target" -type f | wc -l)
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
    echo "$target found $((after - before)) input(s) (rc $rc): fuzz/artifacts/$target/, log fuzz/artifacts/$target.log"
    found=1
  fi
done
exit $found
