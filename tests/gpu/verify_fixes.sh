#!/usr/bin/env bash
# Three real fixes through `syncwatch verify` on the GPU (issue 37, part 5): one that saves
# time, one with no effect and one that makes the program slower. Each fix is a patch under
# tests/gpu/fixes/ to a program of public_programs.txt (in .extern/); the before and after
# trees are copies of its directory, built alike, and verify runs them interleaved.
# Brings back OUTDIR/NAME/verify.json, verify.txt and the runs' reports (verify/before/run-N,
# verify/after/run-N), which import_verify_fixes.py commits under test_inputs/runtime/verify_real/.
#
# Usage: verify_fixes.sh BUILD_DIR OUTDIR [NAME...]     RUNS=N (7) runs of each side
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
sw=$(realpath -m "$1")/interposer/syncwatch; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2
ext=$root/.extern; runs=${RUNS:-7}; phase=${VF_PHASE:-all}
flags="-O3 -Xcompiler -g1 -arch=sm_90"

# name | source under .extern/ | patch | extra nvcc flags | arguments | what the fix is
fixes='
overlap_chunked_streams|cuda-training-series/exercises/hw7/overlap_solution.cu|overlap_chunked_streams.patch|||the timed copy-kernel-copy in 64 chunks over 8 streams (the exercise'"'"'s own fix)
jacobi_nonblocking_streams|multi-gpu-programming-models/single_gpu/jacobi.cu|jacobi_nonblocking_streams.patch|-Xcompiler -fopenmp -lineinfo -DUSE_NVTX -DHAVE_CUB -std=c++17 -ldl|-niter 2000 -nx 4096 -ny 4096|the three streams made non-blocking (the lint'"'"'s fix-it for cudaStreamCreate)
jacobi_sync_copy_stream|multi-gpu-programming-models/single_gpu/jacobi.cu|jacobi_sync_copy_stream.patch|-Xcompiler -fopenmp -lineinfo -DUSE_NVTX -DHAVE_CUB -std=c++17 -ldl|-niter 2000 -nx 4096 -ny 4096|the norm read after a cudaStreamSynchronize of the copy stream instead of the event of the last iteration
transpose_pin_per_copy|cuda-training-series/exercises/hw8/task3/task3_solution.cu|transpose_pin_per_copy.patch|||the pageable buffer pinned (cudaHostRegister) around each cudaMemcpy
'
want=("$@")
wanted() { [ ${#want[@]} -eq 0 ] && return 0; local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

if [ "$phase" != run ]; then
  while IFS='|' read -r name src patch extra args what; do
    [ -n "$name" ] && wanted "$name" || continue
    w=$out/$name; rm -rf "$w"; mkdir -p "$w"
    for side in before after; do
      mkdir -p "$w/$side/$(dirname "$src")"; cp -r "$ext/$(dirname "$src")/." "$w/$side/$(dirname "$src")/"
    done
    patch -s -p1 -d "$w/after" < "$here/fixes/$patch" || { echo "$name: the patch does not apply" > "$w.failed"; continue; }
    for side in before after; do
      # shellcheck disable=SC2086
      ( cd "$w/$side/$(dirname "$src")" && nvcc $flags $extra -o prog "$(basename "$src")" ) > "$w/$side.build.log" 2>&1 \
        || echo "$name: the $side build failed" > "$w.failed" &
    done
  done <<< "$fixes"
  wait
fi
[ "$phase" = build ] && exit 0

fail=0
while IFS='|' read -r name src patch extra args what; do
  [ -n "$name" ] && wanted "$name" || continue
  w=$out/$name
  if [ -e "$w.failed" ]; then cat "$w.failed"; tail -5 "$w"/*.build.log; fail=1; continue; fi
  d=$(dirname "$src"); rm -rf "$w/verify"
  echo "== $name: $what"
  rc=0
  timeout 240 "$sw" verify --runs "$runs" --out "$w/verify" \
    --before-cmd "cd '$w/before/$d' && ./prog $args" --after-cmd "cd '$w/after/$d' && ./prog $args" \
    --path-map "$w/after/=$w/before/" --format json --output "$w/verify.json" > "$w/verify.log" 2>&1 || rc=$?
  echo "verify exit $rc (0: saved or no change, 1: slower)"; [ $rc -le 1 ] || { tail -5 "$w/verify.log"; fail=1; continue; }
  "$sw" verify --before "$w/verify/before" --after "$w/verify/after" --path-map "$w/after/=$w/before/" > "$w/verify.txt" 2>&1
  sed -n 1,40p "$w/verify.txt"
done <<< "$fixes"
exit $fail
