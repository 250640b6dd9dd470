#!/usr/bin/env bash
# Field test of ONE rule, syncwatch-capture-breaking-call, on the files of public code bases
# that begin a CUDA graph stream capture. Lints each file alone (no compile database, except
# AMReX whose generated AMReX_Config.H comes from a CMake configure), all syncwatch rules on,
# JSON output; the capture-breaking-call findings are labelled by hand in labels.tsv.
#
#   bench/field/capture/run.sh BASE SRC_DIR OUT_DIR
#     BASE: cccl | tensorrt | cusparse | amrex | ggml | warp
#     SRC_DIR: a checkout of the code base at the commit named in README.md
#     OUT_DIR: gets <file-tag>.json, <file-tag>.stderr, <file-tag>.rc per linted file
# Environment: AMREX_SHIM (amrex with CUDA >= 13: the cudaMemAdvise shim, see README.md), STUBS (warp),
#   CATCH2 / CATCH2_GEN (cccl: Catch2 v3 sources and its CMake generated-includes);
#   SYNCWATCH_LINT (default syncwatch-lint), CUDA_PATH (default /usr/local/cuda),
#   AMREX_BUILD (amrex only: a directory where AMReX's CMake was configured, see README.md).
set -uo pipefail
BASE=${1:?usage: run.sh BASE SRC_DIR OUT_DIR}
SRC=$(realpath "${2:?usage: run.sh BASE SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${3:?usage: run.sh BASE SRC_DIR OUT_DIR}")
LINT=${SYNCWATCH_LINT:-syncwatch-lint}
CUDA=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$OUT"
COMMON=(--cuda-gpu-arch=sm_90 -nocudalib -DNDEBUG)

lint1() {  # TAG FILE CLANG_ARGS...
  local tag=$1 file=$2; shift 2
  local rc=0
  echo "== $tag: $file" >&2
  ( cd "$SRC" && /usr/bin/time -f "%e s %M KiB" nice -n 10 "$LINT" -j 1 --checks='syncwatch-*' \
      --format=json --output="$OUT/$tag.json" "$file" -- "${COMMON[@]}" "$@" ) \
      2> "$OUT/$tag.stderr" || rc=$?
  echo "$rc" > "$OUT/$tag.rc"
  tail -n 2 "$OUT/$tag.stderr" >&2
}

case $BASE in
cccl)
  CATCH2=${CATCH2:?cccl: set CATCH2 to a catchorg/Catch2 v3 checkout and CATCH2_GEN to its generated-includes dir}
  CUBT=(-x cuda -std=c++17 -I cub -I thrust -I libcudacxx/include -I c2h/include -I cub/test
        -isystem "$CATCH2/src" -isystem "${CATCH2_GEN:?}" -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA
        -D_CCCL_NO_SYSTEM_HEADER -DCATCH_CONFIG_PREFIX_ALL)
  lint1 cub_reduce_deferred cub/test/catch2_test_device_reduce_deferred.cu "${CUBT[@]}" -DTEST_LAUNCH=0
  lint1 cub_transform_env cub/test/catch2_test_device_transform_env.cu "${CUBT[@]}" -DTEST_LAUNCH=0
  # the launch helpers capture only when the test is built with TEST_LAUNCH=2 (one of its %PARAM% variants)
  lint1 cub_reduce_lid2 cub/test/catch2_test_device_reduce.cu "${CUBT[@]}" -DTEST_LAUNCH=2
  lint1 cub_copy_env_lid2 cub/test/catch2_test_device_copy_env.cu "${CUBT[@]}" -DTEST_LAUNCH=2
  CUDAX=(-x cuda -std=c++20 -I cudax/include -I cub -I thrust -I libcudacxx/include -I cudax/test)
  lint1 cudax_graphConditionalNodes cudax/test/stf/cuda-samples/3_CUDA_Features/graphConditionalNodes/graphConditionalNodes.cu "${CUDAX[@]}"
  lint1 cudax_jacobi cudax/test/stf/cuda-samples/3_CUDA_Features/jacobiCudaGraphs/jacobi.cu "${CUDAX[@]}"
  lint1 cudax_legacy_to_stf_in_capture cudax/test/stf/local_stf/legacy_to_stf_in_capture.cu "${CUDAX[@]}"
  lint1 libcudacxx_debugging_stream libcudacxx/test/debugging/stream/source.cu -x cuda -std=c++17 -I libcudacxx/include
  ;;
