#!/usr/bin/env python3
"""The Chrome/Kineto trace syncwatch writes (SYNCWATCH_TRACE=1, `syncwatch replay --trace`),
built from each H200 recording: valid JSON, valid against tests/runtime/trace_schema.json (the
fields HTA's parser and Perfetto read), every flow has both ends, GPU work sits on one track
per stream, and every finding occurrence is drawn with an arrow to what it waited for.
Also checks the overlap figures of the seed's two versions are reported.
Usage: trace_test.py <syncwatch> <test_inputs/runtime> <trace_schema.json>"""
import collections, json, os, subprocess, sys, tempfile

import jsonschema

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, folder, schema_path = sys.argv[1:4]
schema = json.load(open(schema_path))


with tempfile.TemporaryDirectory() as tmp:
    for rec in sorted(f for f in os.listdir(folder) if f.endswith(".swrec")):
        out = os.path.join(tmp, rec + ".trace.json")
        p = subprocess.run([tool, "replay", "--format", "json", "--trace", out, os.path.join(folder, rec)],
                           capture_output=True, text=True)
        check(f"{rec}: replay with --trace", p.returncode in (0, 1), p.stderr)
        trace = json.load(open(out))
        try:
            jsonschema.validate(trace, schema)
            check(f"{rec}: trace matches the schema", True)
        except jsonschema.ValidationError as e:
            check(f"{rec}: trace matches the schema", False, e.message)
        ev = trace["traceEvents"]
        cats = collections.Counter(e.get("cat") for e in ev)
        check(f"{rec}: GPU work and host calls present", cats["cuda_runtime"] > 0 and
              cats["kernel"] + cats["gpu_memcpy"] + cats["gpu_memset"] > 0, str(dict(cats)))
        starts = {(e["cat"], e["id"]) for e in ev if e["ph"] == "s"}
        ends = {(e["cat"], e["id"]) for e in ev if e["ph"] == "f"}
        # A flow joins a recorded call to the GPU work it issued: there is one wherever some
        # recorded call has a GPU record (not in a run whose only launches went unrecorded).
        lines = [l.split("\t") for l in open(os.path.join(folder, rec))]
        calls = {l[1] for l in lines if l[0] == "C"}
        issued = any(l[0] in ("K", "M", "Z") and l[1] in calls for l in lines)
        check(f"{rec}: every flow has both ends", starts == ends and (len(starts) > 0 or not issued),
              f"{len(starts)} flows")
        gpu = [e for e in ev if e["ph"] == "X" and e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset")]
        check(f"{rec}: one track per stream", all(e["tid"] == e["args"]["stream"] and e["pid"] == 0 for e in gpu))
        findings = json.loads(p.stdout)["findings"]
        marks = [e for e in ev if e["ph"] == "i"]
        total = sum(int(dict(f["evidence"])["count"]) for f in findings)
        check(f"{rec}: one instant per finding occurrence", len(marks) == total, f"{len(marks)} marks, {total} occurrences")
        arrows = [e for e in ev if e["ph"] == "s" and e["cat"] == "syncwatch"]
        # Kernels traced on demand (a T record) and none recorded: a stall's kernel was
        # never seen, so there is nothing to point at (the finding says so).
        untraced = any(l[0] == "T" for l in lines) and not any(l[0] == "K" for l in lines)
        # (a call that broke a graph capture failed at once: it waited for nothing)
        stalls = [f for f in findings if f["rule"] != "syncwatch-capture-breaking-call"]
        check(f"{rec}: stalled calls point at GPU work", not stalls or untraced or len(arrows) > 0, f"{len(arrows)} arrows")
        if rec.startswith("h200_seed_non_blocking"):
            figures = json.loads(p.stdout).get("figures", {})
            check(f"{rec}: overlap figures reported", "copyOverlapPercent" in figures and float(figures["copyMs"]) > 0,
                  f"copy {figures.get('copyMs')} ms, overlapped by compute {figures.get('copyOverlapPercent')}%")
finish()
