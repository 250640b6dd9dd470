#!/usr/bin/env bash
# Issue 37, part 5, on the H200 (the second device call): three real fixes through
# syncwatch verify (verify_fixes.sh), and the fast path's cost against f545000 (the recorder
# before issue 37, sources in .gpu-old): launch_bound.cu and bench/train_loop.py, plain, old
# and new, interleaved. Builds what an earlier call on the same machine did not leave.
# Carry: .extern, .gpu-old.
set -u
root=$PWD; b=$root/build-gpu; o=$root/build-gpu-old; export PATH=$PATH:/usr/local/cuda/bin
exec > >(tee "$OUT/log.txt") 2>&1
t0=$SECONDS; say() { echo "[$((SECONDS - t0)) s] $*"; }
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF"
# shellcheck disable=SC2086
( cmake -S . -B "$b" $cfg && timeout 300 ninja -C "$b" ) > "$OUT/build.log" 2>&1 &
# shellcheck disable=SC2086
( cmake -S .gpu-old -B "$o" $cfg && timeout 300 ninja -C "$o" ) > "$OUT/build-old.log" 2>&1 &
VF_PHASE=build tests/gpu/verify_fixes.sh "$b" "$OUT/vf" &
nvcc -O2 -arch=sm_90 -o "$b.launch_bound" tests/gpu/launch_bound.cu &
wait
[ -x "$b/interposer/syncwatch" ] || { say "NEW BUILD FAILED"; tail -20 "$OUT/build.log"; }
[ -e "$o/interposer/libsyncwatch.so" ] || { say "OLD BUILD FAILED"; tail -20 "$OUT/build-old.log"; }
say "builds done"

say "three fixes through verify"
VF_PHASE=run RUNS=7 timeout 260 tests/gpu/verify_fixes.sh "$b" "$OUT/vf"
(cd "$OUT" && tar czf vf.tgz --exclude='*/before/cuda-training-series' --exclude='*/after/cuda-training-series' \
  --exclude='*/before/multi-gpu-programming-models' --exclude='*/after/multi-gpu-programming-models' vf && rm -rf vf)

say "launch_bound.cu, ns per iteration: plain / f545000 / this build, 5 rounds interleaved"
for r in 1 2 3 4 5; do
  p=$(timeout 60 "$b.launch_bound" 200000 2>&1 | tail -1)
  ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 "$b.launch_bound" 200000 2>&1 | tail -1)
  nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 "$b.launch_bound" 200000 2>&1 | tail -1)
  echo "round $r | plain: $p | old: $ol | new: $nw"
done
if python3 -c "import torch" 2>/dev/null; then
  say "bench/train_loop.py, ms per step: plain / f545000 / this build, 12 rounds interleaved"
  for r in $(seq 1 12); do
    p=$(timeout 60 python3 bench/train_loop.py 2>&1 | tail -1)
    ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 python3 bench/train_loop.py 2>&1 | tail -1)
    nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 python3 bench/train_loop.py 2>&1 | tail -1)
    echo "round $r | plain: $p | old: $ol | new: $nw"
    [ $((SECONDS - t0)) -gt 520 ] && { say "out of time after round $r"; break; }
  done
fi
say "done"
