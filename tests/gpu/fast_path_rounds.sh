#!/usr/bin/env bash
# The fast path on the GPU, plain / an older build / this build, interleaved (issue 19's
# benchmarks, as issue 37's device sessions run them): launch_bound.cu's ns per iteration,
# 3 rounds, then bench/train_loop.py's ms per step, rounds while SECONDS_LEFT last (each
# round about 40 s; none starts with 45 s or less left).
# Refuses to run when either build's libsyncwatch.so is missing: LD_PRELOAD of a missing file
# only warns, and the "old" runs are then plain ones (a device call of 2026-12-04 measured so).
#   fast_path_rounds.sh BUILD OLD_BUILD LAUNCH_BOUND_EXE SECONDS_LEFT
set -u
b=$1 o=$2 lb=$3 budget=$4
for lib in "$b/interposer/libsyncwatch.so" "$o/interposer/libsyncwatch.so"; do
  [ -f "$lib" ] || { echo "fast_path_rounds.sh: $lib is missing (did that build fail?): not measured"; exit 2; }
done
t0=$SECONDS
left() { echo $((budget - (SECONDS - t0))); }
echo "launch_bound.cu, ns per iteration: plain / old / this build, interleaved"
for r in 1 2 3; do
  p=$(timeout 20 "$lb" 200000 2>&1 | tail -1)
  ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 20 "$lb" 200000 2>&1 | tail -1)
  nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 20 "$lb" 200000 2>&1 | tail -1)
  echo "round $r | plain: $p | old: $ol | new: $nw"
done
echo "bench/train_loop.py, ms per step: plain / old / this build, interleaved while time is left"
r=0
while [ "$(left)" -gt 45 ]; do
  r=$((r + 1))
  p=$(timeout 14 python3 bench/train_loop.py 2>&1 | tail -1)
  ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 14 python3 bench/train_loop.py 2>&1 | tail -1)
  nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 14 python3 bench/train_loop.py 2>&1 | tail -1)
  echo "round $r | plain: $p | old: $ol | new: $nw"
done
