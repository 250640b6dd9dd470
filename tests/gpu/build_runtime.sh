#!/usr/bin/env bash
# Builds the runtime half (libsyncwatch.so, syncwatch, the benchmarks) for the GPU machine
# into BUILD (default build-gpu), Release, without the analyzer: the one build block the
# tests/gpu scripts share. The GPU image has no gelf.h; a copy carried in .gpu-include is
# used when present (run's carry).
#   tests/gpu/build_runtime.sh [BUILD]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpu}
if [ ! -f /usr/include/gelf.h ] && [ -f "$root/.gpu-include/gelf.h" ]; then
  export CMAKE_INCLUDE_PATH=$root/.gpu-include${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSYNCWATCH_BUILD_ANALYZER=OFF \
  -DSYNCWATCH_BUILD_TESTS=OFF -DSYNCWATCH_BUILD_INTERPOSER=ON >/dev/null && ninja -C "$build" >/dev/null
