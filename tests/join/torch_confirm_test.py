#!/usr/bin/env python3
"""Both halves on the PyTorch extension of tests/gpu/torch_ext: syncwatch-lint over
swtorch_ops.cu (parsed with the torch wheel's headers, in a checkout at another path than
the one the H200 ran it from), then `syncwatch confirm` against the H200's recordings of
train_ext.py calling it (test_inputs/runtime/h200_torch_ext_{debug,release}.swrec):
  debug (-Xcompiler -g1)   the legacy-stream launch at :26 is confirmed as a count ("ran on the
                           legacy stream 20 time(s)...", whatever --min-cost-ms says), the
                           .item() at :43 by its measured 1.6 s, both by their C++ lines;
  release (no line table)  both matched by the op's function.
  torch_confirm_test.py SYNCWATCH SYNCWATCH-LINT REPO_ROOT TORCH_INCLUDE PYTHON_INCLUDE"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, lint, root, torch_include, python_include = sys.argv[1:6]
rt = os.path.join(root, "test_inputs", "runtime")


def by_line(doc):
    return {(os.path.basename(f["location"]["file"]), f["location"]["line"]): f for f in doc["findings"]}


with tempfile.TemporaryDirectory() as d:
    repo = os.path.join(d, "ci-workspace", "syncwatch")
    os.makedirs(os.path.join(repo, "tests", "gpu", "torch_ext"))
    os.makedirs(os.path.join(repo, ".git"))
    shutil.copy(os.path.join(root, "tests", "gpu", "torch_ext", "swtorch_ops.cu"),
                os.path.join(repo, "tests", "gpu", "torch_ext"))
    sarif = os.path.join(d, "lint.sarif")
    r = subprocess.run([lint, "--format=sarif", f"--output={sarif}", "tests/gpu/torch_ext/swtorch_ops.cu", "--",
                        "--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-path=/usr/local/cuda", "-std=c++17",
                        "-DTORCH_EXTENSION_NAME=swtorch_ops", "-isystem", torch_include,
                        "-isystem", os.path.join(torch_include, "torch", "csrc", "api", "include"),
                        "-isystem", python_include], capture_output=True, text=True, timeout=600, cwd=repo)
    check("syncwatch-lint over the extension: findings (exit 1)", r.returncode == 1, r.stderr[-500:])
    static = {(x["ruleId"], x["locations"][0]["physicalLocation"]["region"]["startLine"])
              for x in json.load(open(sarif))["runs"][0]["results"]}
    check("the lint: current-stream at :26 and host-sync at :43, nothing at the right launch (:33)",
          ("syncwatch-torch-current-stream", 26) in static and ("syncwatch-torch-host-sync", 43) in static
          and not any(line in (33, 34) for _, line in static), sorted(static))

    for build in ("debug", "release"):
        rec = os.path.join(rt, f"h200_torch_ext_{build}.swrec")
        r = subprocess.run([tool, "confirm", "--static", sarif, "--runtime", rec, "--format=json"],
                           capture_output=True, text=True, timeout=300)
        check(f"{build}: confirm exits 1 (confirmed findings)", r.returncode == 1, r.stderr)
        if not r.stdout:
            continue
        got = by_line(json.loads(r.stdout))
        launch, item = got.get(("swtorch_ops.cu", 26)), got.get(("swtorch_ops.cu", 43))
        ev = lambda f, k: f["evidence"].get(k, "") if f else ""
        check(f"{build}: the legacy-stream launch is confirmed as a count",
              ev(launch, "syncwatch.status") == "confirmed" and ev(launch, "syncwatch.count") == "20" and
              "ran on the legacy stream 20 time(s) while PyTorch's current stream was nonblocking stream 13"
              in launch["message"], launch and launch["message"])
        check(f"{build}: the .item() inside the op is confirmed by its cost",
              ev(item, "syncwatch.status") == "confirmed" and float(ev(item, "syncwatch.totalMs") or 0) > 1000 and
              ev(item, "syncwatch.runtimeRule") == "syncwatch-torch-host-sync", item and item["evidence"])
        matched = {ev(launch, "syncwatch.matchedBy"), ev(item, "syncwatch.matchedBy")}
        check(f"{build}: joined by " + ("the C++ line" if build == "debug" else "the op's function"),
              matched == ({""} if build == "debug" else {"function"}), matched)
        check(f"{build}: no runtime-only finding for the op's lines",
              not any(f["evidence"].get("syncwatch.status") == "runtime-only" and "swtorch_ops" in f["location"]["file"]
                      for f in got.values()))
finish()
