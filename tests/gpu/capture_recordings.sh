#!/usr/bin/env bash
# Issue 38's GPU session: the recordings of every graph-capture failure class and the
# readiness figures of a training step, made on the GPU machine in one call (about 3 minutes
# on an H100 after the build). Not a ctest: its outputs are committed (test_inputs/runtime/) and
# read in CI by tests/runtime/capture_recordings_test.py and docs/capture-readiness.md.
#   tests/gpu/capture_recordings.sh OUTDIR
# OUTDIR/cu/*.swrec         tests/gpu/capture_failures.cu under `syncwatch run --record`
# OUTDIR/py/*.swrec         tests/gpu/capture_failures_torch.py, the same
# OUTDIR/ro/*.swrec         tests/gpu/reduce_overhead_skips.py, the same
# OUTDIR/ready-*/           readiness_step.py's `before` and `fixed` loops, steps marked
# OUTDIR/ready-times.jsonl  the step times of before, fixed and captured, 3 rounds, no syncwatch
# The C++ probe also runs plain and preloaded (plain.out, preloaded.out): the same output.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
out=${1:?usage: capture_recordings.sh OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "capture recordings skipped: no NVIDIA GPU on this machine"; exit 77
fi
build=$root/build-gpu
bash "$root/tests/gpu/build_runtime.sh" "$build" || exit 1
sw=$build/interposer/syncwatch
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"; } > "$out/gpu.txt" 2>&1
fail=0
nvcc -g -O2 -arch=sm_90 -o "$build/capture_failures" "$here/capture_failures.cu" || exit 1
timeout 60 "$build/capture_failures" > "$out/plain.out" 2>&1 || fail=1
LD_PRELOAD=$build/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 "$build/capture_failures" > "$out/preloaded.out" 2>&1 || fail=1
cmp -s "$out/plain.out" "$out/preloaded.out" || { echo "capture_failures: output differs preloaded"; fail=1; }
timeout 90 "$sw" run --out "$out/cu" --record -- "$build/capture_failures" > "$out/sw.out" 2> "$out/sw.err" || fail=1
python3 "$here/check_capture.py" "$here/capture_failures.cu" "$out"/cu/syncwatch-*.json --ended 7 --failed 6 || fail=1
timeout 120 python3 "$here/capture_failures_torch.py" > "$out/plain-torch.out" 2>&1 || fail=1
timeout 180 "$sw" run --out "$out/py" --record -- python3 "$here/capture_failures_torch.py" \
  > "$out/sw-torch.out" 2> "$out/sw-torch.err" || fail=1
python3 "$here/check_capture.py" "$here/capture_failures_torch.py" "$out"/py/syncwatch-*.json || fail=1
# torch.compile(mode="reduce-overhead") skipping CUDA graphs: torch's reasons at their lines; its
# output (torch's own warnings on stderr) the same with syncwatch as without.
timeout 150 python3 "$here/reduce_overhead_skips.py" > "$out/plain-ro.out" 2> "$out/plain-ro.err" || fail=1
timeout 150 "$sw" run --out "$out/ro" --record -- python3 "$here/reduce_overhead_skips.py" \
  > "$out/sw-ro.out" 2> "$out/sw-ro.err" || fail=1
cmp -s "$out/plain-ro.out" "$out/sw-ro.out" || { echo "reduce_overhead_skips: output differs under syncwatch"; fail=1; }
python3 "$here/check_capture.py" "$here/reduce_overhead_skips.py" "$out"/ro/syncwatch-*.json || fail=1
for mode in before fixed; do
  SYNCWATCH_STEP=train_step SYNCWATCH_MEASURE=steps timeout 120 "$sw" run --out "$out/ready-$mode" --record -- \
    python3 "$here/readiness_step.py" "$mode" "${READY_STEPS:-60}" > "$out/ready-$mode.out" 2> "$out/ready-$mode.err" || fail=1
done
: > "$out/ready-times.jsonl"
for round in 1 2 3; do
  for mode in before fixed captured; do
    timeout 60 python3 "$here/readiness_step.py" "$mode" 1000 >> "$out/ready-times.jsonl" 2>> "$out/ready-times.err" || fail=1
  done
done
cat "$out/ready-times.jsonl"
exit $fail
