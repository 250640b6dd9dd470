#!/usr/bin/env python3
"""Replays event streams recorded on the GPU machine (test_inputs/runtime/*.swrec) through
`syncwatch replay` and checks the findings each recording's .expect file lists:
    <rule> <file basename>:<line>      a finding that must be there
    ! <file basename>:<line>           a line that must have no finding
    !rule <rule>                       no finding of that rule at all
    message <rule> <text>              a finding of that rule whose message has <text>
    level <rule> <file>:<line> <severity>  that finding's severity (warning or note)
    evidence <rule> <file>:<line> <key> <text>  its evidence <key> contains <text>
Every recording: at most one finding per (rule, file, line) - stacks that end at one line
are one finding.
Each recording is also replayed the way libsyncwatch.so meets it on a long run - through
small bounded windows, GPU records arriving late - and must give the same findings.
Usage: replay_test.py <syncwatch> <test_inputs/runtime>"""
import json, os, subprocess, sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, fail, finish  # noqa: E402

tool, folder = sys.argv[1], sys.argv[2]
recs = sorted(f for f in os.listdir(folder) if f.endswith(".swrec"))
if not recs:
    fail("recordings", f"none in {folder}")
    finish()

def replay(rec, *extra):
    p = subprocess.run([tool, "replay", "--format", "json", *extra, os.path.join(folder, rec)],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"replay {' '.join(extra)} exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)["findings"]


def summary(findings):
    return sorted((f["rule"], f["location"]["file"], f["location"]["line"], dict(f["evidence"])["count"],
                   dict(f["evidence"]).get("followedBySync", "")) for f in findings)


def record_delivery(path):
    """The recording's events, and how many events after its call the latest GPU record came."""
    events = late = 0
    call_at = {}
    for line in open(path):
        kind = line[:2]
        if kind not in ("C\t", "K\t", "M\t", "Z\t"):
            continue
        events += 1
        correlation = line.split("\t", 2)[1]
        if kind == "C\t":
            call_at[correlation] = events
        elif correlation in call_at:
            late = max(late, events - call_at[correlation])
    return events, late


for rec in recs:
    try:
        findings = replay(rec)
        events, late = record_delivery(os.path.join(folder, rec))
        # The window filling many times over: an eighth of the recording, then larger ones.
        # At least 64 events: a record is kept for a quarter-window of calls after its call
        # (EventWindow.h), and a program that makes a call every 0.6 ms (two_stacks) makes
        # 9 within a 5 ms lag.
        # And never below what the recording's own delivery needs: CUPTI hands records over
        # in buffers (every 100 ms), so under SYNCWATCH_MEASURE=steps a copy's record came
        # ~5,000 calls after its call (h100_readiness_*); a window keeps a record's call for a
        # quarter of itself (the runtime's default window is 65,536 events).
        floor = 4 * late
        for window, lag in ((str(max(64, events // 8, floor)), "5"), (str(max(256, floor)), "10"),
                            (str(max(1024, floor)), "20")):
            windowed = replay(rec, "--window", window, "--lag-ms", lag)
            check(f"{rec}: same findings through {window}-event windows, records {lag} ms late",
                  summary(windowed) == summary(findings),
                  f"\n   whole:    {summary(findings)}\n   windowed: {summary(windowed)}")
        # The library's own window: 16,384 events at first, grown to 65,536 only when
        # records come later than it holds (EventWindow.h), with records delivered at
        # CUPTI's flush period (100 ms): the same findings, and no record too late.
        grown = subprocess.run([tool, "replay", "--format", "json", os.path.join(folder, rec), "--window", "16384",
                                "--window-max", "65536", "--lag-ms", "100"], capture_output=True, text=True)
        check(f"{rec}: same findings through the library's window (16,384 events, may grow), records 100 ms late",
              grown.returncode in (0, 1) and summary(json.loads(grown.stdout)["findings"]) == summary(findings)
              and "came after their call" not in grown.stderr, grown.stderr)
        # The report's figures as the library's report has them (Engine::reportFigures): the
        # utilization's, then coverage's.
        figures = json.loads(grown.stdout).get("figures", {}) if grown.returncode in (0, 1) else {}
        check(f"{rec}: the replay's figures hold the utilization and the coverage figures",
              "gpuSpanMs" in figures and "cudaSpanMs" in figures and "coverage.launches" in figures, str(figures))
    except RuntimeError as e:
        fail(rec, e)
        continue
    # (a release build's sites have no line: there the function+offset tells them apart)
    keys = [(f["rule"], os.path.basename(f["location"]["file"]), f["location"]["line"],
             "" if f["location"]["line"] else dict(f["evidence"]).get("function", "")) for f in findings]
    found = {k[:3] for k in keys}
    check(f"{rec}: one finding per (rule, line)", len(set(keys)) == len(keys),
          str(sorted(k for k in set(keys) if keys.count(k) > 1)))
    def finding_at(rule, loc):
        base, ln = loc.rsplit(":", 1)
        return next((f for f in findings if f["rule"] == rule and os.path.basename(f["location"]["file"]) == base
                     and f["location"]["line"] == int(ln)), None)
    at = {(b, l) for _, b, l in found}
    with open(os.path.join(folder, rec[:-6] + ".expect")) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if not line:
                continue
            if line.startswith("message "):
                _, rule, text = line.split(None, 2)
                ok = any(f["rule"] == rule and text in f["message"] for f in findings)
            elif line.startswith("level "):
                _, rule, loc, level = line.split()
                f = finding_at(rule, loc)
                ok = f is not None and f["severity"] == level
            elif line.startswith("evidence "):
                _, rule, loc, key, text = line.split(None, 4)
                f = finding_at(rule, loc)
                ok = f is not None and text in dict(f["evidence"]).get(key, "")
            elif line.startswith("!rule"):
                rule = line.split()[1]
                ok = all(r != rule for r, _, _ in found)
            elif line.startswith("!"):
                base, ln = line[1:].strip().rsplit(":", 1)
                ok = (base, int(ln)) not in at
            else:
                rule, loc = line.split(None, 1)
                base, ln = loc.strip().rsplit(":", 1)
                ok = (rule, base, int(ln)) in found
            check(f"{rec}: {line}", ok)
# The report says which calibration profile it ran with, and what calibration measured for
# each finding's call; a file that is no profile stops the replay with a reason. (On the
# committed recordings; tests/gpu/run_gpu_tests.sh replays a fresh run's folder without them.)
if os.path.exists(os.path.join(folder, "h200_runtime_probe.swrec")):
    profile = os.path.join(folder, "..", "profiles", "frees_do_not_block.json")
    p = subprocess.run([tool, "replay", "--format", "json", "--profile", profile,
                        os.path.join(folder, "h200_runtime_probe.swrec")], capture_output=True, text=True)
    doc = json.loads(p.stdout)
    notes = {f["rule"]: dict(f["evidence"]).get("calibration", "") for f in doc["findings"]}
    checks = [
        ("profile named in the figures", doc.get("figures", {}).get("calibrationDevice") == "Example GPU (9.0), driver 13000"),
        ("cudaFree's calibration beside the measured wait",
         notes.get("syncwatch-implicit-sync", "").startswith("cudaFree did not block the host in calibration")),
    ]
    bad = subprocess.run([tool, "replay", "--profile", os.path.join(folder, "README.md"),
                          os.path.join(folder, "h200_runtime_probe.swrec")], capture_output=True, text=True)
    checks.append(("a file that is no profile: exit 2 and why",
                   bad.returncode == 2 and "is not JSON" in bad.stderr and not bad.stdout))
    for name, ok in checks:
        check(f"--profile: {name}", ok)
finish()
