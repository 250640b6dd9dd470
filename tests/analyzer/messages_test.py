#!/usr/bin/env python3
"""What findings say, where the words carry the fact (the annotations in test_inputs/static
check rule and severity only):
  - a device-to-device cudaMemcpy does not block the host (measured: 1 MB returned in 0.03 ms
    on the H200), so its sync-memcpy finding must not call it synchronous (field class 3);
    a device-to-host readback still is;
  - the fix-it is the same for both: the Async call on the stream in scope.
  messages_test.py LINT TEST_INPUTS"""
import json
import os
import subprocess
import sys
import tempfile

lint, inputs = sys.argv[1:3]
static = os.path.join(inputs, "static")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: harness.py
from harness import check, finish  # noqa: E402


def findings(name):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        p = subprocess.run([lint, "--no-source", "--format=json", "-o", out, os.path.join(static, name), "--"],
                           capture_output=True, text=True, timeout=600)
        if p.returncode not in (0, 1) or not os.path.exists(out):
            check(f"{name}: the lint ran", False, p.stderr)
            return []
        return json.load(open(out))["findings"]


def at(fs, line, rule="syncwatch-sync-memcpy"):
    return [f for f in fs if f["location"]["line"] == line and f["rule"] == rule]


fixable = findings("sm_pos_single_stream_fixable.cu")
dtod = at(fixable, 31)
check("the device-to-device cudaMemcpy (sm_pos_single_stream_fixable.cu:31) says it does not block the host",
      len(dtod) == 1 and "(device to device) does not block the host" in dtod[0]["message"]
      and "synchronous" not in dtod[0]["message"], dtod)
check("... and its measured evidence is the device-to-device copy's (returned at once)",
      len(dtod) == 1 and "returned at once" in dtod[0]["evidence"].get("measured", ""), dtod)
check("... and still offers cudaMemcpyAsync on `stream`",
      len(dtod) == 1 and [x["replacement"] for x in dtod[0].get("fixes", [])] == ["cudaMemcpyAsync", ", stream"], dtod)

readback = findings("sm_pos_copy_after_legacy_kernel.cu")
sync = [f for f in readback if f["rule"] == "syncwatch-sync-memcpy"]
check("a device-to-host readback (sm_pos_copy_after_legacy_kernel.cu) is still 'synchronous'",
      len(sync) == 1 and "is synchronous" in sync[0]["message"] and "device to device" not in sync[0]["message"], sync)
finish()
