#!/usr/bin/env python3
"""`syncwatch verify` on runs derived from a real H200 recording (test_inputs/runtime/
h200_runtime_probe.swrec): each run is the recording with every time stretched by a factor
drawn around 1 (seeded: the same runs every time), the way run-to-run noise stretches a
program. Checks each verdict and the noise band:
  saved      the after runs lack the 'cudaFree' that blocked 50 ms (the fix removed it);
  slower     the after runs are 1.5x as long everywhere: exit 1;
  no change  before and after drawn from the same spread;
  noise      the same comparison with 20x the spread has a wider interval, and a 3% change
             that is "slower" at low noise is "no change" at high noise;
and the formats (json, markdown, sarif), the command mode's interleaving and wall times
(with commands that make no CUDA call: a clear error), and bad input (exit 2, one line).
  verify_test.py SYNCWATCH REPO_ROOT"""
import json
import os
import random
import re
import shutil
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


scratch = tempfile.mkdtemp(prefix="verify-test-")


def run(*args):
    # From a scratch folder: the command mode's default --out is made in the working directory.
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=300, cwd=scratch)


# The cudaFree that blocked 50 ms at runtime_probe.cu:37: its site id, from the F records.
free_site = next(l.split("\t")[1] for l in lines if l.startswith("F\t") and l.split("\t")[3].endswith("runtime_probe.cu")
                 and l.split("\t")[4] == "37")


def stretched(factor, drop_free=False):
    drop = (lambda f: f[0] == "C" and f[3] == "cudaFree" and f[6] == free_site) if drop_free else (lambda f: False)
    return "\n".join(derived_runs.stretched(lines, factor, drop)) + "\n"


def runs(d, seed, spread, n=5, scale=1.0, drop_free=False):
    rnd = random.Random(seed)
    os.makedirs(d)
    for k in range(n):
        with open(os.path.join(d, f"run-{k + 1}.swrec"), "w") as f:
            f.write(stretched(scale * (1 + rnd.uniform(-spread, spread)), drop_free))
    return d


