#!/usr/bin/env bash
# Field test of syncwatch-lint on ginkgo-project/ginkgo (sparse linear algebra; field test
# commit 591cd136b6): its CUDA backend and the CUDA tests, the units nvcc compiles.
#
#   bench/field/ginkgo.sh SRC_DIR OUT_DIR
#
# SRC_DIR: a checkout of ginkgo-project/ginkgo (no submodules). Needs CUDA, CMake >= 3.18,
# ninja, GTest and nlohmann_json installed (Debian: libgtest-dev, nlohmann-json3-dev; ginkgo
# fetches them from the network otherwise). Configures with CMake only (nothing is built; no
# GPU needed) and lints the nvcc entries. Not run by CI.
set -euo pipefail
SRC=$(realpath "${1:?usage: ginkgo.sh SRC_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: ginkgo.sh SRC_DIR OUT_DIR}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/field/lib.sh
. "$HERE/lib.sh"

# Two things the configure step cannot get offline, neither an nvcc unit: the config
# extension's test fetches yaml-cpp >= 0.8 (Debian 12 has 0.7), so its subdirectory is left
# out; three test matrices (git LFS-sized blobs a partial mirror may lack) are only copied by
# configure_file, so empty ones stand in when they are missing.
sed -i 's/^add_subdirectory(config)$/# add_subdirectory(config)  # (bench\/field\/ginkgo.sh: needs yaml-cpp 0.8 from the network)/' \
  "$SRC/extensions/test/CMakeLists.txt"
for m in ani4_lu ani4_chol ani4_amd_lu; do
  [ -e "$SRC/matrices/test/$m.mtx" ] || { mkdir -p "$SRC/matrices/test"; : > "$SRC/matrices/test/$m.mtx"; }
done

mkdir -p "$OUT"
# CUDA only (no OpenMP, HIP, SYCL or MPI backends); the tests on (cuda/test: most of the
# .cu files) and the benchmarks (their CUDA timers and solvers; Debian: libgflags-dev), examples
# off; sm_90 only.
cmake -S "$SRC" -B "$OUT/build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGINKGO_BUILD_CUDA=ON -DGINKGO_BUILD_OMP=OFF -DGINKGO_BUILD_HIP=OFF -DGINKGO_BUILD_SYCL=OFF \
  -DGINKGO_BUILD_MPI=OFF -DGINKGO_BUILD_TESTS=ON -DGINKGO_BUILD_EXAMPLES=OFF \
  -DGINKGO_BUILD_BENCHMARKS=ON -DGINKGO_BUILD_HWLOC=OFF > "$OUT/cmake.log"

# The split template instantiations (GINKGO_SPLIT_TEMPLATE_INSTANTIATIONS: 62 of the units,
# cuda/*/*.instantiate.N.{cpp,cu}) are made at build time by a CMake script: only those
# custom commands run, nothing is compiled.
ninja -C "$OUT/build" -t targets all | grep -E '^[^/].*instantiate\.[0-9]+\.(cpp|cu): CUSTOM_COMMAND' |
  cut -d: -f1 | xargs ninja -C "$OUT/build" > "$OUT/generate.log"

field_lint ginkgo "$OUT/build" "$OUT"
