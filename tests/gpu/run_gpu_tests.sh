#!/usr/bin/env bash
# GPU tests of the runtime half (ctest label `gpu`; run on the GPU machine). Builds the
# runtime half without LLVM, runs the probe, the seed's PyTorch scenario and the overhead
# benchmark under libsyncwatch.so, and checks the reports. Skips (exit 77) without a GPU.
# Usage: tests/gpu/run_gpu_tests.sh [OUTDIR] [--quick]
# A preloaded process that dies (rc 139, no report): preload tests/gpu/segv_trace.c's library
# before libsyncwatch.so for its native stack (the GPU image has no gdb).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-gpu/results}; quick=${2:-}
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu tests skipped: no NVIDIA GPU on this machine"; exit 77
fi
mkdir -p "$out"; log() { echo "== $*"; }
build=$root/build-gpu
# The GPU image has libelf.so.1 but not its headers: bring them (`mkdir .gpu-include; cp
# /usr/include/gelf.h /usr/include/libelf.h .gpu-include/` here, carry `.gpu-include`), or
# release-build call sites (function+offset) are compiled out.
if [ ! -f /usr/include/gelf.h ] && [ -f "$root/.gpu-include/gelf.h" ]; then
  export CMAKE_INCLUDE_PATH=$root/.gpu-include${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF \
  -DSYNCWATCH_BUILD_TESTS=OFF -DSYNCWATCH_BUILD_INTERPOSER=ON >/dev/null && ninja -C "$build" >/dev/null || exit 1
lib=$build/interposer/libsyncwatch.so; sw=$build/interposer/syncwatch
nvcc -g -O2 -arch=sm_90 -o "$build/runtime_probe" "$here/runtime_probe.cu" || exit 1
nvcc -O2 -arch=sm_90 -o "$build/launch_bound" "$here/launch_bound.cu" || exit 1
nvcc -g -O2 -arch=sm_90 -o "$build/threads_stress" "$here/threads_stress.cu" || exit 1
fail=0

log "probe under syncwatch run (static cudart)"
"$sw" run --out "$out/probe" --record -- "$build/runtime_probe"; rc=$?
[ $rc -eq 0 ] || { echo "probe exit $rc"; fail=1; }
python3 "$here/check_probe.py" "$here/runtime_probe.cu" "$out"/probe/syncwatch-*.json || fail=1
ls "$out"/probe/; cp "$out"/probe/syncwatch-*.swrec "$out/probe.swrec"
log "replay of the recording"
"$sw" replay "$out/probe.swrec" > "$out/probe.replay.txt"; sed -n 1,20p "$out/probe.replay.txt"

log "probe through CUDA_INJECTION64_PATH"
CUDA_INJECTION64_PATH=$lib SYNCWATCH_OUT=$out SYNCWATCH_QUIET=1 "$build/runtime_probe" >/dev/null || fail=1
ls "$out"/syncwatch-*.json >/dev/null 2>&1 && echo "injection: report written" || { echo "injection: no report"; fail=1; }

log "exit code and output unchanged"
plain=$("$build/runtime_probe"); pre=$(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 "$build/runtime_probe")
[ "$plain" = "$pre" ] && echo "same stdout" || { echo "stdout differs"; fail=1; }
LD_PRELOAD=$lib SYNCWATCH_QUIET=1 sh -c 'exit 7'; [ $? -eq 7 ] && echo "exit code kept" || fail=1
msg=$(SYNCWATCH_THRESHOLD_MS=abc LD_PRELOAD=$lib SYNCWATCH_QUIET=1 "$build/runtime_probe" 2>&1 >/dev/null); grep "SYNCWATCH_THRESHOLD_MS" <<<"$msg" || fail=1
msg=$(SYNCWATCH_OUT=/nonexistent/dir LD_PRELOAD=$lib "$build/runtime_probe" 2>&1 >/dev/null); grep "cannot write" <<<"$msg" || fail=1

log "calibration: the truth table on this GPU (syncwatch calibrate)"
"$root/tests/runtime/calibrate_test.sh" "$sw" "$out/calibrate" || fail=1

log "many threads at once: every copy counted"
mkdir -p "$out/stress"
SYNCWATCH_QUIET=1 SYNCWATCH_OUT=$out/stress LD_PRELOAD=$lib "$build/threads_stress" || fail=1
line=$(grep -n "STRESS COPY" "$here/threads_stress.cu" | cut -d: -f1)
python3 - "$out"/stress/syncwatch-*.json "$line" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1])); line = int(sys.argv[2])
hits = [f for f in doc["findings"] if f["rule"] == "syncwatch-pageable-async-copy" and f["location"]["line"] == line]
count = int(dict(hits[0]["evidence"])["count"]) if hits else 0
print(("PASS" if count == 800 else "FAIL") + f"  threads_stress.cu:{line}: {count} of 800 pageable copies counted")
sys.exit(0 if count == 800 else 1)
PY

for nb in true false; do
  log "seed PyTorch scenario non_blocking=$nb"
  mkdir -p "$out/seed-$nb"
  SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/seed-$nb LD_PRELOAD=$lib python3 "$here/seed_streams.py" $nb 2>&1 | tail -12
