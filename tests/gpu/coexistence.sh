#!/usr/bin/env bash
# Issue 40, item 1: syncwatch beside the other tools that want CUPTI, measured. Each case runs
# the same program with and without libsyncwatch.so and keeps what each side saw:
#   torch-after   torch.profiler started after syncwatch subscribed (the usual order)
#   torch-before  Kineto initialized at torch's import (KINETO_USE_DAEMON=1), before syncwatch
#   nsys          nsys profile --trace=cuda around the preloaded program (if the image has nsys)
#   sanitizer     compute-sanitizer memcheck around the preloaded C++ probe (if present)
#   torch-twice   two torch.profiler sessions in one process; torch-teardown: the same with
#                 TEARDOWN_CUPTI=1 (Kineto finalizes CUPTI after each)
#   twice         two copies of libsyncwatch.so preloaded at once
# OUTDIR/<case>.{out,err}: the program's output (profiler counts as JSON) and stderr (where
# each tool says what it lost); OUTDIR/summary.tsv: one line per case.
#   tests/gpu/coexistence.sh BUILD OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: coexistence.sh BUILD OUTDIR}; out=${2:?usage: coexistence.sh BUILD OUTDIR}
mkdir -p "$out"; out=$(cd "$out" && pwd)
lib=$build/interposer/libsyncwatch.so
probe=$build/capture_failures
py=$here/profiled_loop.py
nsys_at() {  # the first nsys found, or nothing
  command -v nsys && return
  for f in /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys; do [ -x "$f" ] && { echo "$f"; return; }; done
}
{ echo "nsys: $(nsys_at)"
  echo "compute-sanitizer: $(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)"
  python3 -c "import torch; print('torch', torch.__version__)"; } > "$out/tools.txt" 2>&1
printf 'case\tsyncwatch\trc\tstdout\tstderr_tail\n' > "$out/summary.tsv"
one() {  # one NAME WITH_SYNCWATCH(0/1) ENV... -- COMMAND...
  local name=$1 with=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  if [ "$with" = 1 ]; then envs+=("LD_PRELOAD=$lib" "SYNCWATCH_OUT=$out/$name-reports"); mkdir -p "$out/$name-reports"; fi
  env "${envs[@]}" timeout 240 "$@" > "$out/$name.out" 2> "$out/$name.err"
  local rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$with" "$rc" "$(tail -1 "$out/$name.out" | tr '\t' ' ')" \
    "$(grep -i -E 'syncwatch|cupti|subscri|kineto|warn|error' "$out/$name.err" | tail -3 | tr '\n\t' '  ' | cut -c1-600)" >> "$out/summary.tsv"
}
one plain-noprof 0 -- python3 "$py" --no-profiler
one torch-after-plain 0 -- python3 "$py"
one torch-after 1 -- python3 "$py"
one torch-before-plain 0 KINETO_USE_DAEMON=1 -- python3 "$py"
one torch-before 1 KINETO_USE_DAEMON=1 -- python3 "$py"
one sw-noprof 1 -- python3 "$py" --no-profiler
one torch-twice-plain 0 -- python3 "$py" --twice
one torch-twice 1 -- python3 "$py" --twice
one torch-teardown-plain 0 TEARDOWN_CUPTI=1 -- python3 "$py" --twice
one torch-teardown 1 TEARDOWN_CUPTI=1 -- python3 "$py" --twice
nsys_bin=$(sed -n 's/^nsys: //p' "$out/tools.txt")
if [ -n "$nsys_bin" ]; then
  one nsys-plain 0 -- "$nsys_bin" profile --trace=cuda -o "$out/nsys-plain" --force-overwrite true --stats=true "$probe"
  one nsys 0 -- "$nsys_bin" profile --trace=cuda -o "$out/nsys-sw" --force-overwrite true --stats=true \
    --env-var="LD_PRELOAD=$lib,SYNCWATCH_OUT=$out/nsys-reports" "$probe"
fi
san=$(sed -n 's/^compute-sanitizer: //p' "$out/tools.txt")
if [ -n "$san" ]; then
  one sanitizer-plain 0 -- "$san" --tool memcheck "$probe"
  mkdir -p "$out/sanitizer-reports"
  one sanitizer-preload 0 "LD_PRELOAD=$lib" "SYNCWATCH_OUT=$out/sanitizer-reports" -- "$san" --tool memcheck "$probe"
fi
cp "$lib" "$out/libsyncwatch-copy.so"
mkdir -p "$out/twice-reports"
one twice 0 "LD_PRELOAD=$lib $out/libsyncwatch-copy.so" "SYNCWATCH_OUT=$out/twice-reports" -- "$probe"
one probe-sw 1 -- "$probe"
rm -f "$out/libsyncwatch-copy.so"
cut -c1-700 "$out/summary.tsv"
# The verdicts: each profiler run under syncwatch saw what it sees without it, and syncwatch
# still made its own finding (the pageable copy at profiled_loop.py's work()) and said it
# shared CUPTI. Exit 1 on any failure.
python3 - "$out" <<'PY'
import glob, json, os, sys
out, bad = sys.argv[1], 0
def counts(name):
    try:
        return json.loads(open(os.path.join(out, name + ".out")).read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return None
for case in ("torch-after", "torch-before", "torch-twice", "torch-teardown"):
    plain, shared = counts(case + "-plain"), counts(case)
    keys = ("kernels", "memcpys", "memsets", "runtimeCalls")
    same = plain is not None and shared is not None and all(plain.get(k) == shared.get(k) for k in keys) \
        and (plain.get("second") or {}) == (shared.get("second") or {})
    err_file = os.path.join(out, case + ".err")
    err = open(err_file, errors="replace").read() if os.path.exists(err_file) else ""
    reports = glob.glob(os.path.join(out, case + "-reports", "*.json"))
    found = any(f["location"]["line"] == 22 and f["location"]["file"].endswith("profiled_loop.py")
                for r in reports for f in json.load(open(r)).get("findings", []))
    ok = same and found and "CUPTI shared with" in err
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {case}: profiler without syncwatch {plain}, with {shared}; "
          f"syncwatch's finding at profiled_loop.py:22: {found}; says it shared CUPTI: {'CUPTI shared with' in err}")
# Two copies of libsyncwatch.so preloaded: one of them reports, once.
err = open(os.path.join(out, "twice.err"), errors="replace").read() if os.path.exists(os.path.join(out, "twice.err")) else ""
once = err.count("report written to") == 1
bad += not once
print(f"{'ok  ' if once else 'FAIL'} twice: two libsyncwatch copies wrote {err.count('report written to')} report(s)")
sys.exit(1 if bad else 0)
PY
