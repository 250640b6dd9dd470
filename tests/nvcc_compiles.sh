#!/usr/bin/env bash
# Every static test input must also be a real CUDA program: nvcc compiles it, so the
# runtime half can run it on a GPU. Usage: nvcc_compiles.sh FILE.cu
set -euo pipefail
f=$1
flags=$(sed -n '1,8s#^// nvcc-flags: ##p' "$f")
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# shellcheck disable=SC2086
exec "$nvcc" -arch=sm_90 $flags -c "$f" -o /dev/null
