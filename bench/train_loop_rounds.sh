#!/usr/bin/env bash
# Issue 40's PyTorch loop at the floor, on the GPU machine: bench/train_loop.py's ms per step
# under each tool, in ROUNDS interleaved rounds (the order of the modes rotates each round, so
# that none is always first after another), each mode a fresh process:
#   plain      no tool
#   syncwatch  LD_PRELOAD=libsyncwatch.so (Python call sites on)
#   nopython   syncwatch with SYNCWATCH_PYTHON=0 (no Python call sites)
#   floor      SYNCWATCH_FLOOR=1: syncwatch's subscription, every catalogued callback doing nothing
#   actfloor   SYNCWATCH_FLOOR=activity: the floor with syncwatch's activity kinds on, their
#              buffers handed back unread (what CUPTI's records cost, before syncwatch reads them)
#   cbfloor    SYNCWATCH_FLOOR=callbacks: syncwatch's subscription without activity records
#              (actfloor against it: what the records alone cost)
#   syncdebug  torch.cuda.set_sync_debug_mode("warn"), no syncwatch
#   profiler   torch.profiler around the measured steps, no syncwatch
# Prints each run, then per mode the median step and, paired per round against plain (and
# syncwatch against floor), the median ratio and its spread (min, max). A benchmark, not a test.
#   bench/train_loop_rounds.sh BUILD [ROUNDS] [SECONDS]   (stops starting rounds after SECONDS)
# PIN=4-7 runs every process on those CPUs (taskset): on a shared 16-core host the same plain
# loop varied by 20% from one process to the next, which hides a 3% cost.
# FIXED=1 runs every process, whatever its mode, without address-space randomization
# (setarch -R) and with PYTHONHASHSEED=0: the layout of the heap, the stacks, the libraries
# and Python's dicts then no longer changes from one process to the next (the spread this
# removes is measured by tests/gpu/issue40_loop.sh's probe).
set -u
build=${1:?usage: train_loop_rounds.sh BUILD [ROUNDS] [SECONDS]}; rounds=${2:-10}; budget=${3:-100000}
here=$(cd "$(dirname "$0")" && pwd)
lib=$build/interposer/libsyncwatch.so
[ -f "$lib" ] || { echo "train_loop_rounds.sh: $lib is missing: not measured"; exit 2; }
# MODES="plain syncwatch floor" runs only those (10 rounds of all seven do not fit one 10-minute call).
read -r -a modes <<<"${MODES:-plain syncwatch nopython floor actfloor syncdebug profiler}"
log=$(mktemp)
run() {  # run MODE -> "step_ms first last" or nothing
  local env=() arg=()
  case $1 in
    syncwatch) env=(LD_PRELOAD=$lib SYNCWATCH_QUIET=1);;
    nopython) env=(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 SYNCWATCH_PYTHON=0);;
    floor) env=(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 SYNCWATCH_FLOOR=1);;
    actfloor) env=(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 SYNCWATCH_FLOOR=activity);;
    cbfloor) env=(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 SYNCWATCH_FLOOR=callbacks);;
    syncdebug) arg=(syncdebug);;
    profiler) arg=(profiler);;
  esac
  local pin=()
  [ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
  [ "${FIXED:-0}" = 1 ] && { env+=(PYTHONHASHSEED=0); pin+=(setarch "$(uname -m)" -R); }
  env "${env[@]}" timeout 60 "${pin[@]}" python3 "$here/train_loop.py" "${arg[@]}" 2>/dev/null | sed -n 's/^step_ms //p'
}
t0=$SECONDS
for ((r = 1; r <= rounds; r++)); do
  [ $((SECONDS - t0)) -lt "$budget" ] || { echo "stopped after $((r - 1)) rounds (time)"; break; }
  for ((k = 0; k < ${#modes[@]}; k++)); do
    m=${modes[$(((k + r - 1) % ${#modes[@]}))]}
    v=$(run "$m")
    echo "round $r $m ${v:-failed}" | tee -a "$log"
  done
done
ratios=()
for m in syncwatch nopython floor actfloor cbfloor syncdebug profiler; do ratios+=(--ratio "$m/plain"); done
# (actfloor / cbfloor: what the activity records alone cost)
python3 "$here/paired_rounds.py" "$log" --unit ms/step "${ratios[@]}" \
  --ratio syncwatch/floor --ratio syncwatch/actfloor --ratio actfloor/cbfloor
rm -f "$log"
