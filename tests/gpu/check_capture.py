"""Checks a syncwatch report of tests/gpu/capture_failures.cu or capture_failures_torch.py:
each line marked `BREAKS: <class>` in the source is a syncwatch-capture-breaking-call finding
at that line, and nothing else is; a class that also has a `BEGINS: <class>` line (a capture
broken from another thread) names that line as where the capture began and says the call
came from another thread. Used on the GPU (tests/gpu/run_gpu_tests.sh) and in CI on the
committed recordings' replays (tests/runtime/CMakeLists.txt).

Usage: check_capture.py SOURCE REPORT.json [--ended N --failed M]
"""
import argparse
import json
import os
import re
import sys

RULE = "syncwatch-capture-breaking-call"


def markers(source):
    breaks, begins = {}, {}
    with open(source) as fh:
        for number, text in enumerate(fh, 1):
            m = re.search(r"(BREAKS|BEGINS): ([\w-]+)", text)
            if m:
                (breaks if m.group(1) == "BREAKS" else begins)[m.group(2)] = number
    return breaks, begins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("report")
    ap.add_argument("--ended", type=int)
    ap.add_argument("--failed", type=int)
    a = ap.parse_args()
    breaks, begins = markers(a.source)
    with open(a.report) as fh:
        doc = json.load(fh)
    name = os.path.basename(a.source)
    found = {}
    for f in doc["findings"]:
        if f["rule"] == RULE:
            loc = f["location"]
            found.setdefault((os.path.basename(loc["file"]), loc["line"]), []).append(f)
    failures = []
    for cls, line in sorted(breaks.items(), key=lambda kv: kv[1]):
        hits = found.pop((name, line), [])
        if len(hits) != 1:
            failures.append(f"{cls}: expected one finding at {name}:{line}, found {len(hits)}")
            continue
        ev = dict(hits[0]["evidence"])
        print(f"ok   {cls} at {name}:{line}: {hits[0]['message'][:160]}")
        if cls in begins:
            began = ev.get("captureBegunAt", "")
            if not began.endswith(f"{name}:{begins[cls]}"):
                failures.append(f"{cls}: captureBegunAt {began!r}, expected {name}:{begins[cls]}")
            if not ev.get("fromOtherThread", "").startswith("1 "):
                failures.append(f"{cls}: fromOtherThread {ev.get('fromOtherThread')!r}, expected the other thread's")
            else:
                print(f"ok   {cls}: the capture begun at {began} on {ev.get('captureThread')}, "
                      f"broken from {ev.get('threads')}")
    for (file, line), hits in found.items():
        failures.append(f"unexpected finding at {file}:{line}: {hits[0]['message'][:200]}")
    figures = dict(doc.get("figures", []) if isinstance(doc.get("figures"), list) else doc.get("figures", {}))
    for key, want in (("captures.ended", a.ended), ("captures.failed", a.failed)):
        if want is not None and str(figures.get(key)) != str(want):
            failures.append(f"{key} = {figures.get(key)!r}, expected {want}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
