#!/usr/bin/env bash
# syncwatch confirm on public programs (issue 12): NVIDIA/CUDALibrarySamples samples, each
# built with its own CMake flags plus host line tables, run under `syncwatch run --record`.
# Brings back each build's compile_commands.json and the reports; the lint and the confirm
# run on the machine that has LLVM (tests/confirm_public.sh).
# The samples are carried in .extern/CUDALibrarySamples (git archive of the repository at
# 34377293fb148e90aad16fd762fa2445f941be55).  Usage: public_programs.sh BUILD_DIR OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
sw=$1/interposer/syncwatch; out=$2; mkdir -p "$out"; fail=0
src=$root/.extern/CUDALibrarySamples
for s in cuBLAS/Level-3/gemm cuBLAS/Level-1/axpy cuFFT/1d_c2c; do
  name=$(echo "$s" | tr '/' '_')
  b=$src/$s/build
  cmake -S "$src/$s" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="-lineinfo -Xcompiler -g1" -DCMAKE_CXX_FLAGS="-g1" > "$out/$name.cmake.log" 2>&1 &&
    ninja -C "$b" > "$out/$name.build.log" 2>&1 || { echo "$s: build failed"; tail -5 "$out/$name.build.log"; fail=1; continue; }
  exes=$(find "$b/bin" "$b" -maxdepth 1 -type f -executable -name "*example*" 2>/dev/null); exe=${exes%%$'\n'*}
  mkdir -p "$out/$name"
  "$sw" run --record --out "$out/$name" -- "$exe" > "$out/$name.run.log" 2>&1; rc=$?
  echo "== $s: exit $rc, $(ls "$out/$name" | tr '\n' ' ')"
  grep -E "warning|note|call site" "$out/$name.run.log" | cut -c1-200 | sed -n 1,5p
  cp "$b/compile_commands.json" "$out/$name/compile_commands.json"
done
exit $fail
