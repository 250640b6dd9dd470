#!/usr/bin/env bash
# Field test of syncwatch-lint on NVIDIA/cccl's Thrust test suite (thrust/testing: 229 test
# sources; field test commit 571f2fc3bc53cd710e306ad43d58995c1fe4219f).
#
#   bench/field/cccl-thrust.sh SRC_DIR CATCH2_DIR OUT_DIR
#
# SRC_DIR: a checkout of NVIDIA/cccl. CATCH2_DIR: a checkout of catchorg/Catch2 (v3): the
# thrust tests named catch2_test_*.cu use it and CCCL's CMake fetches it with CPM at configure
# time; CPM_Catch2_SOURCE points CPM at the local copy so that no network is needed.
# Thrust, CUB and libcu++ come from SRC_DIR through -I, so they are the project's own
# headers here (not CUDA 13's bundled CCCL, which syncwatch-lint adds only as -isystem after them).
# Not run by CI (about 25 minutes on two cores: each test instantiates much of Thrust).
set -euo pipefail
SRC=$(realpath "${1:?usage: cccl-thrust.sh SRC_DIR CATCH2_DIR OUT_DIR}")
CATCH2=$(realpath "${2:?usage: cccl-thrust.sh SRC_DIR CATCH2_DIR OUT_DIR}")
OUT=$(realpath -m "${3:?usage: cccl-thrust.sh SRC_DIR CATCH2_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"

# Thrust only, one host.device configuration (CPP.CUDA, the default without
# THRUST_ENABLE_MULTICONFIG), C++17 (CCCL's presets set the dialect; without one its CMake
# fails with "unknown feature cuda_std_"). Examples, header tests, CUB, libcu++ and cudax off.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_CUDA_STANDARD=17 \
  -DCCCL_ENABLE_THRUST=ON -DCCCL_ENABLE_TESTING=ON -DTHRUST_ENABLE_TESTING=ON \
  -DCCCL_ENABLE_CUB=OFF -DCCCL_ENABLE_LIBCUDACXX=OFF -DCCCL_ENABLE_CUDAX=OFF \
  -DCCCL_ENABLE_C_PARALLEL=OFF -DCCCL_ENABLE_EXAMPLES=OFF -DCCCL_ENABLE_BENCHMARKS=OFF \
  -DTHRUST_ENABLE_EXAMPLES=OFF -DTHRUST_ENABLE_HEADER_TESTING=OFF \
  -DCCCL_SKIP_BUILD_CHECKS=ON -DCCCL_ENABLE_CUDA_SMOKE_TESTS=OFF \
  -DCPM_Catch2_SOURCE="$CATCH2" > "$OUT/cmake.log"

# 296 nvcc entries over 229 files: the test framework's testframework.cu is compiled into
# several targets. The 106 .cpp entries (Catch2's own sources) are g++'s.
field_lint cccl-thrust "$OUT/build" "$OUT"
