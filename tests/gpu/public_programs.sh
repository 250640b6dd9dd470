#!/usr/bin/env bash
# syncwatch confirm on public programs (issues 12 and 21): real CUDA programs from two code
# bases, each built as a user would for profiling (-O3 plus host line tables, -Xcompiler -g1)
# and run under `syncwatch run --record` on the GPU. Brings back, per program, the recording,
# the run's log and a compile_commands.json of the build; the lint and the join run on the
# machine that has LLVM (bench/confirm_join.py, tests/confirm_test.py).
#
# The code bases are carried in .extern/ (git archives, not committed):
#   .extern/CUDALibrarySamples  NVIDIA/CUDALibrarySamples at 34377293fb148e90aad16fd762fa2445f941be55
#                               (cuBLAS cuFFT cuSPARSE cuRAND cuSOLVER), built with their CMake files
#   .extern/code-samples        NVIDIA-developer-blog/code-samples at 72d62ec464442786a36754508bcb1094d197d6a5,
#                               single-file programs, built with nvcc as their Makefiles do
#
# Usage: public_programs.sh BUILD_DIR OUTDIR [NAME...]   (no NAME: every program below)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
sw=$(cd "$1" && pwd)/interposer/syncwatch; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2; mkdir -p "$out"
ext=$root/.extern
flags="-O3 -Xcompiler -g1 -arch=sm_90"

# name | kind (cmake: a CMake sample directory; nvcc: one .cu file) | path under .extern |
# extra nvcc flags and libraries | the executable's arguments (cmake: a glob for the executable)
programs='
cuBLAS_Level-3_gemm|cmake|CUDALibrarySamples/cuBLAS/Level-3/gemm||*example*
cuBLAS_Level-1_axpy|cmake|CUDALibrarySamples/cuBLAS/Level-1/axpy||*example*
cuFFT_1d_c2c|cmake|CUDALibrarySamples/cuFFT/1d_c2c||*example*
cuBLAS_Level-3_gemmBatched|cmake|CUDALibrarySamples/cuBLAS/Level-3/gemmBatched||*example*
cuSPARSE_spmv_csr|cmake|CUDALibrarySamples/cuSPARSE/spmv_csr||*example*
cuSPARSE_graph_capture|cmake|CUDALibrarySamples/cuSPARSE/graph_capture||*example*
cuSOLVER_getrf|cmake|CUDALibrarySamples/cuSOLVER/getrf||*example*
cuRAND_philox|cmake|CUDALibrarySamples/cuRAND/Host/philox||*uniform*
cs_overlap_async|nvcc|code-samples/series/cuda-cpp/overlap-data-transfers/async.cu||
cs_transfers_profile|nvcc|code-samples/series/cuda-cpp/optimize-data-transfers/profile.cu||
cs_bandwidthtest|nvcc|code-samples/series/cuda-cpp/optimize-data-transfers/bandwidthtest.cu||
cs_finite_difference|nvcc|code-samples/series/cuda-cpp/finite-difference/finite-difference.cu||
cs_transpose|nvcc|code-samples/series/cuda-cpp/transpose/transpose.cu||
cs_shared_memory|nvcc|code-samples/series/cuda-cpp/shared-memory/shared-memory.cu||
cs_coalescing|nvcc|code-samples/series/cuda-cpp/coalescing-global/coalescing.cu||
cs_dataElem|nvcc|code-samples/posts/unified-memory/dataElem.cu||
cs_dataElem_um|nvcc|code-samples/posts/unified-memory/dataElem_um.cu||
cs_reduction_shfl|nvcc|code-samples/posts/parallel_reduction_with_shfl/main.cu||4000000 20
cs_haxpy|nvcc|code-samples/posts/mixed-precision/haxpy.cu|--std=c++11|
cs_tensor_core_gemm|nvcc|code-samples/posts/tensor-cores/simpleTensorCoreGEMM.cu|-lcublas -lcurand|
cs_cublas_example|nvcc|code-samples/posts/math-libraries-intro/cublas-example.cu|-lcublas|
cs_vmm_sync|nvcc|code-samples/posts/cuda-vmm/sync_main.cu|-lcuda|
cs_gups|nvcc|code-samples/posts/gups/gups.cu|-std=c++14 -DSTATIC_SHMEM|
cs_lstm|nvcc|code-samples/posts/rnn/LSTM.cu|-DPERFOPTS=31 -lcublas -lcurand|
cs_nvtx_manual|nvcc|code-samples/posts/nvtx/manual_nvtx.cu||
'

