#!/usr/bin/env bash
# Issue 40, item 5, on the GPU machine, in one call: build the runtime, then
#   1. a noise probe: bench/train_loop.py without any tool, PAIRS times in each of two
#      settings, interleaved - as users run it, and FIXED (no address-space randomization,
#      PYTHONHASHSEED=0) - to see whether the 20-50% spread between processes of the same
#      plain loop comes from the process's layout;
#   2. tests/gpu/issue40_buffers.sh at BUFFER_ITERS (skipped at 0);
#   3. bench/train_loop_rounds.sh with MODES, in the setting the probe found quieter (FIXED=1
#      when its spread, max/min, was smaller), with what is left of DEADLINE seconds.
# Everything goes under $OUT as it is made (loop.tgz), so a timeout still brings it back.
#   tests/gpu/issue40_loop.sh [DEADLINE_S=560] [PAIRS=5] [BUFFER_ITERS=1000000]
set -u
deadline=${1:-560}; pairs=${2:-5}; biters=${3:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd); b=$root/build-gpu; w=/tmp/loop; mkdir -p $w
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/loop.tgz" -C $w . 2>/dev/null; return 0; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; nproc; } > $w/gpu.txt 2>&1
timeout 240 bash "$root/tests/gpu/build_runtime.sh" $b > $w/build.log 2>&1
echo "build rc=$? at ${SECONDS}s"; save
pin=(); [ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
for ((i = 1; i <= pairs; i++)); do
  for setting in random fixed; do
    fx=(); ev=()
    [ $setting = fixed ] && { fx=(setarch "$(uname -m)" -R); ev=(PYTHONHASHSEED=0); }
    v=$(env "${ev[@]}" timeout 60 "${pin[@]}" "${fx[@]}" python3 "$root/bench/train_loop.py" 2>/dev/null | sed -n 's/^step_ms //p')
    echo "probe $i $setting ${v:-failed}" | tee -a $w/probe.txt
  done
done
quieter=$(python3 - $w/probe.txt <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    _, _, setting, *v = line.split()
    if v and v[0] != "failed":
        by.setdefault(setting, []).append(float(v[0]))
spread = {s: max(v) / min(v) for s, v in by.items() if len(v) > 1}
for s, v in by.items():
    print(f"{s}: median {statistics.median(v):.3f} ms, spread max/min {spread.get(s, 0):.3f}", file=sys.stderr)
print("fixed" if spread.get("fixed", 9) < spread.get("random", 9) else "random")
PY
)
echo "quieter setting: $quieter at ${SECONDS}s"; save
if [ "$biters" -gt 0 ]; then
  timeout 200 bash "$root/tests/gpu/issue40_buffers.sh" $w/buffers "$biters" > $w/buffers.log 2>&1
  echo "buffers rc=$? at ${SECONDS}s"; cat $w/buffers/rss.txt 2>/dev/null; save
fi
left=$((deadline - SECONDS - 30))
if [ $left -gt 60 ]; then
  FIXED=$([ "$quieter" = fixed ] && echo 1 || echo 0) timeout $((left + 20)) \
    bash "$root/bench/train_loop_rounds.sh" $b "${ROUNDS:-10}" $left > $w/train.log 2>&1
  echo "train rc=$? at ${SECONDS}s (FIXED for $quieter)"; tail -14 $w/train.log
fi
save