done
log "Python call sites"
check_py() { python3 "$here/check_python_sites.py" "$@" || fail=1; }
check_py "$out"/seed-true/syncwatch-*.json "$here/seed_streams.py" SEED-HTOD syncwatch-pageable-async-copy
check_py "$out"/seed-false/syncwatch-*.json "$here/seed_streams.py" SEED-DTOH syncwatch-pageable-async-copy "followed at once by 'cudaStreamSynchronize'"
check_py "$out"/seed-false/syncwatch-*.json "$here/seed_streams.py" SEED-HTOD syncwatch-pageable-async-copy
mkdir -p "$out/train"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/train LD_PRELOAD=$lib python3 "$here/train_item.py" 2>&1 | tail -6
check_py "$out"/train/syncwatch-*.json "$here/train_item.py" TRAIN-ITEM syncwatch-sync-in-loop
# Every call Python made has Python frames: the model's first .cuda() copy too.
python3 - "$out"/train/syncwatch-*.json <<'PY' || fail=1
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
unknown = [x["message"][:100] for x in f if x["location"]["file"] == "<unknown call site>"]
print(("PASS" if not unknown else "FAIL") + f"  train_item: {len(unknown)} finding(s) at an unknown call site {unknown}")
sys.exit(1 if unknown else 0)
PY
# PyTorch launches only onto the legacy stream and works on no blocking stream: none of
# its launches may be recorded (CallFilter.h), yet the .item() waits are.
python3 - "$out"/train/syncwatch-*.swrec <<'PY' || fail=1
import sys
apis = [l.split("\t")[3] for l in open(sys.argv[1]) if l.startswith("C\t")]
launches = sum("Launch" in a for a in apis)
ok = launches == 0 and apis.count("cudaStreamSynchronize") > 0
print(("PASS" if ok else "FAIL") + f"  train_item: {launches} launch calls recorded (expected 0), {len(apis)} calls in all")
sys.exit(0 if ok else 1)
PY
g++ -O2 -g -shared -fPIC -I/usr/include/python3.12 -I/usr/local/cuda/include "$here/swext.cpp" \
  -L/usr/local/cuda/lib64 -lcudart -o "$build/swext$(python3-config --extension-suffix 2>/dev/null || echo .so)" || fail=1
mkdir -p "$out/ext"
PYTHONPATH=$build SYNCWATCH_OUT=$out/ext LD_PRELOAD=$lib python3 "$here/call_extension.py" 2>&1 | tail -6
check_py "$out"/ext/syncwatch-*.json "$here/call_extension.py" EXT-CALL syncwatch-pageable-async-copy
python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['findings']; print('native site:', [dict(x['evidence']).get('nativeSite') for x in f])" "$out"/ext/syncwatch-*.json
log "stream priorities: a high-priority kernel held behind low-priority matmuls"
mkdir -p "$out/priority"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/priority LD_PRELOAD=$lib python3 "$here/priority_streams.py" 2>&1 | tail -6
check_py "$out"/priority/syncwatch-*.json "$here/priority_streams.py" PRIORITY-POW syncwatch-priority-inversion
log "PyTorch extension (tests/gpu/torch_ext): the planted legacy-stream launch and .item(), debug and release"
SWTORCH_BUILD_ROOT=$out bash "$here/torch_ext/run.sh" "$out/torch_ext" 2>&1 | grep -v '^  #' | tail -12
# This run's recordings must meet the committed recordings' expectations.
mkdir -p "$out/torch_ext/replay"
for v in debug release; do
  cp "$out"/torch_ext/rep-$v/syncwatch-*.swrec "$out/torch_ext/replay/h200_torch_ext_$v.swrec" 2>/dev/null || fail=1
  cp "$root/test_inputs/runtime/h200_torch_ext_$v.expect" "$out/torch_ext/replay/"
done
python3 "$root/tests/runtime/replay_test.py" "$build/interposer/syncwatch" "$out/torch_ext/replay" > "$out/torch_ext/replay.log" || fail=1
tail -3 "$out/torch_ext/replay.log"
log "graph captures: each failure named at its line and thread (tests/gpu/capture_failures.cu)"
nvcc -g -O2 -arch=sm_90 -o "$build/capture_failures" "$here/capture_failures.cu" || fail=1
plain=$("$build/capture_failures"); pre=$(LD_PRELOAD=$lib SYNCWATCH_QUIET=1 "$build/capture_failures")
[ "$plain" = "$pre" ] && echo "capture probe: same stdout preloaded" || { echo "capture probe: stdout differs"; fail=1; }
"$sw" run --out "$out/capture" --record -- "$build/capture_failures" >/dev/null || fail=1
python3 "$here/check_capture.py" "$here/capture_failures.cu" "$out"/capture/syncwatch-*.json --ended 7 --failed 6 || fail=1
"$sw" run --out "$out/capture_torch" --record -- python3 "$here/capture_failures_torch.py" >/dev/null || fail=1
python3 "$here/check_capture.py" "$here/capture_failures_torch.py" "$out"/capture_torch/syncwatch-*.json || fail=1
log "seed scenario with Python stacks off (SYNCWATCH_PYTHON=0): native sites as before"
SYNCWATCH_PYTHON=0 SYNCWATCH_QUIET=1 SYNCWATCH_OUT=$out LD_PRELOAD=$lib python3 "$here/seed_streams.py" true >/dev/null 2>&1 || fail=1
[ "$quick" = "--quick" ] && exit $fail

# 3 launch-loop and 2 PyTorch repetitions per mode: the whole script then fits one 10-minute
# device call (about 90 s of tests, 300 s of benchmark on an H200); the raw runs are kept.
log "overhead benchmark (bench/runtime_overhead.sh)"
BENCH_LOG=$out/bench_raw.log BENCH_PY_REPS=${BENCH_PY_REPS:-2} "$root/bench/runtime_overhead.sh" "$build" 3
exit $fail
