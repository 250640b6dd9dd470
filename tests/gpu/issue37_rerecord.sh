#!/usr/bin/env bash
# Issue 37, part 5, again on the H200 (one device call), after the recorder fixes of the last
# round (static cudart frames are not user frames, FrameClass.cpp; a stream being captured is
# neither queried nor recorded, CallFilter.cpp): the public programs re-recorded
# (public_programs.sh, ots_axpy_graph is the global-mode capture that broke under syncwatch),
# their gcov builds run (coverage_programs.sh), then the fast path against f545000 (.gpu-old):
# launch_bound.cu and bench/train_loop.py, interleaved while time is left (LIMIT_S, 500 s).
# Builds run in parallel, GPU runs one at a time; each phase's results are tarred into $OUT
# as soon as it ends. Carry: .extern (the code bases), .gpu-old (git archive f545000 of
# CMakeLists.txt cmake interposer rules python pyproject.toml bench).
set -u
root=$PWD; b=$root/build-gpu; o=$root/build-gpu-old; export PATH=$PATH:/usr/local/cuda/bin
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF"
limit=${LIMIT_S:-500}
exec > >(tee "$OUT/log.txt") 2>&1
t0=$SECONDS; say() { echo "[$((SECONDS - t0)) s] $*"; }
left() { echo $((limit - (SECONDS - t0))); }
mkdir -p "$b"
say "builds: syncwatch, f545000, the public programs, their coverage builds"
# shellcheck disable=SC2086
( cmake -S . -B "$b" $cfg && timeout 300 ninja -C "$b" ) > "$OUT/build.log" 2>&1 &
sw_pid=$!
# shellcheck disable=SC2086
( cmake -S .gpu-old -B "$o" $cfg && timeout 300 ninja -C "$o" ) > "$OUT/build-old.log" 2>&1 &
old_pid=$!
PP_PHASE=build timeout 300 tests/gpu/public_programs.sh "$b" "$OUT/pp" > "$OUT/pp.build.txt" 2>&1 &
pp_pid=$!
cov_pid=
[ -n "${SKIP_COV:-}" ] || { COV_PHASE=build timeout 300 tests/gpu/coverage_programs.sh "$OUT/cov" > "$OUT/cov.build.txt" 2>&1 & cov_pid=$!; }
nvcc -O2 -arch=sm_90 -o "$b.launch_bound" tests/gpu/launch_bound.cu &
lb_pid=$!
# (Each child by its pid: a bare `wait` waits for the tee above too, which never ends.)
wait $sw_pid || { say "SYNCWATCH BUILD FAILED"; tail -20 "$OUT/build.log"; }
wait $old_pid || { say "f545000 BUILD FAILED"; tail -20 "$OUT/build-old.log"; }
wait $pp_pid; [ -z "$cov_pid" ] || wait $cov_pid; wait $lb_pid
say "builds done: $(ls "$OUT/pp" | grep -c compile_commands) program databases, $(ls "$OUT/pp" | grep -c failed) failed"
cat "$OUT"/pp/*.failed "$OUT"/cov/*.failed 2>/dev/null

say "the public programs under syncwatch run --record"
PP_PHASE=run timeout 220 tests/gpu/public_programs.sh "$b" "$OUT/pp"
grep -h -i -E "capture|error" "$OUT/pp/ots_axpy_graph.run.log" | head -5
(cd "$OUT" && tar czf pp.tgz pp && rm -rf pp)
say "a static-cudart program's raw frames (SYNCWATCH_DEBUG_SITES): how deep the runtime's own chain is"
tr=.extern/code-samples/series/cuda-cpp/transpose/cs_transpose.bin
SYNCWATCH_DEBUG_SITES=1 SYNCWATCH_QUIET=1 LD_PRELOAD=$b/interposer/libsyncwatch.so timeout 30 "$tr" > /dev/null 2> "$OUT/debug_sites.txt"
grep -c "native frames" "$OUT/debug_sites.txt"
if [ -z "${SKIP_COV:-}" ]; then  # (SKIP_COV=1: the gcov runs do not depend on syncwatch)
  say "coverage runs"
  COV_PHASE=run timeout 80 tests/gpu/coverage_programs.sh "$OUT/cov"
  (cd "$OUT" && tar czf cov.tgz cov && rm -rf cov)
fi

[ -z "${SKIP_BENCH:-}" ] || { say "done (SKIP_BENCH)"; exit 0; }
say "the fast path against f545000"
tests/gpu/fast_path_rounds.sh "$b" "$o" "$b.launch_bound" "$(left)"
say "done"
