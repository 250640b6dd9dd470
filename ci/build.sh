#!/usr/bin/env bash
# Configures and builds syncwatch into build/ (Release, Ninja, 2 jobs: the machine has 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
ninja -C build -j2
