#!/usr/bin/env python3
"""The join measured (issue 21, item 5): syncwatch-lint's SARIF and the runtime's recording of
the same program, joined by `syncwatch confirm`, per program, and the table of statuses:
how many static warnings measurably cost time on the GPU the recording was made on.

  bench/confirm_join.py [--min-cost-ms N] BUILD_DIR [PROGRAM_DIR...]

A PROGRAM_DIR holds `lint.sarif` and `recording.swrec` (or a runtime `report.json`), as
test_inputs/runtime/public/<program>/ does; by default every such directory there, and the
project's own H200 programs (tests/gpu/runtime_probe.cu with and without line tables,
confirm_probe.cu), linted here against their committed recordings. Prints a
row a program and the totals; a benchmark, not a test (tests/join/confirm_test.py checks the
statuses of the committed programs)."""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

args = sys.argv[1:]
min_cost = []  # confirm's own default (1 ms) unless told
if args[:1] == ["--min-cost-ms"]:
    min_cost, args = ["--min-cost-ms", args[1]], args[2:]
sys.argv[1:] = args
build = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
dirs = sys.argv[2:] or sorted(glob.glob(os.path.join(root, "test_inputs", "runtime", "public", "*")))
tool = os.path.join(build, "interposer", "syncwatch")
lint = os.path.join(build, "analyzer", "syncwatch-lint")
scratch = tempfile.mkdtemp(prefix="confirm-join-")
if not sys.argv[2:] and os.path.exists(lint):
    rt = os.path.join(root, "test_inputs", "runtime")
    for name, source, rec in (("runtime_probe (-g1)", "runtime_probe.cu", "h200_runtime_probe.swrec"),
                              ("runtime_probe (release)", "runtime_probe.cu", "h200_probe_release_build.swrec"),
                              ("confirm_probe (-g1)", "confirm_probe.cu", "h200_confirm_probe.swrec")):
        d = os.path.join(scratch, name)
        os.makedirs(d)
        subprocess.run([lint, "--format=sarif", "--output=" + os.path.join(d, "lint.sarif"),
                        os.path.join("tests", "gpu", source), "--", "--cuda-path=/usr/local/cuda"],
                       cwd=root, capture_output=True, timeout=300)
        os.symlink(os.path.join(rt, rec), os.path.join(d, "recording.swrec"))
        dirs.append(d)
statuses = ("confirmed", "not-observed", "not-measured", "not-exercised", "runtime-only")
total = collections.Counter()
cost = 0.0
print(f"{'program':34s} " + " ".join(f"{s:>13s}" for s in statuses) + "  confirmed cost")
for d in dirs:
    sarif = os.path.join(d, "lint.sarif")
    runtime = next((p for p in (os.path.join(d, "recording.swrec"), os.path.join(d, "report.json")) if os.path.exists(p)), None)
    if not os.path.exists(sarif) or not runtime:
        print(f"{os.path.basename(d):34s} skipped: no lint.sarif and recording.swrec / report.json")
        continue
    r = subprocess.run([tool, "confirm", "--static", sarif, "--runtime", runtime, "--format", "json", *min_cost],
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 2:
        print(f"{os.path.basename(d):34s} error: {r.stderr.strip()[:200]}")
        continue
    counts = collections.Counter()
    ms = 0.0
    for f in json.loads(r.stdout)["findings"]:
        st = f["evidence"]["syncwatch.status"]
        counts[st] += 1
        if st == "confirmed":
            ms += float(f["evidence"].get("syncwatch.totalMs", 0))
    total.update(counts)
    cost += ms
    print(f"{os.path.basename(d):34s} " + " ".join(f"{counts[s]:13d}" for s in statuses) + f"  {ms:10.1f} ms")
static = sum(total[s] for s in statuses if s != "runtime-only")
print(f"{'all ' + str(len(dirs)) + ' programs':34s} " + " ".join(f"{total[s]:13d}" for s in statuses) + f"  {cost:10.1f} ms")
shutil.rmtree(scratch, ignore_errors=True)
if static:
    print(f"{total['confirmed']} of {static} static warnings ({100 * total['confirmed'] / static:.0f}%) measurably cost "
          f"time on the recording's GPU; {total['runtime-only']} stalls no static warning names")
