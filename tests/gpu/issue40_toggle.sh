#!/usr/bin/env bash
# Issue 40, item 5, on the GPU machine: what CUPTI's pieces cost bench/train_loop.py within one
# process (`train_loop.py toggle`: 40 pairs of 100-step blocks, the pieces on in one block and
# off in the other, switched by tests/gpu/cupti_kinds_preload.c's probe_set), for each of MODES
# (PROBE_KINDS values; "none" switches nothing: the method's own resolution), ROUNDS processes
# each, interleaved, until DEADLINE seconds. Two modes switch syncwatch itself instead
# (libsyncwatch.so, built first, with SYNCWATCH_BENCH_TOGGLE=1 and its syncwatch_set_active):
# "syncwatch" and "syncwatch-nopython" (SYNCWATCH_PYTHON=0); "launch-floor" switches syncwatch's
# CUPTI floor (SYNCWATCH_FLOOR=activity: its subscription and activity kinds, records dropped
# unread) in the launch loop, whose "off" is the same as launch-syncwatch's; two switch
# torch's own tools, for the same table: "syncdebug" (torch.cuda.set_sync_debug_mode) and "profiler" (a
# torch.profiler session per "on" block). "launch-syncwatch" and "launch-KINDS" (launch-none,
# launch-memcpy,memset,stream...) time the launch loop (launch_bound.cu N toggle, N =
# LAUNCH_ITERS iterations a block) instead of the PyTorch loop. Everything goes under $OUT
# (toggle.tgz).
#   tests/gpu/issue40_toggle.sh [DEADLINE_S=400] [ROUNDS=2]
set -u
deadline=${1:-400}; rounds=${2:-2}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
w=/tmp/toggle; b=$w/bin; mkdir -p $b
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/toggle.tgz" -C $w . 2>/dev/null; return 0; }
gcc -O2 -shared -fPIC -I/usr/local/cuda/include "$here/cupti_kinds_preload.c" -L/usr/local/cuda/lib64 -lcupti \
  -Wl,-rpath,/usr/local/cuda/lib64 -o $b/libkinds.so || { echo "probe build failed"; exit 1; }
nvcc -O2 -arch=sm_90 -o $b/launch_bound "$here/launch_bound.cu" || { echo "launch_bound build failed"; exit 1; }
read -r -a modes <<<"${MODES:-none sub memcpy,memset,stream memcpy stream memcpy,memset,stream,kernel}"
sw=$root/build-gpu/interposer/libsyncwatch.so
if [[ " ${modes[*]}" == *"syncwatch"* || " ${modes[*]}" == *"floor"* ]]; then
  timeout 200 bash "$here/build_runtime.sh" "$root/build-gpu" > $w/build.log 2>&1
  echo "runtime build rc=$? at ${SECONDS}s"; tail -3 $w/build.log
fi
pin=(taskset -c "${PIN:-4-7}")
for ((r = 1; r <= rounds; r++)); do
  for ((k = 0; k < ${#modes[@]}; k++)); do
    [ $((SECONDS + 30)) -lt "$deadline" ] || break 2
    m=${modes[$(((k + r - 1) % ${#modes[@]}))]}
    sw_env=(LD_PRELOAD=$sw SYNCWATCH_BENCH_TOGGLE=1 SYNCWATCH_QUIET=1)
    cmd=(python3 "$root/bench/train_loop.py" toggle)
    [[ $m == launch-* ]] && cmd=($b/launch_bound "${LAUNCH_ITERS:-20000}" toggle)  # the launch loop instead
    case $m in
      syncwatch) env=("${sw_env[@]}");;
      syncwatch-nopython) env=("${sw_env[@]}" SYNCWATCH_PYTHON=0);;
      syncdebug|profiler) env=(TOGGLE_TOOL=$m); cmd+=("$m");;  # torch's own, switched by train_loop.py
      launch-syncwatch) env=("${sw_env[@]}");;
      launch-floor) env=("${sw_env[@]}" SYNCWATCH_FLOOR=activity);;
      launch-*) env=(PROBE_TOGGLE=1 PROBE_KINDS=${m#launch-} LD_PRELOAD=$b/libkinds.so);;
      *) env=(PROBE_TOGGLE=1 PROBE_KINDS=$m LD_PRELOAD=$b/libkinds.so);;
    esac
    v=$(env "${env[@]}" timeout 120 "${pin[@]}" "${cmd[@]}" 2>>$w/toggle.err | sed -n 's/^toggle_ratio //p')
    echo "round $r $m ${v:-failed}" | tee -a $w/toggle.txt
    save
  done
done
echo "done at ${SECONDS}s"; save
