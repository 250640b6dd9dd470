#!/usr/bin/env bash
# Issue 40, item 3, on the GPU machine: peak RSS over 10 M CUDA calls (launch_bound.cu,
# 8 M launches + 2 M pinned copies) without syncwatch, at CUPTI's activity floor
# (SYNCWATCH_FLOOR=activity: syncwatch's subscription and record kinds, records dropped) and
# with syncwatch; then the activity buffers' sizes (SYNCWATCH_ACTIVITY_BUFFER_KB,
# SYNCWATCH_CUPTI_DEVICE_BUFFER_KB) and every kernel recorded (SYNCWATCH_KERNELS=1). Each
# syncwatch run's report gives window.events and window.lateRecords; SYNCWATCH_STATS the
# records CUPTI delivered. Results go to OUTDIR as they come (rss.txt, *.err, reports).
#   tests/gpu/issue40_memory.sh OUTDIR [ITERATIONS=8000000] [DEADLINE_S=540]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$1; iters=${2:-8000000}; deadline=${3:-540}
mkdir -p "$out"
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/memory.tgz" -C "$out" . 2>/dev/null; return 0; }
b=$root/build-gpu; lib=$b/interposer/libsyncwatch.so
bash "$here/build_runtime.sh" "$b" > "$out/build.log" 2>&1 || { echo "build failed"; tail -5 "$out/build.log"; save; exit 1; }
nvcc -O2 -arch=sm_90 -o "$b/launch_bound" "$here/launch_bound.cu" || exit 1
echo "built at ${SECONDS}s"
run() {
  local name=$1; shift
  if [ $((SECONDS + 75)) -gt "$deadline" ]; then echo "$name skipped (deadline)"; return; fi
  local r
  r=$(env "$@" timeout 120 "$b/launch_bound" "$iters" 2> "$out/$name.err" | tail -1)
  echo "$name $r" | tee -a "$out/rss.txt"
  for j in "$out/$name"/*.json; do
    [ -f "$j" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d.get('figures',{}); print('  ', {k: v for k, v in f.items() if k.startswith('window.')})" "$j" 2>/dev/null
  done
  grep -h "activity:\|dropped" "$out/$name.err" | sed 's/^/   /'
  save
}
run plain
run floor-act SYNCWATCH_FLOOR=activity LD_PRELOAD="$lib"
run syncwatch SYNCWATCH_STATS=1 SYNCWATCH_OUT="$out/syncwatch" LD_PRELOAD="$lib"
run sw-host1m SYNCWATCH_ACTIVITY_BUFFER_KB=1024 SYNCWATCH_STATS=1 SYNCWATCH_OUT="$out/sw-host1m" LD_PRELOAD="$lib"  # the default before 256 KiB
run floor-act-dev1m SYNCWATCH_CUPTI_DEVICE_BUFFER_KB=1024 SYNCWATCH_FLOOR=activity LD_PRELOAD="$lib"
run sw-dev1m SYNCWATCH_CUPTI_DEVICE_BUFFER_KB=1024 SYNCWATCH_STATS=1 SYNCWATCH_OUT="$out/sw-dev1m" LD_PRELOAD="$lib"
run sw-kernels SYNCWATCH_KERNELS=1 SYNCWATCH_STATS=1 SYNCWATCH_OUT="$out/sw-kernels" LD_PRELOAD="$lib"
echo "done at ${SECONDS}s"
