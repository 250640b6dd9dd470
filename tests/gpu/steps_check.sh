#!/usr/bin/env bash
# SYNCWATCH_STEP on the H200 (issue 37: a region the user names): NVTX-marked steps seen
# through CUPTI's NVTX domain, in a C++ program (code-samples' manual_nvtx.cu, nvtxRangePushEx,
# its 'daxpy' range) and in PyTorch (tests/gpu/step_loop.py: range_push/pop and
# range_start/end), plain and with SYNCWATCH_MEASURE=steps, plus the loop without syncwatch
# and under SYNCWATCH_STEP with nsys's NVTX_INJECTION64_PATH taken (said, no steps).
# Recordings and reports to $OUT/steps. Carry: .extern.
set -u
root=$PWD; b=$root/build-gpu; export PATH=$PATH:/usr/local/cuda/bin; o=$OUT/steps; mkdir -p "$o"
exec > >(tee "$OUT/steps.log") 2>&1
t0=$SECONDS; say() { echo "[$((SECONDS - t0)) s] $*"; }
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF -DSYNCWATCH_BUILD_TESTS=OFF > "$o/build.log" 2>&1 &&
  timeout 240 ninja -C "$b" >> "$o/build.log" 2>&1 || { say "BUILD FAILED"; tail -20 "$o/build.log"; exit 1; }
nv=.extern/code-samples/posts/nvtx
# (its ranges are compiled only with USE_NVTX)
(cd $nv && nvcc -O3 -Xcompiler -g1 -arch=sm_90 -DUSE_NVTX -o manual_nvtx.bin manual_nvtx.cu -ldl) || say "manual_nvtx build failed"
sw=$b/interposer/syncwatch
say "manual_nvtx.cu, SYNCWATCH_STEP=daxpy"
SYNCWATCH_STEP=daxpy timeout 60 $sw run --record --out "$o/nvtx" -- $nv/manual_nvtx.bin
say "step_loop.py, SYNCWATCH_STEP='*_step'"
SYNCWATCH_STEP='*_step' timeout 90 $sw run --record --out "$o/loop" -- python3 tests/gpu/step_loop.py
say "step_loop.py, SYNCWATCH_MEASURE=steps"
SYNCWATCH_STEP='*_step' SYNCWATCH_MEASURE=steps timeout 90 $sw run --record --out "$o/loop_measure" -- python3 tests/gpu/step_loop.py
say "step_loop.py, another tool's NVTX_INJECTION64_PATH"
NVTX_INJECTION64_PATH=/nonexistent/libToolsInjection64.so SYNCWATCH_STEP='*_step' timeout 90 $sw run --out "$o/loop_taken" -- python3 tests/gpu/step_loop.py
for d in nvtx loop loop_measure loop_taken; do
  echo "== $d"; python3 - "$o/$d" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    figs = json.load(open(f)).get("figures", {})
    print(f.split("/")[-1], {k: v for k, v in figs.items() if k.startswith("steps.") or k in ("hostTimeLostMs", "coverage.launches")})
PY
done
say "done"
