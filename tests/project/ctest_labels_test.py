#!/usr/bin/env python3
"""Every ctest test has a label that selects it: analyzer, runtime or lsp (CONTRIBUTING.md,
"Tests"), so `ctest -L analyzer`, `-L runtime` and `-L lsp` together run the whole suite,
and a test registered without LABELS (a gtest_discover_tests without PROPERTIES LABELS)
fails here instead of being left out of both halves' runs.
  ctest_labels_test.py CTEST BUILD_DIR"""
import json
import os
import subprocess
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, fail, finish  # noqa: E402

HALVES = {"analyzer", "runtime", "lsp"}
# The other labels a test may carry besides, each said in CONTRIBUTING.md.
KNOWN = HALVES | {"shared", "docs", "nvcc", "gpu", "cmake_project"}

ctest, build = sys.argv[1:3]
p = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, timeout=300)
if p.returncode != 0:
    fail("ctest --show-only=json-v1", f"exit {p.returncode}: {p.stderr[-400:]}")
    finish()
tests = json.loads(p.stdout)["tests"]


def labels(test):
    for prop in test.get("properties", []):
        if prop["name"] == "LABELS":
            return set(prop["value"])
    return set()


for name in [t["name"] for t in tests if not labels(t) & HALVES]:
    fail(name, "no analyzer, runtime or lsp label (set_tests_properties(... LABELS ...), "
         "or gtest_discover_tests(... PROPERTIES LABELS ...))")
for label in sorted({l for t in tests for l in labels(t)} - KNOWN):
    fail(f"label '{label}'", "not one CONTRIBUTING.md lists (add it there and here)")
counts = {h: sum(h in labels(t) for t in tests) for h in sorted(HALVES)}
check(f"{len(tests)} tests: " + ", ".join(f"-L {h} selects {n}" for h, n in counts.items()), len(tests) >= 2,
      "fewer than 2 tests listed")
finish()
