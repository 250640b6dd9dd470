#!/usr/bin/env bash
# Issue 37, part 5, on the H200 (one device call): the public programs re-recorded with the
# counting recorder (public_programs.sh), their gcov builds run (coverage_programs.sh), the
# thread-name recorder on named_threads.cu, and verify --apply-fixes end to end
# (apply_fixes_check.sh run, prepared beforehand in .gpu-afc). Builds run in parallel, GPU
# runs one at a time. Results come back as a few tarballs in $OUT, each written as soon as
# its phase ends.
# Then, while time is left (LIMIT_S, 540 s): three real fixes through verify (verify_fixes.sh),
# and the fast path against f545000 (.gpu-old): launch_bound.cu and bench/train_loop.py.
# Carry: .extern (the code bases), .gpu-afc (apply_fixes_check.sh prepare), .gpu-old.
set -u
root=$PWD; b=$root/build-gpu; o=$root/build-gpu-old; export PATH=$PATH:/usr/local/cuda/bin
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF"
limit=${LIMIT_S:-540}
exec > >(tee "$OUT/log.txt") 2>&1
t0=$SECONDS; say() { echo "[$((SECONDS - t0)) s] $*"; }
mkdir -p "$b"
say "builds: syncwatch, the public programs, their coverage builds"
# shellcheck disable=SC2086
( cmake -S . -B "$b" $cfg && timeout 300 ninja -C "$b" ) > "$OUT/build.log" 2>&1 &
sw_pid=$!
PP_PHASE=build timeout 300 tests/gpu/public_programs.sh "$b" "$OUT/pp" > "$OUT/pp.build.txt" 2>&1 &
pp_pid=$!
COV_PHASE=build timeout 300 tests/gpu/coverage_programs.sh "$OUT/cov" > "$OUT/cov.build.txt" 2>&1 &
cov_pid=$!
nvcc -g -O2 -arch=sm_90 -o "$b/named_threads" tests/gpu/named_threads.cu &
nt_pid=$!
# The old recorder (f545000, .gpu-old) and the fixes' builds, for the measurements after.
# shellcheck disable=SC2086
( cmake -S .gpu-old -B "$o" $cfg && timeout 300 ninja -C "$o" ) > "$OUT/build-old.log" 2>&1 &
old_pid=$!
VF_PHASE=build tests/gpu/verify_fixes.sh "$b" "$OUT/vf" > "$OUT/vf.build.txt" 2>&1 &
vf_pid=$!
nvcc -O2 -arch=sm_90 -o "$b.launch_bound" tests/gpu/launch_bound.cu &
lb_pid=$!
# (Each child by its pid: a bare `wait` waits for the tee above too, which never ends.)
wait $sw_pid || { say "SYNCWATCH BUILD FAILED"; tail -20 "$OUT/build.log"; }
wait $pp_pid; wait $cov_pid; wait $nt_pid; wait $old_pid; wait $vf_pid; wait $lb_pid
say "builds done: $(ls "$OUT/pp" | grep -c compile_commands) program databases, $(ls "$OUT/pp" | grep -c failed) failed"
cat "$OUT"/pp/*.failed 2>/dev/null

say "the public programs under syncwatch run --record"
PP_PHASE=run timeout 200 tests/gpu/public_programs.sh "$b" "$OUT/pp"
(cd "$OUT" && tar czf pp.tgz pp && rm -rf pp)
say "coverage runs"
COV_PHASE=run timeout 80 tests/gpu/coverage_programs.sh "$OUT/cov"
(cd "$OUT" && tar czf cov.tgz cov && rm -rf cov)

say "named_threads.cu: the writer thread's name after it ended"
mkdir -p "$OUT/misc"
timeout 60 "$b/interposer/syncwatch" run --record --out "$OUT/misc/named_threads" -- "$b/named_threads" > "$OUT/misc/named_threads.log" 2>&1
echo "exit $?"; grep -h -o '"threads": *"[^"]*"' "$OUT"/misc/named_threads/*.json | sort | uniq -c
say "verify --apply-fixes end to end"
timeout 120 bash tests/gpu/apply_fixes_check.sh run "$b" .gpu-afc > "$OUT/misc/apply_fixes.txt" 2>&1; echo "exit $?"
cat "$OUT/misc/apply_fixes.txt"; cp .gpu-afc/verify.json "$OUT/misc/apply_fixes_verify.json" 2>/dev/null
(cd "$OUT" && tar czf misc.tgz misc && rm -rf misc)

left() { echo $((limit - (SECONDS - t0))); }
say "three fixes through verify"
VF_PHASE=run RUNS=5 timeout $(( $(left) > 200 ? 160 : $(left) - 40 )) tests/gpu/verify_fixes.sh "$b" "$OUT/vf"
rm -rf "$OUT"/vf/*/before "$OUT"/vf/*/after   # the programs' copies (verify's runs are in vf/NAME/verify/)
(cd "$OUT" && tar czf vf.tgz vf; rm -rf vf)

say "the fast path against f545000"
tests/gpu/fast_path_rounds.sh "$b" "$o" "$b.launch_bound" "$(left)"
say "done"
