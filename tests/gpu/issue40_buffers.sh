#!/usr/bin/env bash
# Issue 40, item 3 on the GPU machine: CUPTI's device buffer size (SYNCWATCH_CUPTI_DEVICE_BUFFER_KB)
# against records dropped and peak RSS, at the heaviest record rate syncwatch asks for: every
# kernel traced (SYNCWATCH_KERNELS=1) in launch_bound.cu (one kernel per iteration, a pinned copy
# every 4th), and with syncwatch's default kinds. SYNCWATCH_STATS gives records read and dropped;
# the report's figures window.events / window.lateRecords how far the event window grew.
#   tests/gpu/issue40_buffers.sh OUTDIR [ITERATIONS=4000000]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$1; iters=${2:-4000000}
mkdir -p "$out"
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/buffers.tgz" -C "$out" . 2>/dev/null; return 0; }
b=$root/build-gpu; lib=$b/interposer/libsyncwatch.so
bash "$here/build_runtime.sh" "$b" > "$out/build.log" 2>&1 || { echo "build failed"; tail -5 "$out/build.log"; save; exit 1; }
nvcc -O2 -arch=sm_90 -o "$b/launch_bound" "$here/launch_bound.cu" || exit 1
run() {
  local name=$1; shift
  local r
  r=$(env "$@" SYNCWATCH_STATS=1 SYNCWATCH_OUT="$out/$name" LD_PRELOAD="$lib" timeout 100 "$b/launch_bound" "$iters" 2> "$out/$name.err" | tail -1)
  echo "$name $r" | tee -a "$out/rss.txt"
  grep -h "activity:\|dropped" "$out/$name.err" | sed 's/^/   /'
  for j in "$out/$name"/*.json; do
    [ -f "$j" ] && python3 -c "import json,sys; f=json.load(open(sys.argv[1])).get('figures',{}); print('  ', {k: v for k, v in f.items() if k.startswith('window.')})" "$j"
  done
  save
}
run kernels-dev-default SYNCWATCH_KERNELS=1
run kernels-dev1m SYNCWATCH_KERNELS=1 SYNCWATCH_CUPTI_DEVICE_BUFFER_KB=1024
run default-dev1m SYNCWATCH_CUPTI_DEVICE_BUFFER_KB=1024
run default-dev-default
echo "done at ${SECONDS}s"
