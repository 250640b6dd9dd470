#!/usr/bin/env bash
# GPU side of syncwatch confirm's test and of issue 14's GPU naming: records
# tests/gpu/confirm_probe.cu (its JSON report has the run's coverage), checks whether the
# driver names UUIDs at exit, and times the seed with and without the library (coverage takes
# a stack for every call that can wait).  Usage: confirm_record.sh BUILD_DIR OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); build=$1; out=$2; mkdir -p "$out"
lib=$build/interposer/libsyncwatch.so
nvcc -g -O2 -arch=sm_90 -o "$build/confirm_probe" "$here/confirm_probe.cu" || exit 1
mkdir -p "$out/probe"
SYNCWATCH_RECORD=1 SYNCWATCH_OUT=$out/probe LD_PRELOAD=$lib "$build/confirm_probe" > "$out/probe.log" 2>&1; rc=$?
tail -4 "$out/probe.log"; echo "confirm_probe under the preload: exit $rc"; [ $rc -eq 0 ] || exit 1
ls "$out/probe"
gcc -O2 -o "$build/uuid_at_exit" "$here/uuid_at_exit.c" -ldl && "$build/uuid_at_exit"
python3 - <<'PY'
import atexit, ctypes, torch
torch.zeros(1, device="cuda")
lib = ctypes.CDLL("libcuda.so.1")
def show(when):
    d = ctypes.c_int(); b = (ctypes.c_ubyte * 16)()
    print(when, "cuDeviceGet", lib.cuDeviceGet(ctypes.byref(d), 0), "uuid", lib.cuDeviceGetUuid_v2(b, d), bytes(b[:4]).hex())
show("python main"); atexit.register(show, "python atexit")
PY
nvidia-smi -L
for mode in plain syncwatch plain syncwatch; do
  if [ $mode = plain ]; then t=$(python3 "$here/seed_streams.py" true 5 2>/dev/null | grep streams_ms)
  else t=$(SYNCWATCH_QUIET=1 LD_PRELOAD=$lib python3 "$here/seed_streams.py" true 5 2>/dev/null | grep streams_ms); fi
  echo "seed $mode: $t"
done
