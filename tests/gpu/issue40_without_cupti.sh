#!/usr/bin/env bash
# Issue 40 on the GPU machine: syncwatch while another tool holds CUPTI, and its own
# entry points in a process where it holds CUPTI itself.
#   1. held_cupti.cu (-cudart shared) under compute-sanitizer (and Nsight Systems if the image
#      has it) with libsyncwatch.so preloaded: the waits at HELD-SYNC and HELD-COPY timed
#      without CUPTI, the tool's own output unchanged;
#   2. the same program, and tests/gpu/train_item.py (PyTorch: libcudart.so), under syncwatch
#      alone: the findings at the same lines as before the entry points existed;
#   3. torch.profiler's steps (tests/gpu/profiler_steps.py, SYNCWATCH_STEP=ProfilerStep): the
#      steps that held the waits, after the guest clock's bracketed offset (issue 38's 57 of 60).
#   tests/gpu/issue40_without_cupti.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$1; mkdir -p "$out"
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/without_cupti.tgz" -C "$out" . 2>/dev/null; return 0; }
b=$root/build-gpu; lib=$b/interposer/libsyncwatch.so; sw=$b/interposer/syncwatch
bash "$here/build_runtime.sh" "$b" > "$out/build.log" 2>&1 || { echo "build failed"; tail -5 "$out/build.log"; save; exit 1; }
nvcc -g -O2 -arch=sm_90 -cudart shared -o "$b/held_cupti" "$here/held_cupti.cu" || exit 1
echo "built at ${SECONDS}s"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys 2>/dev/null)
echo "compute-sanitizer: ${san:-none}; nsys: ${nsys:-none}"
timeout 120 "$san" --tool memcheck "$b/held_cupti" > "$out/san-plain.out" 2>&1; echo "sanitizer alone rc=$?"
SYNCWATCH_OUT="$out/san" LD_PRELOAD="$lib" timeout 120 "$san" --tool memcheck "$b/held_cupti" > "$out/san-sw.out" 2>&1
echo "sanitizer + syncwatch rc=$?"
grep -h "syncwatch\|ERROR SUMMARY\|held done" "$out/san-plain.out" "$out/san-sw.out" | cut -c1-400
for j in "$out"/san/*.json; do [ -f "$j" ] && python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
for f in d.get('findings',[]): print('  finding', f['rule'], f['location']['file'].split('/')[-1]+':'+str(f['location']['line']), f['evidence'].get('count'), f['message'][:160])
print('  cupti figure:', d.get('figures',{}).get('cupti'))" "$j"; done
save
if [ -n "$nsys" ]; then
  SYNCWATCH_OUT="$out/nsys" LD_PRELOAD="$lib" timeout 150 "$nsys" profile -o "$out/nsys-report" --force-overwrite true "$b/held_cupti" > "$out/nsys-sw.out" 2>&1
  echo "nsys + syncwatch rc=$?"; grep -h "syncwatch\|held done\|Generated" "$out/nsys-sw.out" | cut -c1-300; save
fi
SYNCWATCH_OUT="$out/alone" LD_PRELOAD="$lib" timeout 60 "$b/held_cupti" > "$out/alone.out" 2>&1; echo "syncwatch alone rc=$?"
grep -h "syncwatch\|held_cupti.cu" "$out/alone.out" | cut -c1-300
SYNCWATCH_OUT="$out/train" LD_PRELOAD="$lib" timeout 120 python3 "$here/train_item.py" > "$out/train.out" 2>&1; echo "train_item rc=$?"
grep -h "train_item.py\|syncwatch:" "$out/train.out" | cut -c1-300
save
SYNCWATCH_STEP=ProfilerStep SYNCWATCH_MEASURE=steps timeout 180 "$sw" run --out "$out/prof" --record -- \
  python3 "$here/profiler_steps.py" 60 > "$out/prof-sw.out" 2> "$out/prof-sw.err"; echo "profiler steps rc=$?"
for r in "$out"/prof/*.swrec; do [ -f "$r" ] && "$sw" replay "$r" > "$out/replay-prof.txt" 2>&1; done
grep -h "readiness\|steps" "$out/replay-prof.txt" "$out/prof-sw.err" | cut -c1-600
save
echo "done at ${SECONDS}s"
