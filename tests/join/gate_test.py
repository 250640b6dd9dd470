#!/usr/bin/env python3
"""`syncwatch gate` on a real H200 recording (test_inputs/runtime/h200_runtime_probe.swrec:
a cudaFree that blocked 50 ms at :37, pageable copies at :46/:47, a stream sync in a loop at
:74, ...), and on runs derived from it as a CI job would see them:
  alone       every warning over --min-cost-ms fails (exit 1); --fail-on=error passes;
  budget      --budget-ms over and under the run's blocked time;
  baseline    --write-baseline, then the same run passes; the program run 1.5x as slow fails
              as "grown", one with a site the baseline lacked as "new", and a 1% growth
              within --grow-pct stays "known" (and is "grown" with --grow-pct 0 --grow-ms 0);
  allowlist   by file and line, by function, by thread (the cudaFree moved to a thread named
              ckpt_writer, as the recording's H record names it), a maxMs cap that fails
              even at --fail-on=error, an entry that matched nothing (said, not failed);
              bad allowlists (no reason, a misspelt key, no scope, not JSON): exit 2;
and the formats (json, markdown, sarif), and bad input (exit 2, one line, nothing written).
  gate_test.py SYNCWATCH REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402
import derived_runs  # noqa: E402

tool, root = sys.argv[1:3]
rec = os.path.join(root, "test_inputs", "runtime", "h200_runtime_probe.swrec")
lines = open(rec).read().splitlines()


def gate(*args):
    return subprocess.run([tool, "gate", *args], capture_output=True, text=True, timeout=300)


def site_of(line_no):
    return next(l.split("\t")[1] for l in lines if l.startswith("F\t") and l.split("\t")[3].endswith("runtime_probe.cu")
                and l.split("\t")[4] == str(line_no))


free_site, loop_site = site_of(37), site_of(74)
main_tid = next(l.split("\t")[2] for l in lines if l.startswith("C\t"))


def derived(scale=1.0, drop_loop=False, free_thread=None):
    """The recording with every time stretched by scale from the first call (the program
    run slower), its sync loop's calls dropped, or its cudaFree made on another thread,
    named by an H record; the pid recorded, so the main thread is known."""
    out = derived_runs.stretched(lines, scale, lambda f: drop_loop and f[0] == "C" and f[6] == loop_site)
    if free_thread:
        for i, l in enumerate(out):
            f = l.split("\t")
            if f[0] == "C" and f[6] == free_site and f[3] == "cudaFree":
                f[2] = "9001"
                out[i] = "\t".join(f)
    out.append(f"I\tpid\t{main_tid}")
    if free_thread:
        out.append(f"H\t9001\t{free_thread}")
    events = sum(1 for l in out if l.split("\t")[0] in ("C", "K", "M", "Z"))
    out.append(f"E\t{events}")  # a recording with I records ends so
    return "\n".join(out) + "\n"


def sites(r):
    doc = json.loads(r.stdout)
    return {(s["file"].rsplit("/", 1)[-1] + ":" + str(s["line"])): s for s in doc["sites"]}, doc


with tempfile.TemporaryDirectory() as tmp:
    def write(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    run1 = write("run.swrec", derived())

    # Alone: the measured warnings fail.
    r = gate(run1)
    check("alone: warnings over --min-cost-ms fail (exit 1)", r.returncode == 1 and "runtime_probe.cu:37" in r.stdout
          and "<- fails" in r.stdout and "syncwatch gate: fails" in r.stdout, r.stdout + r.stderr)
    r = gate("--fail-on=error", run1)
    check("--fail-on=error: no site is an error, no budget: passes", r.returncode == 0 and "passes" in r.stdout, r.stdout + r.stderr)
    r = gate("--format=json", run1)
    s, doc = sites(r)
    blocked = doc["blockedMs"]
    check("json: the cudaFree's 50 ms at :37, a warning, measured",
          s.get("runtime_probe.cu:37", {}).get("status") == "measured" and s["runtime_probe.cu:37"]["ms"] > 49
          and s["runtime_probe.cu:37"]["level"] == "warning" and s["runtime_probe.cu:37"]["fails"], s.get("runtime_probe.cu:37"))
    check("json: the run's blocked time is the sites' sum",
          abs(blocked - sum(x["ms"] for x in doc["sites"])) < 1e-6 and blocked > 50, doc)

    # Budget.
    r = gate("--fail-on=error", "--budget-ms", str(int(blocked) + 10), run1)
    check("budget above the blocked time: passes", r.returncode == 0 and "within the budget" in r.stdout, r.stdout + r.stderr)
    r = gate("--fail-on=error", "--budget-ms=5", run1)
    check("budget of 5 ms: fails at any --fail-on, says by how much",
          r.returncode == 1 and "over the budget of 5.00 ms by" in r.stdout and "over its budget" in r.stdout, r.stdout + r.stderr)

    # Baseline.
    base = os.path.join(tmp, "baseline.json")
    r = gate(run1, "--write-baseline", base)
    check("--write-baseline: exit 0, the file written", r.returncode == 0 and os.path.exists(base)
          and json.load(open(base))["tool"] == "syncwatch gate baseline", r.stderr)
    r = gate("--baseline", base, run1)
    check("the same run against its baseline: every site known, passes",
          r.returncode == 0 and "0 new, 0 grown" in r.stdout and "<- fails" not in r.stdout, r.stdout + r.stderr)
    r = gate("--baseline", base, "--format=json", write("grown.swrec", derived(scale=1.5)))
    s, doc = sites(r)
    check("the program 1.5x as slow: the sync loop and the free grown, failing; the 6 ms copy within --grow-ms",
          r.returncode == 1 and s["runtime_probe.cu:74"]["status"] == "grown" and s["runtime_probe.cu:74"]["fails"]
          and s["runtime_probe.cu:37"]["status"] == "grown" and s["runtime_probe.cu:47"]["status"] != "new", s)
    r = gate("--baseline", base, "--format=json", write("small.swrec", derived(scale=1.01)))
    s, _ = sites(r)
    check("1% slower, within --grow-pct 10: known, passes", r.returncode == 0 and s["runtime_probe.cu:74"]["status"] == "known", s)
    r = gate("--baseline", base, "--grow-pct=0", "--grow-ms=0", "--format=json", write("small2.swrec", derived(scale=1.01)))
    s, _ = sites(r)
    check("1% longer with --grow-pct 0 --grow-ms 0: grown", r.returncode == 1 and s["runtime_probe.cu:74"]["status"] == "grown", s)
    noloop = write("noloop.swrec", derived(drop_loop=True))
    r = gate("--baseline", noloop, "--format=json", run1)
    s, _ = sites(r)
    check("a recording as the baseline; the loop it lacked is new and fails",
          r.returncode == 1 and s["runtime_probe.cu:74"]["status"] == "new" and s["runtime_probe.cu:37"]["status"] == "known", s)
    r = gate("--baseline", noloop, "--path-map", "/nowhere/=/elsewhere/", run1)
    check("--path-map that maps nothing: the same answer", r.returncode == 1 and "1 new" in r.stdout, r.stdout + r.stderr)

    # Allowlist.
    def allow(name, entries):
        return write(name, json.dumps({"allow": entries}))

    a = allow("by_file.json", [{"file": "runtime_probe.cu", "line": 37, "reason": "the probe frees once, on purpose"},
                               {"function": "no_such_function*", "reason": "kept from an old refactor"}])
    r = gate("--allowlist", a, "--format=json", run1)
    s, doc = sites(r)
    check("allowlist by file and line: the cudaFree allowed, with its reason",
          s["runtime_probe.cu:37"]["status"] == "allowed" and not s["runtime_probe.cu:37"]["fails"]
          and s["runtime_probe.cu:37"]["allowlist"][0]["reason"] == "the probe frees once, on purpose", s["runtime_probe.cu:37"])
    check("allowlist: an entry that matched nothing is listed, not failed",
          [u["entry"] for u in doc["unusedAllowlist"]] == [2], doc["unusedAllowlist"])
    check("allowlist: the allowed time is out of the counted time",
          abs(doc["countedMs"] - (doc["blockedMs"] - s["runtime_probe.cu:37"]["ms"])) < 1e-6, doc)
    r = gate("--allowlist", a, run1)
    check("text: the unused entry said", "allowlist entry 2 (function 'no_such_function*') matched no site" in r.stdout, r.stdout)
    fn = s["runtime_probe.cu:74"]["function"]
    a = allow("by_function.json", [{"function": fn, "rule": "syncwatch-sync-in-loop", "reason": "the probe's loop syncs by design"}])
    r = gate("--allowlist", a, "--format=json", run1)
    s, _ = sites(r)
    check(f"allowlist by function ({fn}) and rule: the loop allowed, the free still fails",
          s["runtime_probe.cu:74"]["status"] == "allowed" and s["runtime_probe.cu:37"]["fails"], s)
    cap = allow("cap.json", [{"file": "runtime_probe.cu", "line": 37, "maxMs": 10, "reason": "a free is fine under 10 ms"}])
    r = gate("--allowlist", cap, "--fail-on=error", "--format=json", run1)
    s, _ = sites(r)
    check("maxMs 10 on a 50 ms free: over-allowance, fails even at --fail-on=error",
          r.returncode == 1 and s["runtime_probe.cu:37"]["status"] == "over-allowance", s["runtime_probe.cu:37"])

    threaded = write("threaded.swrec", derived(free_thread="ckpt_writer"))
    r = subprocess.run([tool, "replay", "--format=json", threaded], capture_output=True, text=True, timeout=300)
    ev = {f["location"]["line"]: dict(f["evidence"]) for f in json.loads(r.stdout)["findings"]}
    check("replay: the free's cost is the named thread's, the loop's the main thread's",
          ev.get(37, {}).get("threads", "").startswith("ckpt_writer (tid 9001)=")
          and ev.get(74, {}).get("threads", "").startswith("main="), {k: v.get("threads") for k, v in ev.items()})
    t = allow("by_thread.json", [{"thread": "ckpt_*", "reason": "the checkpoint writer's frees are off the training thread"},
                                 {"thread": "pt_autograd_*", "reason": "no such thread here"}])
    r = gate("--allowlist", t, "--format=json", threaded)
    s, doc = sites(r)
    check("allowlist by thread: what ckpt_writer paid is allowed, the main thread's loop still fails",
          s["runtime_probe.cu:37"]["status"] == "allowed" and s["runtime_probe.cu:74"]["fails"]
          and [u["entry"] for u in doc["unusedAllowlist"]] == [2], (s, doc["unusedAllowlist"]))
    t = allow("main_thread.json", [{"thread": "main", "reason": "everything on the main thread"}])
    r = gate("--allowlist", t, "--format=json", threaded)
    s, _ = sites(r)
    check("allowlist of the main thread: the loop allowed, the ckpt_writer free not",
          s["runtime_probe.cu:74"]["status"] == "allowed" and s["runtime_probe.cu:37"]["status"] == "measured", s)

    for name, entries, want in [
        ("no_reason.json", [{"file": "runtime_probe.cu"}], "has no reason"),
        ("blank_reason.json", [{"file": "runtime_probe.cu", "reason": "  "}], "has no reason"),
        ("misspelt.json", [{"fucntion": "main", "reason": "x"}], "has 'fucntion', which an allowlist entry does not take"),
        ("no_scope.json", [{"rule": "syncwatch-implicit-sync", "reason": "x"}], "names no scope"),
        ("bad_rule.json", [{"file": "a.cu", "rule": "syncwatch-nope", "reason": "x"}], "is not a syncwatch rule"),
        ("line_alone.json", [{"function": "main", "line": 3, "reason": "x"}], "line is a line number"),
    ]:
        r = gate("--allowlist", allow(name, entries), run1)
        check(f"bad allowlist ({name}): exit 2, says why", r.returncode == 2 and want in r.stderr and not r.stdout, r.stderr)
    r = gate("--allowlist", write("notjson.json", "{allow: ["), run1)
    check("an allowlist that is not JSON: exit 2", r.returncode == 2 and "is not JSON" in r.stderr, r.stderr)

    # Formats.
    r = gate("--format=markdown", "--baseline", base, write("grown2.swrec", derived(scale=1.5)))
    check("markdown: a table with the grown site failing",
          r.stdout.startswith("### syncwatch gate: fails") and "| grown | **fails** |" in r.stdout, r.stdout)
    r = gate("--format=sarif", run1)
    sarif = json.loads(r.stdout) if r.stdout else {}
    results = sarif.get("runs", [{}])[0].get("results", [])
    check("sarif: a result per site, the failing ones warnings",
          sarif.get("version") == "2.1.0" and any(x["level"] == "warning" and "[gate: measured]" in x["message"]["text"] for x in results),
          results[:2])

    # Bad input.
    r = gate(os.path.join(tmp, "missing.swrec"))
    check("a missing report: exit 2, named", r.returncode == 2 and "missing.swrec" in r.stderr, r.stderr)
    r = gate()
    check("no report: exit 2", r.returncode == 2 and "no report" in r.stderr, r.stderr)
    r = gate("--fail-on=fatal", run1)
    check("a bad --fail-on: exit 2", r.returncode == 2 and "unknown --fail-on 'fatal'" in r.stderr, r.stderr)
    r = gate("--output", run1, run1)
    check("an output that is the input: refused", r.returncode == 2 and "refusing to overwrite" in r.stderr
          and open(run1).read() == derived(), r.stderr)
    os.makedirs(os.path.join(tmp, "ro"))
    os.chmod(os.path.join(tmp, "ro"), 0o500)
    if os.access(os.path.join(tmp, "ro"), os.W_OK):  # root ignores the mode: /dev/full instead
        r = gate("--output", "/dev/full/report.txt", run1)
    else:
        r = gate("--output", os.path.join(tmp, "ro", "report.txt"), run1)
    check("an unwritable --output: exit 2, says so", r.returncode == 2 and "cannot write" in r.stderr, r.stderr)
    r = gate("--write-baseline", base, "--baseline", base, run1)
    check("--write-baseline with --baseline: refused", r.returncode == 2, r.stderr)

# A budget per step (SYNCWATCH_STEP): the recording with two steps marked on its main
# thread, as NVTX ranges would be: one over the whole run, one before its first call.
with tempfile.TemporaryDirectory() as tmp:
    calls = [l.split("\t") for l in lines if l.startswith("C\t")]
    tid = calls[0][2]
    first, last = min(int(c[4]) for c in calls), max(int(c[5]) for c in calls)
    steps = [f"W\t{tid}\t{first - 1000}\t{last}\ttrain_step", f"W\t{tid}\t{first - 5000}\t{first - 2000}\ttrain_step"]
    stepped = os.path.join(tmp, "stepped.swrec")
    with open(stepped, "w") as f:
        f.write("\n".join(l for l in lines if not l.startswith("E\t")) + "\n" + "\n".join(steps) + "\n")
    r = subprocess.run([tool, "replay", "--format=json", stepped], capture_output=True, text=True, timeout=300)
    figs = json.loads(r.stdout).get("figures", {}) if r.stdout else {}
    worst = float(figs.get("steps.blockedWorstMs", 0))
    check("replay: the steps' figures", figs.get("steps.count") == "2" and figs.get("steps.name") == "train_step"
          and figs.get("steps.worstIndex") == "2" and worst > 50
          and abs(float(figs.get("steps.blockedMeanMs", 0)) - worst / 2) < 0.01
          and str(figs.get("steps.worst", "")).startswith("#2 of 2 (tid "), figs)  # (no pid: an older recording)
    r = gate("--fail-on=error", "--budget-ms-per-step", str(worst - 1), stepped)
    check("--budget-ms-per-step under the worst step: fails, naming it", r.returncode == 1
          and "over the per-step budget" in r.stdout and "#2 of 2" in r.stdout
          and "a step is over the per-step budget" in r.stdout, r.stdout + r.stderr)
    r = gate("--fail-on=error", "--budget-ms-per-step", str(worst + 1), stepped)
    check("--budget-ms-per-step over the worst step: passes", r.returncode == 0
          and "within the per-step budget" in r.stdout, r.stdout + r.stderr)
    r = gate("--fail-on=error", "--budget-ms-per-step", str(worst - 1), "--format=json", stepped)
    j = json.loads(r.stdout) if r.stdout else {}
    check("json: the steps' verdict", j.get("verdict") == "fails" and j.get("steps", {}).get("overBudget") is True
          and j["steps"]["count"] == 2 and abs(j["steps"]["worstMs"] - worst) < 0.01, j.get("steps"))
    r = gate("--budget-ms-per-step", "5", rec)
    check("--budget-ms-per-step on a run that marked no step: exit 2, says how", r.returncode == 2
          and "SYNCWATCH_STEP" in r.stderr, r.stderr)

finish()
