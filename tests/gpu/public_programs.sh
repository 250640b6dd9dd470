#!/usr/bin/env bash
# syncwatch confirm on public programs (issues 12, 21 and 37): real CUDA programs from four
# code bases (tests/gpu/public_programs.txt says which, at which commits), each built as a user
# would for profiling (-O3 plus host line tables, -Xcompiler -g1) and run under
# `syncwatch run --record` on the GPU. Brings back, per program, the recording, the run's log
# and a compile_commands.json of the build; the lint and the join run on the machine that has
# LLVM (tests/gpu/import_public_programs.sh, bench/confirm_join.py, tests/join/confirm_test.py).
#
# The code bases are carried in .extern/ (git archives, not committed). CMake samples are built
# with their CMake files, single .cu files with nvcc as their Makefiles do.
#
# Usage: public_programs.sh BUILD_DIR OUTDIR [NAME...]   (no NAME: every program listed)
#   PP_PHASE=build  only builds (while syncwatch itself builds); PP_PHASE=run  only runs
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
sw=$(realpath -m "$1")/interposer/syncwatch; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2; mkdir -p "$out"
ext=$root/.extern
flags="-O3 -Xcompiler -g1 -arch=sm_90"

programs=$(grep -v '^#' "$here/public_programs.txt")
phase=${PP_PHASE:-all}

want=("$@")
wanted() { [ ${#want[@]} -eq 0 ] && return 0; local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

# compile_commands.json for a one-file nvcc build: what the lint needs to parse it as nvcc did.
nvcc_db() {  # DIR FILE FLAGS...
  python3 - "$@" <<'EOF'
import json, shlex, sys
d, f, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
args = ["/usr/local/cuda/bin/nvcc"] + [a for a in extra if not a.startswith("-l")] + ["-c", f, "-o", f + ".o"]
print(json.dumps([{"directory": d, "file": f, "arguments": args}], indent=1))
EOF
}

build_one() {  # NAME KIND PATH EXTRA: builds; the executable's path goes to $out/NAME.exe
  local name=$1 kind=$2 path=$ext/$3 extra=$4 b
  if [ "$kind" = cmake ]; then
    b=$path/build
    # (the linker flag: cuSPARSE's C samples link -lcudart by name, which the GPU image's
    # /opt/gcc did not find without CUDA's lib64)
    cmake -S "$path" -B "$b" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="-O3 -Xcompiler -g1" -DCMAKE_CXX_FLAGS="-g1" \
      -DCMAKE_C_FLAGS="-g1" -DCMAKE_EXE_LINKER_FLAGS="-L${CUDA_HOME:-/usr/local/cuda}/lib64" > "$out/$name.build.log" 2>&1 && ninja -C "$b" >> "$out/$name.build.log" 2>&1 || return 1
    cp "$b/compile_commands.json" "$out/$name.compile_commands.json"
  else
    local dir; dir=$(dirname "$path"); local exe=$dir/$name.bin
    # shellcheck disable=SC2086
    (cd "$dir" && nvcc $flags $extra -o "$exe" "$(basename "$path")") > "$out/$name.build.log" 2>&1 || return 1
    # shellcheck disable=SC2086
    nvcc_db "$dir" "$path" $flags $extra > "$out/$name.compile_commands.json"
  fi
}

# Builds in parallel (nvcc and CMake are slow; the runs are not, and must not share the GPU).
if [ "$phase" != run ]; then
pids=()
while IFS='|' read -r name kind path extra args; do
  [ -n "$name" ] && wanted "$name" || continue
  ( build_one "$name" "$kind" "$path" "$extra" || echo "$name: build failed" > "$out/$name.failed" ) &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
done <<< "$programs"
wait
fi
[ "$phase" = build ] && exit 0

fail=0
while IFS='|' read -r name kind path extra args; do
  [ -n "$name" ] && wanted "$name" || continue
  if [ -e "$out/$name.failed" ]; then echo "== $name: build failed"; tail -5 "$out/$name.build.log"; fail=1; continue; fi
  p=$ext/$path
  if [ "$kind" = cmake ]; then
    exes=$(find "$p/build/bin" "$p/build" -maxdepth 1 -type f -executable -name "$args" 2>/dev/null | sort); exe=${exes%%$'\n'*}
    dir=$p/build; args=
  else
    dir=$(dirname "$p"); exe=$dir/$name.bin
  fi
  mkdir -p "$out/$name"
  mv "$out/$name.compile_commands.json" "$out/$name/compile_commands.json"
  # shellcheck disable=SC2086
  (cd "$dir" && timeout 60 "$sw" run --record --out "$out/$name" -- "$exe" $args) > "$out/$name.run.log" 2>&1; rc=$?
  echo "== $name: exit $rc, $(ls "$out/$name" | tr '\n' ' ')"
  grep -E "warning|call site" "$out/$name.run.log" | cut -c1-200 | sed -n 1,4p
done <<< "$programs"
exit $fail
