#!/usr/bin/env bash
# Field test of syncwatch-lint on HOOMD-blue (glotzerlab/hoomd-blue: particle simulation,
# MD and hard-particle Monte Carlo; field test commit 967b6a431e1a3f1b07f52f2990fc2c711b57e141).
#
#   bench/field/hoomd.sh SRC_DIR OUT_DIR
#
# SRC_DIR: a checkout of glotzerlab/hoomd-blue WITH its submodules (git clone --recursive):
# hoomd/extern/{HIP,hipCUB,hipper,neighbor,random123,upp11,nano-signal-slot,quickhull}.
# HOOMD's GPU code is written against HIP; on NVIDIA, glotzerlab/HIP's headers map hip* onto
# the CUDA runtime (HIP_PLATFORM=nvcc) and every .cu is compiled by nvcc.
# Needs Eigen 3 (apt install libeigen3-dev) and pybind11 >= 2.12 (pip install pybind11),
# Python development headers. Not run by CI (~3 minutes on two cores).
#
# CUDA 13 cannot build this commit: HOOMD asks for compute_60/70 (nvcc 13: "Unsupported gpu
# architecture 'compute_60'"), CUDA C++14 (CCCL 3 needs C++17), and glotzerlab/HIP's
# nvcc_detail/hip_runtime_api.h uses cudaDeviceProp::clockRate and the old cuCtxCreate, both gone
# in CUDA 13. So with CUDA 13 nvcc compiles none of the 262 units; run it with CUDA 12.x for a
# field test. With CUDA 13 it is a test of syncwatch-lint's error reporting (docs/field-test.md).
set -euo pipefail
SRC=$(realpath "${1:?usage: hoomd.sh SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: hoomd.sh SRC_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"

# ENABLE_GPU=ON selects the HIP-on-CUDA build. Configure only: CMake's configure_file writes
# the shape x kernel matrix of HPMC's template instantiations (kernel_*_Shape*.cu from
# hoomd/hpmc/*.cu.inc) into the build directory, so those units exist after this step.
# HOOMD picks its own GPU architectures (sm_60/70/80) whatever CMAKE_CUDA_ARCHITECTURES says.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_BUILD_TYPE=Release -DENABLE_GPU=ON -DBUILD_TESTING=OFF \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES=90 \
  -Dpybind11_DIR="$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())')" \
  > "$OUT/cmake.log"

# 262 nvcc entries (261 files) in _hoomd, _md, _hpmc, _mpcd, _metal: GPU kernels and their
# host-side launchers. The .cc entries (g++) are the Python-facing classes.
field_lint hoomd "$OUT/build" "$OUT"
