#!/usr/bin/env bash
# Configures and builds syncwatch into build/ (Release, Ninja, 2 jobs: the machine has 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib.sh
ci_check_build_dir build
ci_phase "configure (cmake)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
ci_phase "build (ninja -j2)"
ninja -C build -j2
