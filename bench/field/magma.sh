#!/usr/bin/env bash
# Field test of syncwatch-lint on MAGMA (icl-utk-edu/magma: dense and sparse linear algebra on
# GPUs; field test commit c64e52ab893601dc89d6e92d675307875325c231).
#
#   bench/field/magma.sh SRC_DIR OUT_DIR
#
# SRC_DIR: a checkout of icl-utk-edu/magma (a git checkout, not a release tarball).
# Not run by CI (make generate takes ~5 minutes, the lint ~5 more on two cores).
set -euo pipefail
SRC=$(realpath "${1:?usage: magma.sh SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: magma.sh SRC_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"
mkdir -p "$OUT"

# The repository holds only the double-complex ("z") sources; MAGMA's own precision generator
# (tools/codegen.py, driven by `make generate`) writes the s/d/c copies and CMake.src.cuda,
# the source list CMakeLists.txt reads. Release tarballs ship these already generated.
if [[ ! -f "$SRC/CMake.src.cuda" ]]; then
  printf 'BACKEND = cuda\nFORT = false\nGPU_TARGET = sm_90\n' > "$SRC/make.inc"
  make -C "$SRC" generate > "$OUT/generate.log"
fi

# Configure only. LAPACK_LIBRARIES is given so that CMake does not search for a BLAS/LAPACK
# it would only link against (the headers MAGMA needs are its own); Fortran off.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DMAGMA_ENABLE_CUDA=ON -DGPU_TARGET=sm_90 -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DLAPACK_LIBRARIES=-llapack -DUSE_FORTRAN=OFF > "$OUT/cmake.log"

# 618 nvcc entries (magmablas/, magmablas/*batched*, sparse/blas/, ...). The 1,953 .cpp entries
# (src/, testing/, interface_cuda/) are g++'s and not part of the count.
field_lint magma "$OUT/build" "$OUT"