tensorrt)
  TRT=(-std=c++17 -I "$CUDA/include" -I include -I samples/common -I samples -I shared)
  lint1 trt_sampleInference samples/common/sampleInference.cpp "${TRT[@]}"
  lint1 trt_trtSafeExec samples/trtSafeExec/trtSafeExec.cpp "${TRT[@]}"
  ;;
cusparse)
  lint1 cusparse_graph_capture cuSPARSE/graph_capture/graph_capture_example.c -I "$CUDA/include"
  ;;
amrex)
  B=${AMREX_BUILD:?amrex: set AMREX_BUILD to a configured AMReX CMake build dir (AMReX_Config.H)}
  AMX=(-x cuda -std=c++17 -DAMREX_SPACEDIM=3 -I Src/Base -I Src/Base/Parser -I Src/Boundary -I Src/AmrCore
       -I Src/Amr -I Src/LinearSolvers -I Src/LinearSolvers/MLMG -I Src/Particle -I "$B"
       -Wno-unknown-cuda-version ${AMREX_SHIM:+-include "$AMREX_SHIM"})
  lint1 amrex_GpuDevice Src/Base/AMReX_GpuDevice.cpp "${AMX[@]}"
  # The capture regions that use startGraphRecording/stopGraphRecording are templates in
  # AMReX_FBI.H (FB_local_copy_cuda_graph_{1,n}); no library .cpp instantiates them for FArrayBox
  # in a way that reaches them, so a two-line unit does (MultiFab::FillBoundary), linted together
  # with AMReX_GpuDevice.cpp (the definitions of start/stopGraphRecording) in one run.
  printf '#include <AMReX_MultiFab.H>\nvoid fb(amrex::MultiFab& mf) { mf.FillBoundary(); }\n' > "$OUT/amrex_fb_instantiate.cpp"
  lint1 amrex_fb_with_GpuDevice "$OUT/amrex_fb_instantiate.cpp" "${AMX[@]}"
  ( cd "$SRC" && nice -n 10 "$LINT" -j 1 --checks='syncwatch-*' --format=json \
      --output="$OUT/amrex_fb_plus_GpuDevice.json" "$OUT/amrex_fb_instantiate.cpp" Src/Base/AMReX_GpuDevice.cpp \
      -- "${COMMON[@]}" "${AMX[@]}" ) 2> "$OUT/amrex_fb_plus_GpuDevice.stderr"; echo $? > "$OUT/amrex_fb_plus_GpuDevice.rc"
  ;;
ggml)
  GG=(-x cuda -std=c++17 -I src -I include -I src/ggml-cuda -DGGML_USE_CUDA -DGGML_CUDA_USE_GRAPHS
      -DGGML_CUDA_PEER_MAX_BATCH_SIZE=128 -DGGML_SCHED_MAX_COPIES=4)
  lint1 ggml_cuda src/ggml-cuda/ggml-cuda.cu "${GG[@]}"
  ;;
warp)
  # STUBS: a directory with nvPTXCompiler.h (not in every CUDA install; see README.md)
  WP=(-x cuda -std=c++17 -I warp/native -DWP_ENABLE_CUDA=1 -DWP_ENABLE_DEBUG=0 -I "${STUBS:?warp: set STUBS}")
  lint1 warp_cu warp/native/warp.cu "${WP[@]}"
  ;;
*) echo "unknown base $BASE" >&2; exit 2;;
esac
