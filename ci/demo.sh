#!/usr/bin/env bash
# README command 1: set up, build, and run the analyzer on the example inputs.
# About 6 min on 2 cores once ci/setup.sh has run (the build, then 46 s); each phase prints its
# elapsed time.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
ci_phase "setup (ci/setup.sh)"
ci/setup.sh
ci_phase "build (ci/build.sh)"
ci/build.sh >/dev/null
ci_phase "syncwatch-lint over test_inputs/static"
echo "== syncwatch-lint over test_inputs/static (files without per-file flags) =="
files=()
for f in test_inputs/static/*.cu; do
  head8="$(head -8 "$f")"
  grep -q "clang-flags:" <<<"$head8" || files+=("$f")
done
report="$(mktemp /tmp/syncwatch-demo.XXXXXX.json)"
ci_at_exit 'rm -f "$report"'
set +e
build/analyzer/syncwatch-lint -j2 "${files[@]}" --
rc=$?
set -e
echo "== exit code $rc (0 clean, 1 findings, 2 tool error) =="
ci_phase "clang-tidy-22 with the plugin"
echo "== the same through clang-tidy-22 with the plugin, on one file =="
clang-tidy-22 --load=build/analyzer/libsyncwatch-tidy.so --checks='-*,syncwatch-*' --quiet \
  test_inputs/static/bs_pos_stream_create_with_memcpy.cu -- \
  --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda --cuda-gpu-arch=sm_90 \
  -isystem /usr/local/cuda/include/cccl 2>&1 | grep -v "warnings generated"
# The summary: the same files' findings as JSON (findings per rule, the busiest files).
ci_phase "summary (the same run as JSON)"
build/analyzer/syncwatch-lint -j2 --format=json --output="$report" "${files[@]}" -- 2>/dev/null || [ $? -le 1 ]
python3 ci/demo_summary.py "$report" "$PWD"
[ "$rc" -le 1 ]
