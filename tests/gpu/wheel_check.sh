#!/usr/bin/env bash
# The wheel as a PyTorch user gets it, on the GPU machine: installed into a fresh target
# directory (no dependencies: that machine's PyTorch already brought nvidia-cuda-cupti),
# then the seed's scenario run through `python -m syncwatch run`, and its findings checked
# at the Python lines.  Usage: tests/gpu/wheel_check.sh WHEEL OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
whl=${1:?usage: wheel_check.sh WHEEL OUTDIR}; out=${2:?usage: wheel_check.sh WHEEL OUTDIR}
mkdir -p "$out"; target=$(mktemp -d /tmp/syncwatch-wheel.XXXXXX); fail=0
python3 -m pip install -q --no-deps --no-index --target "$target" "$whl" || exit 1
echo "== installed: $(ls "$target")"
echo "== python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__)')"
PYTHONPATH=$target python3 -c 'import syncwatch; print("cupti dirs:", syncwatch.cupti_library_dirs())'
PYTHONPATH=$target python3 -m syncwatch --version || fail=1
for nb in false true; do
  start=$(date +%s.%N)
  PYTHONPATH=$target python3 -m syncwatch run --out "$out/seed-$nb" -- python3 "$here/seed_streams.py" $nb \
    > "$out/seed-$nb.log" 2>&1; rc=$?
  echo "== seed $nb: exit $rc, $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
  tail -6 "$out/seed-$nb.log"
  [ $rc -eq 0 ] || fail=1
done
check_py() { python3 "$here/check_python_sites.py" "$@" || fail=1; }
check_py "$out"/seed-true/syncwatch-*.json "$here/seed_streams.py" SEED-HTOD syncwatch-pageable-async-copy
check_py "$out"/seed-false/syncwatch-*.json "$here/seed_streams.py" SEED-DTOH syncwatch-pageable-async-copy
# the library CUPTI came from, in a preloaded python3
PYTHONPATH=$target python3 - "$target" <<'PY' || fail=1
import os, subprocess, sys, syncwatch
env = syncwatch.environment(); env["LD_PRELOAD"] = syncwatch.preload_library()
maps = subprocess.run([sys.executable, "-c", "import torch; torch.zeros(1, device='cuda'); print(open('/proc/self/maps').read())"],
                      env=env, capture_output=True, text=True).stdout
libs = sorted({l.split()[-1] for l in maps.splitlines() if "libcupti" in l or "libsyncwatch" in l})
print("mapped:", libs); sys.exit(0 if any("libsyncwatch" in l for l in libs) and any("libcupti" in l for l in libs) else 1)
PY
echo "== wheel check: $([ $fail -eq 0 ] && echo PASS || echo FAIL)"
exit $fail
