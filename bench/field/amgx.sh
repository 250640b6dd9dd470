#!/usr/bin/env bash
# Field test of syncwatch-lint on NVIDIA/AMGX (algebraic multigrid; field test commit
# 3188dce5bdc22e96407d609e398925bed6aa010d).
#
#   bench/field/amgx.sh SRC_DIR OUT_DIR
#
# SRC_DIR: a checkout of NVIDIA/AMGX (no submodules needed: rapidjson is vendored).
# Configures it with CMake only (nothing is built; no GPU needed) and lints the nvcc entries.
# MPI is optional: without it CMake configures the non-MPI build, as here.
# Not run by CI (it needs the checkout and ~5 minutes of two cores).
set -euo pipefail
SRC=$(realpath "${1:?usage: amgx.sh SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: amgx.sh SRC_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"

# sm_90 only: one architecture is what syncwatch-lint parses for anyway (--cuda-gpu-arch),
# and AMGX's default "90;100;120" adds nothing to host-side analysis.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cmake.log"

# 169 nvcc entries (166 files: three are in two targets). src/tests/*.cu (60 files) are in the
# tree but no target of AMGX's CMake compiles them, so they are not units.
field_lint amgx "$OUT/build" "$OUT"
