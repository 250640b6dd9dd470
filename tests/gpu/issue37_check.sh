#!/usr/bin/env bash
# issue 37 on the H200: the new recorder (counts, launch spans) against the old one.
# Needs .gpu-old/: a copy of the previous main's sources (git archive), the "old" side of the comparison.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
root=$PWD
b=$root/build-gpu; o=$root/build-gpu-old
( cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF >/dev/null && timeout 200 ninja -C $b >/dev/null ) || echo "NEW BUILD FAILED"
( cmake -S .gpu-old -B $o -G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF >/dev/null && timeout 200 ninja -C $o >/dev/null ) || echo "OLD BUILD FAILED"
nvcc -g -O2 -arch=sm_90 -o $b/runtime_probe tests/gpu/runtime_probe.cu
nvcc -O2 -arch=sm_90 -o $b/launch_bound tests/gpu/launch_bound.cu
nvcc -g -O2 -arch=sm_90 -o $b/confirm_probe tests/gpu/confirm_probe.cu
echo "== probe, new recorder"
timeout 60 $b/interposer/syncwatch run --out $OUT/probe --record -- $b/runtime_probe > $OUT/probe.out 2>&1; echo "rc $?"
tail -5 $OUT/probe.out
grep -c "^N" $OUT/probe/*.swrec; grep "^V\|^L" $OUT/probe/*.swrec | head
timeout 60 $b/interposer/syncwatch run --out $OUT/confirm --record -- $b/confirm_probe > $OUT/confirm.out 2>&1; echo "confirm rc $?"
echo "== launch_bound: plain / old / new, 5 rounds interleaved (ns per iteration)"
for r in 1 2 3 4 5; do
  p=$(timeout 60 $b/launch_bound 200000 2>&1 | tail -1)
  ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 $b/launch_bound 200000 2>&1 | tail -1)
  nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 60 $b/launch_bound 200000 2>&1 | tail -1)
  ma=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 SYNCWATCH_MEASURE=all timeout 60 $b/launch_bound 200000 2>&1 | tail -1)
  echo "round $r | plain: $p | old: $ol | new: $nw | measure-all: $ma"
done
echo "== new recorder on launch_bound, recorded"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$OUT/lb LD_PRELOAD=$b/interposer/libsyncwatch.so timeout 60 $b/launch_bound 50000 > $OUT/lb.out 2>&1; mkdir -p $OUT/lb; echo "rc $?"; tail -3 $OUT/lb.out
ls $OUT/lb; grep "^N\|^V\|^L" $OUT/lb/*.swrec | head
if python3 -c "import torch" 2>/dev/null; then
  echo "== torch train loop (bench/train_loop.py): plain / old / new, 3 rounds"
  for r in 1 2 3; do
    p=$(timeout 90 python3 bench/train_loop.py 2>&1 | tail -1)
    ol=$(LD_PRELOAD=$o/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 90 python3 bench/train_loop.py 2>&1 | tail -1)
    nw=$(LD_PRELOAD=$b/interposer/libsyncwatch.so SYNCWATCH_QUIET=1 timeout 90 python3 bench/train_loop.py 2>&1 | tail -1)
    echo "round $r | plain: $p | old: $ol | new: $nw"
  done
fi
cd $OUT && tar czf recs.tgz probe confirm lb 2>/dev/null; echo done
