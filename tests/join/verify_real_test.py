#!/usr/bin/env python3
"""`syncwatch verify` on real fixes measured on an H200 (test_inputs/runtime/verify_real/,
made by tests/gpu/verify_fixes.sh): one fix saves time, one changes nothing, one makes the
program slower, and one moves the line it saves at. Each verdict, its exit code and the
figures that decide it are checked on the committed runs.

  tests/join/verify_real_test.py SYNCWATCH [SOURCE_DIR]
"""
import json
import os
import subprocess
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
runs = os.path.join(root, "test_inputs", "runtime", "verify_real")


def verify(fix, fmt="json"):
    gpu = f"/root/out/vf/{fix}"
    p = subprocess.run([tool, "verify", "--before", os.path.join(runs, fix, "before"), "--after",
                        os.path.join(runs, fix, "after"), "--path-map", f"{gpu}/after/={gpu}/before/", "--format", fmt],
                       capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if fmt == "json" and p.stdout else p.stdout), p.stderr


def site(doc, api):
    return next((s for s in doc["sites"] if s["api"] == api), None)


rc, doc, err = verify("overlap_chunked_streams")
check("overlap: exit 0", rc == 0, err)
check("overlap: saved", doc["verdict"] == "saved", doc["verdict"])
s = site(doc, "cudaMemcpy")
check("overlap: the cudaMemcpy site is gone and saved over 10 ms a run",
      s is not None and not s["inAfter"] and s["blockedMs"]["verdict"] == "saved" and s["blockedMs"]["low"] < -10
      if s else False, json.dumps(s))
check("overlap: 5 runs a side", doc["runsBefore"] == 5 and doc["runsAfter"] == 5)

rc, doc, err = verify("jacobi_nonblocking_streams")
check("jacobi non-blocking: exit 0, no change", rc == 0 and doc["verdict"] == "no change", f"{rc} {doc.get('verdict')}")
check("jacobi non-blocking: GPU idle time not compared (no kernel traced after)",
      "gpuIdleMs" not in doc["run"] and "no kernel was traced in 5 of 5 after run(s)" in
      doc.get("notComparable", {}).get("gpuIdleMs", ""), json.dumps(doc.get("notComparable")))
check("jacobi non-blocking: wall time within noise", doc["run"]["wallMs"]["verdict"] == "no change",
      json.dumps(doc["run"]["wallMs"]))
rc, text, err = verify("jacobi_nonblocking_streams", "text")
check("jacobi non-blocking: the text says why GPU idle time is not compared",
      "GPU idle time: not comparable: no kernel was traced" in text, text)

rc, doc, err = verify("jacobi_sync_copy_stream")
check("jacobi stream sync: exit 1, slower", rc == 1 and doc["verdict"] == "slower", f"{rc} {doc.get('verdict')}")
idle = doc["run"].get("gpuIdleMs", {})
check("jacobi stream sync: GPU idle time slower by over 30 ms a run, beyond the noise",
      idle.get("verdict") == "slower" and idle.get("low", 0) > 30, json.dumps(idle))
rc, text, err = verify("jacobi_sync_copy_stream", "markdown")
check("jacobi stream sync: the markdown summary says slower", text.startswith("### syncwatch verify: slower"), text[:80])

rc, doc, err = verify("transpose_pin_per_copy")
s = site(doc, "cudaMemcpy")
check("transpose: the copy matched across the two lines the fix added (line 159 -> 161)",
      s is not None and s.get("lineBefore") == 159 and s["line"] == 161 and s["inBefore"] and s["inAfter"], json.dumps(s))
check("transpose: saved at the copy, wall time within noise",
      doc["verdict"] == "saved" and s and s["blockedMs"]["verdict"] == "saved" and doc["run"]["wallMs"]["verdict"] == "no change",
      json.dumps(doc["run"]))

finish()
