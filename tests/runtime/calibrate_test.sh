#!/usr/bin/env bash
# `syncwatch calibrate`: on a machine without a GPU it says so in one line and exits 3; with
# a GPU it prints the table and writes a profile that is valid JSON with every measured call.
# Usage: calibrate_test.sh <syncwatch> <outdir>
set -uo pipefail
sw=$1; out=$2; mkdir -p "$out"
msg=$("$sw" calibrate --out "$out/profile.json" --spin-ms 20 2>&1); rc=$?
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  [ $rc -eq 3 ] && grep -q "no CUDA GPU here" <<<"$msg" && [ ! -e "$out/profile.json" ] &&
    { echo "PASS: no GPU: '$msg' (exit 3, no profile)"; exit 0; }
  echo "FAIL: without a GPU expected exit 3 and a message, got $rc: $msg"; exit 1
fi
echo "$msg"
[ $rc -eq 0 ] || { echo "FAIL: calibrate exit $rc"; exit 1; }
python3 - "$out/profile.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "syncwatch-profile-1", p.get("schema")
calls = {(c["api"], c["case"]): c for c in p["calls"]}
assert calls[("cudaFree", "nullptr")]["blocksDevice"] is False, "cudaFree(nullptr) cannot block"
assert p["legacyStream"]["waitsForNonBlockingStream"] is False, "the legacy stream never waits for non-blocking streams"
assert p["device"]["asyncEngineCount"] >= 0
print("PASS: profile with", len(calls), "calls; cudaFree 1 MB blocks:", calls[("cudaFree", "1 MB")]["blocksDevice"])
PY
