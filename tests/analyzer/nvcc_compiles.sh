#!/usr/bin/env bash
# Every static test input must also be a real CUDA program: nvcc compiles it, so the
# runtime half can run it on a GPU. Usage: nvcc_compiles.sh FILE.cu
set -euo pipefail
f=$1
flags=$(sed -n '1,8s#^// nvcc-flags: ##p' "$f")
# @TORCH@: the torch wheel's include folders (tests/CMakeLists.txt, tools/torch_headers.py).
if [[ $flags == *@TORCH@* ]]; then
  [ -n "${SYNCWATCH_TORCH_FLAGS:-}" ] || { echo "nvcc_compiles: $f needs the torch headers (tools/torch_headers.py)" >&2; exit 1; }
  flags=${flags//@TORCH@/$SYNCWATCH_TORCH_FLAGS}
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# shellcheck disable=SC2086
exec "$nvcc" -arch=sm_90 $flags -c "$f" -o /dev/null
