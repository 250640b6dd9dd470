#!/usr/bin/env bash
# The PyTorch extension under syncwatch on the GPU machine: the debug (-g1) and release
# builds of swtorch_ops.cu called from a training step. Writes reports, recordings, the
# extension's build.ninja and its compile database under OUT.
# Usage: tests/gpu/torch_ext/run.sh OUT
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd); out=$1
build=$root/build-gpu; sw=$build/interposer/syncwatch
mkdir -p "$out"
for variant in debug release; do
  ext=${SWTORCH_BUILD_ROOT:-/tmp}/swtorch-$variant
  # Build once without syncwatch (the compile is not what we measure).
  SWTORCH_BUILD_ONLY=1 python3 "$here/train_ext.py" "$ext" "$variant" > "$out/build-$variant.log" 2>&1 || { echo "build $variant failed"; tail -30 "$out/build-$variant.log"; }
  (cd "$ext" && ninja -t compdb > "$out/compile_commands-$variant.json" 2>/dev/null; cp build.ninja "$out/build-$variant.ninja")
  SYNCWATCH_RECORD=1 SYNCWATCH_DEBUG_SITES=1 "$sw" run --out "$out/rep-$variant" -- python3 "$here/train_ext.py" "$ext" $([ $variant = release ] && echo release) > "$out/run-$variant.log" 2>&1; tail -25 "$out/run-$variant.log"
done
python3 - "$out" <<'PY'
import glob, json, sys
for rep in sorted(glob.glob(sys.argv[1] + "/rep-*/syncwatch-*.json")):
    print("==", rep)
    for f in json.load(open(rep))["findings"]:
        ev = dict(f.get("evidence", []))
        print(f"{f['rule']:32} {f['location']['file']}:{f['location']['line']}  native={ev.get('nativeSite','-')}  "
              f"op={ev.get('op','-')}  fn={ev.get('function','-')}  count={ev.get('count','-')} totalMs={ev.get('totalMs','-')}  "
              f"races={ev.get('racesSeen','-')} current={ev.get('currentStream','-')}\n    {f['message'][:400]}")
PY
