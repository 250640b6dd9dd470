#!/usr/bin/env bash
# Which lines of the public programs ran, by gcov (issue 37: "not-exercised is given only to
# lines that did not run"). Each one-file nvcc program of public_programs.txt is built again
# for coverage (-O0 -g -Xcompiler --coverage: at -O3 gcc merges the lines of neighbouring
# calls), run once as public_programs.sh runs it (same directory, same arguments, no
# syncwatch), and gcov writes the execution count of each line of its source.
# Brings back OUTDIR/NAME.gcov (gcov's text for the program's own .cu file) and NAME.cov.log.
# import_public_programs.sh turns it into test_inputs/runtime/public/NAME/coverage.txt, which
# tests/join/coverage_join_test.py holds against syncwatch confirm's statuses.
#
# Usage: coverage_programs.sh OUTDIR [NAME...]      (no NAME: every nvcc program listed)
#   COV_PHASE=build  only builds; COV_PHASE=run  only runs (the GPU is not shared with a recording)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd); shift
ext=$root/.extern; phase=${COV_PHASE:-all}
programs=$(grep -v '^#' "$here/public_programs.txt")
want=("$@")
wanted() { [ ${#want[@]} -eq 0 ] && return 0; local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

if [ "$phase" != run ]; then
  while IFS='|' read -r name kind path extra args; do
    [ -n "$name" ] && [ "$kind" = nvcc ] && wanted "$name" || continue
    dir=$(dirname "$ext/$path"); src=$(basename "$path")
    # An object of its own name, so that its .gcno and .gcda are not nvcc's temporary names.
    # shellcheck disable=SC2086
    ( cd "$dir" && rm -f "$name.cov.gcda" &&
      nvcc -O0 -g -arch=sm_90 -Xcompiler --coverage $extra -c -o "$name.cov.o" "$src" &&
      nvcc -arch=sm_90 -Xcompiler --coverage $extra -o "$name.cov" "$name.cov.o" ) > "$out/$name.cov.log" 2>&1 \
      || echo "$name: coverage build failed" > "$out/$name.cov.failed" &
    while [ "$(jobs -rp | wc -l)" -ge 8 ]; do wait -n; done
  done <<< "$programs"
  wait
fi
[ "$phase" = build ] && exit 0

while IFS='|' read -r name kind path extra args; do
  [ -n "$name" ] && [ "$kind" = nvcc ] && wanted "$name" || continue
  [ -e "$out/$name.cov.failed" ] && { echo "== $name: coverage build failed"; tail -3 "$out/$name.cov.log"; continue; }
  dir=$(dirname "$ext/$path"); src=$(basename "$path")
  # shellcheck disable=SC2086
  rm -f "$dir/$name.cov.gcda"   # counts add up over runs
  (cd "$dir" && timeout 60 "./$name.cov" $args) >> "$out/$name.cov.log" 2>&1; rc=$?
  # gcov finds the source by the name the build gave it, so it runs where the build ran; it
  # writes SRC.gcov there (and the headers' .gcov files, removed).
  rm -f "$dir"/*.gcov
  (cd "$dir" && gcov -o "$name.cov.o" "$src") >> "$out/$name.cov.log" 2>&1
  if [ -s "$dir/$src.gcov" ]; then mv "$dir/$src.gcov" "$out/$name.gcov"; echo "== $name: exit $rc, $(grep -cE '^ +[0-9]+\*?:' "$out/$name.gcov") lines ran"
  else echo "== $name: exit $rc, no gcov output"; tail -3 "$out/$name.cov.log"; fi
  rm -f "$dir"/*.gcov
done <<< "$programs"
