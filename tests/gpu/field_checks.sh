#!/usr/bin/env bash
# GPU checks of issue 10 beyond run_gpu_tests.sh: the preload test on the GPU image, a
# release build's call sites, two stacks at one line, and the seed's priority scenario.
# Usage: tests/gpu/field_checks.sh BUILD_DIR OUTDIR   (BUILD_DIR: run_gpu_tests.sh's build-gpu)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
build=$1; out=$2; mkdir -p "$out"; fail=0
lib=$build/interposer/libsyncwatch.so; sw=$build/interposer/syncwatch
log() { echo "== $*"; }

log "which CUPTI calls start threads"
gcc -I/usr/local/cuda/include -o "$build/cupti_threads" "$here/cupti_threads.c" -L/usr/local/cuda/lib64 -lcupti \
  -Wl,-rpath,/usr/local/cuda/lib64 && "$build/cupti_threads"

log "preload test on the GPU machine"
gcc -O2 -o "$build/fork_exec" "$root/tests/runtime/preload/fork_exec.c" &&
  g++ -O2 -pthread -o "$build/iostream_static_thread" "$root/tests/runtime/preload/iostream_static_thread.cpp" &&
  g++ -O2 -std=c++17 -o "$build/gpu_code_probe" "$root/tests/runtime/preload/gpu_code_probe.cpp" "$root/interposer/sites/CudaPresence.cpp" || fail=1
python3 "$root/tests/runtime/preload_test.py" "$lib" "$build" "$(command -v nvcc)" || fail=1

log "release build (nvcc -O3, no -g): call sites from the symbol table"
nvcc -O3 -arch=sm_90 -o "$build/probe_release" "$here/runtime_probe.cu" || fail=1
mkdir -p "$out/release"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/release LD_PRELOAD=$lib "$build/probe_release" 2>&1 | grep -E "warning|note" | cut -c1-220
python3 - "$out"/release/syncwatch-*.json <<'PY' || fail=1
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
kinds = [dict(x["evidence"]).get("callSite") for x in f]
unknown = [x for x in f if x["location"]["file"] == "<unknown call site>"]
print(("PASS" if f and not unknown else "FAIL") + f"  release build: {len(f)} findings, call sites {kinds}, {len(unknown)} unknown")
sys.exit(0 if f and not unknown else 1)
PY
for flags in "-lineinfo" "-Xcompiler -g1"; do
  log "release build with nvcc -O3 $flags: file:line?"
  tag=$(echo "$flags" | tr -dc 'a-z0-9')
  nvcc -O3 $flags -arch=sm_90 -o "$build/probe_$tag" "$here/runtime_probe.cu" || fail=1
  mkdir -p "$out/$tag"
  SYNCWATCH_QUIET=1 SYNCWATCH_OUT=$out/$tag LD_PRELOAD=$lib "$build/probe_$tag" >/dev/null
  python3 "$here/check_probe.py" "$here/runtime_probe.cu" "$out"/$tag/syncwatch-*.json || echo "($flags: no host line tables)"
done

log "two stacks at one line: one finding"
nvcc -g -O2 -arch=sm_90 -o "$build/two_stacks" "$here/two_stacks.cu" || fail=1
mkdir -p "$out/two_stacks"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/two_stacks LD_PRELOAD=$lib "$build/two_stacks" 2>&1 | grep -E "warning|note" | cut -c1-300
python3 - "$out"/two_stacks/syncwatch-*.json "$(grep -n TWO-STACKS "$here/two_stacks.cu" | cut -d: -f1)" <<'PY' || fail=1
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["location"]["line"] == int(sys.argv[2])]
ev = dict(f[0]["evidence"]) if len(f) == 1 else {}
ok = len(f) == 1 and ev.get("count") == "72"
print(("PASS" if ok else "FAIL") + f"  two_stacks: {len(f)} finding(s) at the line, count {ev.get('count')}, stacks {ev.get('stacks')}, variants {ev.get('variants')}")
sys.exit(0 if ok else 1)
PY

for mode in different same; do
  log "seed priority scenario ($mode)"
  mkdir -p "$out/seed-priority-$mode"
  SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/seed-priority-$mode LD_PRELOAD=$lib python3 "$here/seed_priority.py" $mode 2>&1 |
    grep -E "seed priority|warning|note|busy" | cut -c1-300
done
python3 "$here/check_python_sites.py" "$out"/seed-priority-different/syncwatch-*.json "$here/seed_priority.py" SEED-POW syncwatch-priority-inversion || fail=1
log "seed priority scenario with CUDA_MODULE_LOADING=EAGER (no lazy module load in the first pow launch)"
mkdir -p "$out/seed-priority-eager"
CUDA_MODULE_LOADING=EAGER SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/seed-priority-eager LD_PRELOAD=$lib \
  python3 "$here/seed_priority.py" 2>&1 | grep -E "seed priority|warning|note" | cut -c1-400
CUDA_MODULE_LOADING=EAGER python3 "$here/seed_priority.py"; python3 "$here/seed_priority.py"

exit $fail
