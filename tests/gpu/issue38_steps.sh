#!/usr/bin/env bash
# Issue 38's second GPU session in one script: torch.profiler's prof.step() as syncwatch's steps
# (tests/gpu/profiler_steps.py, plain and under SYNCWATCH_STEP=ProfilerStep), and the launch time
# a CUDA graph saved against the same marked step uncaptured (readiness_step.py replayed).
#   tests/gpu/issue38_steps.sh OUTDIR
# OUTDIR/prof/*.swrec, OUTDIR/replayed/*.swrec (recordings), *.out / *.err, replay-*.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$1
mkdir -p "$out"
build=$root/build-gpu
bash "$root/tests/gpu/build_runtime.sh" "$build" || exit 1
sw=$build/interposer/syncwatch
fail=0
timeout 120 python3 "$here/profiler_steps.py" 60 > "$out/prof-plain.out" 2> "$out/prof-plain.err" || fail=1
SYNCWATCH_STEP=ProfilerStep SYNCWATCH_MEASURE=steps timeout 180 "$sw" run --out "$out/prof" --record -- \
  python3 "$here/profiler_steps.py" 60 > "$out/prof-sw.out" 2> "$out/prof-sw.err" || fail=1
SYNCWATCH_STEP=train_step SYNCWATCH_MEASURE=steps timeout 180 "$sw" run --out "$out/replayed" --record -- \
  python3 "$here/readiness_step.py" replayed 200 > "$out/replayed.out" 2> "$out/replayed.err" || fail=1
# The same loop timed without every call recorded (MEASURE=steps costs the eager steps host
# time): the launch time the graph saved, as a user would see it.
SYNCWATCH_STEP=train_step timeout 180 "$sw" run --out "$out/replayed-auto" --record -- \
  python3 "$here/readiness_step.py" replayed 200 > "$out/replayed-auto.out" 2> "$out/replayed-auto.err" || fail=1
timeout 120 python3 "$here/readiness_step.py" replayed 200 > "$out/replayed-plain.out" 2>&1 || fail=1
for d in prof replayed replayed-auto; do
  for r in "$out/$d"/*.swrec; do
    [ -f "$r" ] && "$sw" replay "$r" > "$out/replay-$d.txt" 2>&1
  done
done
grep -h "readiness" "$out"/replay-*.txt "$out"/*.err | cut -c1-1500
cat "$out/prof-plain.out" "$out/prof-sw.out" "$out/replayed.out" "$out/replayed-auto.out" "$out/replayed-plain.out"
exit $fail
