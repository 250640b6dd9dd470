#!/usr/bin/env bash
# The other half of public_programs.sh, on the machine that has LLVM: lints each program
# over the compile database its GPU build wrote, and commits what the join needs under
# test_inputs/runtime/public/<program>/:
#   lint.sarif       syncwatch-lint over the program's compile_commands.json
#   recording.swrec  the run's recording (report.json instead where the recording is over
#                    1 MiB: a program that launches half a million kernels)
#   expected.txt     the statuses syncwatch confirm gives (tests/join/confirm_test.py), to be read
#                    by a person before committing
# The sources must be at the paths the GPU build used (.extern/, as public_programs.sh says).
# Usage: import_public_programs.sh BUILD_DIR PP_DIR [NAME...]   (PP_DIR: public_programs.sh's OUTDIR)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd); pp=$(cd "$2" && pwd); shift 2
names=("$@"); [ ${#names[@]} -gt 0 ] || names=($(cd "$pp" && for d in */; do [ -e "$d/compile_commands.json" ] && echo "${d%/}"; done))
failed=0
for name in "${names[@]}"; do
  src=$pp/$name; dst=$root/test_inputs/runtime/public/$name
  recs=("$src"/syncwatch-*.swrec); rec=${recs[0]}
  [ -e "$rec" ] || { echo "$name: no recording (did it run?)"; continue; }
  # A CMake build's directories are gone on this machine; the lint needs them to exist.
  python3 -c "import json,os,sys; [os.makedirs(e['directory'], exist_ok=True) for e in json.load(open(sys.argv[1]))]" \
    "$src/compile_commands.json"
  mkdir -p "$dst"; rm -f "$dst"/recording.swrec "$dst"/report.json
  rc=0; "$build/analyzer/syncwatch-lint" -p "$src" --format=sarif --output="$dst/lint.sarif" > "$dst.lint.log" 2>&1 || rc=$?
  if [ $rc -ge 2 ]; then  # (the others are still imported; the exit status says so)
    echo "$name: the lint failed (exit $rc)"; cat "$dst.lint.log"; rm -f "$dst.lint.log"; rm -rf "$dst"; failed=1; continue
  fi
  rm -f "$dst.lint.log"
  if [ "$(stat -c %s "$rec")" -gt 1048576 ]; then runtime=$dst/report.json; cp "${rec%.swrec}.json" "$runtime"
  else runtime=$dst/recording.swrec; cp "$rec" "$runtime"; fi
  # (confirm exits 1 when a finding is confirmed: that is an answer, not a failure)
  crc=0; "$build/interposer/syncwatch" confirm --static "$dst/lint.sarif" --runtime "$runtime" --format=json \
    > "$dst.confirm.json" || crc=$?
  [ $crc -le 1 ] || { echo "$name: confirm failed (exit $crc)"; rm -f "$dst.confirm.json"; failed=1; continue; }
  python3 -c '
import json, os, sys
for f in sorted(json.load(sys.stdin)["findings"], key=lambda f: (f["location"]["line"], f["rule"])):
    loc = f["location"]
    print(f["evidence"]["syncwatch.status"], os.path.basename(loc["file"]) + ":" + str(loc["line"]), f["rule"])
' < "$dst.confirm.json" > "$dst/expected.txt"
  rm -f "$dst.confirm.json"
  echo "$name: $(cut -d' ' -f1 "$dst/expected.txt" | sort | uniq -c | tr '\n' ' ')"
done
exit $failed
