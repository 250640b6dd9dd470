#!/usr/bin/env bash
# Field test of syncwatch-lint on NVIDIA/cutlass (CUDA C++ templates for GEMM and convolution;
# field test commit 7107b05535f8977f5ecb9d01ee203205b1fd9bc4): its examples and its unit
# tests except test/unit/gemm, the units nvcc compiles.
#
#   bench/field/cutlass.sh SRC_DIR OUT_DIR
#
# SRC_DIR: a checkout of NVIDIA/cutlass (no submodules). Needs CUDA, CMake, ninja and GTest
# (Debian: libgtest-dev; cutlass fetches googletest from the network otherwise). Configures
# with CMake only (nothing is built; no GPU needed) and lints the nvcc entries. Not run by CI.
set -euo pipefail
SRC=$(realpath "${1:?usage: cutlass.sh SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: cutlass.sh SRC_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"
mkdir -p "$OUT"

# sm_90a only (the Hopper examples and tests need the "a" features); the kernel library and
# the profiler off (the library generates thousands of kernel instantiation units, and nothing
# else needs it); tests and examples on, with the system GTest.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DCUTLASS_NVCC_ARCHS=90a -DCUTLASS_ENABLE_LIBRARY=OFF -DCUTLASS_ENABLE_PROFILER=OFF \
  -DCUTLASS_ENABLE_TESTS=ON -DCUTLASS_ENABLE_EXAMPLES=ON -DCUTLASS_USE_SYSTEM_GOOGLETEST=ON \
  > "$OUT/cmake.log"

# The database has 858 nvcc entries: 419 test/unit/gemm, 162 self-contained-include checks
# (build/test/self_contained_includes/*.h.cu: one header each, no host code), 277 others.
# Kept: the 277, examples/ (109 entries: the host programs with their cudaMalloc, events,
# streams and copies) and test/unit/ except gemm/ (168: conv, core, cute, epilogue, pipeline,
# ...; cute's .cpp tests are CUDA sources too). test/unit/gemm is left out for time: 419 more
# units of the same device testbeds as conv, ~10 s each on two cores.
field_lint cutlass "$OUT/build" "$OUT" "^$SRC/(examples/|test/unit/(?!gemm/))"
