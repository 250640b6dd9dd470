"""Checks a syncwatch report of tests/gpu/capture_failures.cu, capture_failures_torch.py or
reduce_overhead_skips.py: each line marked `BREAKS: <class>` in the source is a
syncwatch-capture-breaking-call finding at that line, and nothing else is; a class that also
has a `BEGINS: <class>` line (a capture broken from another thread) names that line as where
the capture began and says the call came from another thread. A line marked `SKIPS: <word>`
(torch.compile ran it without CUDA graphs) or `HINT: <word>` (with graphs, at a cost) is such
a finding too, giving torch's reason, which has the word in it. Used on the GPU (tests/gpu/run_gpu_tests.sh) and in CI on the
committed recordings' replays (tests/runtime/CMakeLists.txt).

Usage: check_capture.py SOURCE REPORT.json [--ended N --failed M]
"""
import argparse
import json
import os
import re
import sys

RULE = "syncwatch-capture-breaking-call"


torch_words = {}  # class -> SKIPS | HINT for torch.compile's reasons


def markers(source):
    breaks, begins = {}, {}
    with open(source) as fh:
        for number, text in enumerate(fh, 1):
            m = re.search(r"(BREAKS|BEGINS|SKIPS|HINT): ([\w-]+)", text)
            if m and m.group(1) == "BEGINS":
                begins[m.group(2)] = number
            elif m:
                breaks[m.group(2)] = number
                torch_words[m.group(2)] = m.group(1) if m.group(1) != "BREAKS" else None
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
        kind = torch_words.get(cls)
        if kind:
            said = ev.get("torchSays", "")
            want = "without CUDA graphs" if kind == "SKIPS" else "at a cost"
            if cls not in said or want not in hits[0]["message"]:
                failures.append(f"{cls}: expected torch's reason with {cls!r} ({want}), got {hits[0]['message'][:300]!r}")
                continue
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