want=("$@")
wanted() { [ ${#want[@]} -eq 0 ] && return 0; local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

# compile_commands.json for a one-file nvcc build: what the lint needs to parse it as nvcc did.
nvcc_db() {  # DIR FILE FLAGS...
  python3 - "$@" <<'EOF'
import json, shlex, sys
d, f, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
args = ["/usr/local/cuda/bin/nvcc"] + [a for a in extra if not a.startswith("-l")] + ["-c", f, "-o", f + ".o"]
print(json.dumps([{"directory": d, "file": f, "arguments": args}], indent=1))
EOF
}

build_one() {  # NAME KIND PATH EXTRA: builds; the executable's path goes to $out/NAME.exe
  local name=$1 kind=$2 path=$ext/$3 extra=$4 b
  if [ "$kind" = cmake ]; then
    b=$path/build
    cmake -S "$path" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="-O3 -Xcompiler -g1" -DCMAKE_CXX_FLAGS="-g1" \
      -DCMAKE_C_FLAGS="-g1" > "$out/$name.build.log" 2>&1 && ninja -C "$b" >> "$out/$name.build.log" 2>&1 || return 1
    cp "$b/compile_commands.json" "$out/$name.compile_commands.json"
  else
    local dir; dir=$(dirname "$path"); local exe=$dir/$name.bin
    # shellcheck disable=SC2086
    (cd "$dir" && nvcc $flags $extra -o "$exe" "$(basename "$path")") > "$out/$name.build.log" 2>&1 || return 1
    # shellcheck disable=SC2086
    nvcc_db "$dir" "$path" $flags $extra > "$out/$name.compile_commands.json"
  fi
}

# Builds in parallel (nvcc and CMake are slow; the runs are not, and must not share the GPU).
pids=()
while IFS='|' read -r name kind path extra args; do
  [ -n "$name" ] && wanted "$name" || continue
  ( build_one "$name" "$kind" "$path" "$extra" || echo "$name: build failed" > "$out/$name.failed" ) &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
done <<< "$programs"
wait

fail=0
while IFS='|' read -r name kind path extra args; do
  [ -n "$name" ] && wanted "$name" || continue
  if [ -e "$out/$name.failed" ]; then echo "== $name: build failed"; tail -5 "$out/$name.build.log"; fail=1; continue; fi
  p=$ext/$path
  if [ "$kind" = cmake ]; then
    exes=$(find "$p/build/bin" "$p/build" -maxdepth 1 -type f -executable -name "$args" 2>/dev/null | sort); exe=${exes%%$'\n'*}
    dir=$p/build; args=
  else
    dir=$(dirname "$p"); exe=$dir/$name.bin
  fi
  mkdir -p "$out/$name"
  mv "$out/$name.compile_commands.json" "$out/$name/compile_commands.json"
  # shellcheck disable=SC2086
  (cd "$dir" && timeout 120 "$sw" run --record --out "$out/$name" -- "$exe" $args) > "$out/$name.run.log" 2>&1; rc=$?
  echo "== $name: exit $rc, $(ls "$out/$name" | tr '\n' ' ')"
  grep -E "warning|call site" "$out/$name.run.log" | cut -c1-200 | sed -n 1,4p
done <<< "$programs"
exit $fail