with tempfile.TemporaryDirectory() as tmp:
    before = runs(os.path.join(tmp, "before"), 1, 0.02)

    # saved: the fix removed the 50 ms cudaFree.
    fixed = runs(os.path.join(tmp, "fixed"), 2, 0.02, drop_free=True)
    r = run("verify", "--before", before, "--after", fixed, "--format", "json")
    doc = json.loads(r.stdout) if r.returncode in (0, 1) else {}
    site = next((s for s in doc.get("sites", []) if s["api"] == "cudaFree" and s["line"] == 37), None)
    check("a removed stall is saved: exit 0", r.returncode == 0, r.stderr)
    check("the cudaFree site is saved, gone after, ~50 ms a run",
          site is not None and site["blockedMs"]["verdict"] == "saved" and not site["inAfter"]
          and 45 < site["blockedMs"]["before"] < 56 and site["blockedMs"]["after"] == 0, site)
    check("its interval excludes zero and holds the change",
          site is not None and site["blockedMs"]["low"] <= site["blockedMs"]["delta"] <= site["blockedMs"]["high"] < 0, site)
    check("the whole run's blocked time is saved", doc.get("run", {}).get("blockedMs", {}).get("verdict") == "saved", doc.get("run"))
    check("the other sites did not change beyond the noise",
          all(s["blockedMs"]["verdict"] == "no change" for s in doc.get("sites", []) if s is not site), doc.get("sites"))
    # The runs docs/ci.md's sample is made of (ci/gen_doc_samples.py) are these very runs.
    committed = os.path.join(root, "test_inputs", "runtime", "verify")
    same_runs = all(open(os.path.join(committed, side, n)).read() == open(os.path.join(d, n)).read()
                    for side, d in (("before", before), ("after", fixed)) for n in sorted(os.listdir(d)))
    check("test_inputs/runtime/verify/ holds these runs (the docs' sample)",
          same_runs and sorted(os.listdir(os.path.join(committed, "before"))) == sorted(os.listdir(before)))
    text = run("verify", "--before", before, "--after", fixed)
    check("text names the site and says saved with its interval",
          text.returncode == 0 and re.search(r"^  saved +\S*tests/gpu/runtime_probe.cu:37 ", text.stdout, re.M)
          and "95% interval" in text.stdout, text.stdout)

    # slower: everything 1.5x as long.
    slow = runs(os.path.join(tmp, "slow"), 3, 0.02, scale=1.5)
    r = run("verify", "--before", before, "--after", slow, "--format", "json")
    doc = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    check("a slower after fails the gate: exit 1", r.returncode == 1, r.stdout + r.stderr)
    check("slower overall, and the cudaFree site slower",
          doc.get("verdict") == "slower" and any(s["api"] == "cudaFree" and s["blockedMs"]["verdict"] == "slower"
                                                 for s in doc.get("sites", [])), doc)

    # no change: the same spread, other draws.
    same = runs(os.path.join(tmp, "same"), 4, 0.02)
    r = run("verify", "--before", before, "--after", same, "--format", "json")
    doc = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    check("the same program twice: no change, exit 0",
          r.returncode == 0 and doc.get("verdict") == "no change"
          and all(s["blockedMs"]["verdict"] == "no change" for s in doc.get("sites", [])), doc)

    # The noise band: 3% slower is seen at 0.5% spread, and lost in 10% spread.
    quiet_b = runs(os.path.join(tmp, "quiet_b"), 5, 0.005)
    quiet_a = runs(os.path.join(tmp, "quiet_a"), 6, 0.005, scale=1.03)
    noisy_b = runs(os.path.join(tmp, "noisy_b"), 5, 0.10)
    noisy_a = runs(os.path.join(tmp, "noisy_a"), 6, 0.10, scale=1.03)
    q = json.loads(run("verify", "--before", quiet_b, "--after", quiet_a, "--format", "json").stdout)
    n = json.loads(run("verify", "--before", noisy_b, "--after", noisy_a, "--format", "json").stdout)
    qw = q["run"]["blockedMs"]["high"] - q["run"]["blockedMs"]["low"]
    nw = n["run"]["blockedMs"]["high"] - n["run"]["blockedMs"]["low"]
    check("noisy repeats widen the interval (10x or more)", nw > 10 * qw, (qw, nw))
    check("3% slower: slower at low noise, no change within high noise",
          q["run"]["blockedMs"]["verdict"] == "slower" and n["run"]["blockedMs"]["verdict"] == "no change", (q["run"], n["run"]))

    # Formats: markdown for a CI job summary, SARIF that validates as JSON with a result a site.
    md = run("verify", "--before", before, "--after", fixed, "--format", "markdown")
    check("markdown: a table with the whole run and the sites",
          md.returncode == 0 and md.stdout.startswith("### syncwatch verify: saved") and "| **CUDA span (first call to last return)** |" in md.stdout
          and "| saved |" in md.stdout, md.stdout[:400])
    sarif = run("verify", "--before", before, "--after", slow, "--format", "sarif", "--output", os.path.join(tmp, "v.sarif"))
    s = json.load(open(os.path.join(tmp, "v.sarif"))) if os.path.exists(os.path.join(tmp, "v.sarif")) else {}
    results = s.get("runs", [{}])[0].get("results", [])
    check("sarif: one result a site, slower ones are warnings, exit 1",
          sarif.returncode == 1 and results and any(x["level"] == "warning" for x in results), sarif.stderr or results[:1])

    # Run folders: each subfolder one run (its processes' reports together), wall times read.
    for side, src in (("b", before), ("a", fixed)):
        for k, name in enumerate(sorted(os.listdir(src))):
            d = os.path.join(tmp, "dirs", side, f"run-{k + 1}")
            os.makedirs(d)
            os.symlink(os.path.join(src, name), os.path.join(d, "app.swrec"))
            open(os.path.join(d, "wall-ms.txt"), "w").write(str(1000 + 10 * k if side == "b" else 900 + 10 * k))
    r = run("verify", "--before", os.path.join(tmp, "dirs", "b"), "--after", os.path.join(tmp, "dirs", "a"), "--format", "json")
    doc = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    check("run folders: wall time from verify's own files, saved",
          doc.get("run", {}).get("wallMs", {}).get("before") == 1020 and doc["run"]["wallMs"]["verdict"] == "saved", doc.get("run"))

    # Command mode: two commands, interleaved, under syncwatch run; no CUDA call -> no report.
    out = os.path.join(tmp, "cmds")
    r = run("verify", "--runs", "2", "--out", out, "--before-cmd", "echo before >> " + os.path.join(tmp, "order"),
            "--after-cmd", "echo after >> " + os.path.join(tmp, "order"))
    order = open(os.path.join(tmp, "order")).read().split() if os.path.exists(os.path.join(tmp, "order")) else []
    check("commands run interleaved, before first", order == ["before", "after", "before", "after"], order)
    check("each run leaves its wall time", all(os.path.exists(os.path.join(out, s, f"run-{k}", "wall-ms.txt"))
                                               for s in ("before", "after") for k in (1, 2)), os.listdir(out))
    check("a program that makes no CUDA call: exit 2, says why",
          r.returncode == 2 and "no runtime reports" in r.stderr and "CUDA calls" in r.stderr, r.stderr)
    r = run("verify", "--runs", "2", "--out", os.path.join(tmp, "fail"), "--before-cmd", "exit 3", "--after-cmd", "true")
    check("a failing command: exit 2, its exit code and log named",
          r.returncode == 2 and "exit code 3" in r.stderr and "run.log" in r.stderr, r.stderr)
    r = run("verify", "--runs", "2", "--out", os.path.join(tmp, "env"), "--before-env", "X=1", "--after-env", "X=2",
            "--", "/bin/sh", "-c", "echo $X >> " + os.path.join(tmp, "envs"))
    envs = open(os.path.join(tmp, "envs")).read().split() if os.path.exists(os.path.join(tmp, "envs")) else []
    check("one command, two environments", envs == ["1", "2", "1", "2"], envs)

    # Bad input.
    for args, says in ((["--before", before], "go together"),
                       (["--before", os.path.join(tmp, "nope"), "--after", fixed], "not a directory"),
                       (["--before", before, "--after", fixed, "--format", "xml"], "unknown --format"),
                       (["--runs", "1", "--before-cmd", "true", "--after-cmd", "true"], "--runs"),
                       (["--before", before, "--before-env", "X=1", "--", "true"], "not both"),
                       (["--", "true"], "two environments"),
                       (["--before", before, "--after", fixed, "--output", os.path.join(before, "run-1.swrec")], "refusing")):
        r = run("verify", *args)
        check(f"bad input {args[:2]}: exit 2, one line saying '{says}'",
              r.returncode == 2 and says in r.stderr and r.stdout == "", r.stderr + r.stdout)
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    r = run("verify", "--before", empty, "--after", fixed)
    check("an empty folder: exit 2, says it holds no reports", r.returncode == 2 and "no runtime reports" in r.stderr, r.stderr)

shutil.rmtree(scratch, ignore_errors=True)
finish()
