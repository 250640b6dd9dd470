#!/usr/bin/env python3
"""The `syncwatch` command's conventions, the same as syncwatch-lint's: `--opt=value` and
`--opt value` both work, `--help` on the command and every subcommand exits 0 with the usage
on stdout, an unknown option or a bad value is one line naming it and exit 2, `--version`
prints the real version, and reports carry it.
  runtime_cli_test.py SYNCWATCH RECORDING.swrec VERSION"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, rec, version = sys.argv[1:4]


def run(*args, cwd=None):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


for args in (["--help"], ["run", "--help"], ["replay", "--help"], ["calibrate", "--help"]):
    r = run(*args)
    check(f"{' '.join(args)}: exit 0, usage on stdout", r.returncode == 0 and "usage: syncwatch" in r.stdout
          and not r.stderr, f"{r.returncode} {r.stdout[:80]!r} {r.stderr[:80]!r}")
r = run("--version")
check("--version", r.returncode == 0 and r.stdout.strip() == f"syncwatch {version}", r.stdout)
for sub in ("run", "replay", "merge", "confirm", "calibrate"):
    r = run(sub, "--version")
    check(f"{sub} --version", r.returncode == 0 and r.stdout.strip() == f"syncwatch {version}", r.stdout + r.stderr)
r = run("run", "--out", tempfile.gettempdir(), "--", "sh", "-c", 'echo "$1"', "sh", "--version")
check("run -- cmd --version: the job's argument, not ours", r.returncode == 0 and r.stdout.strip() == "--version", r.stdout)

eq = run("replay", "--format=json", rec)
sp = run("replay", "--format", "json", rec)
check("--format=json and --format json give the same report", eq.returncode == sp.returncode == 1
      and eq.stdout == sp.stdout and eq.stdout.startswith("{"), f"{eq.returncode} {sp.returncode} {eq.stderr}")
check("the JSON report carries the version", json.loads(eq.stdout).get("version") == version)
sarif = json.loads(run("replay", "--format=sarif", rec).stdout)
check("the SARIF report carries the version", sarif["runs"][0]["tool"]["driver"].get("version") == version)
# SARIF for code scanning: URIs relative to the source root, the baseline fingerprint.
run0 = json.loads(run("replay", "--format=sarif", "--source-root=/work/main", rec).stdout)["runs"][0]
art = run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
check("runtime SARIF: repo-relative URI under %SRCROOT%",
      run0["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///work/main/" and art.get("uriBaseId") == "%SRCROOT%"
      and art["uri"] == "tests/gpu/two_stacks.cu", json.dumps(art))
check("runtime SARIF: partialFingerprints", all(len(r["partialFingerprints"]["syncwatch/v1"]) == 16 for r in run0["results"]))
run1 = json.loads(run("replay", "--format=sarif", "--source-root=/elsewhere", rec).stdout)["runs"][0]
art = run1["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
check("runtime SARIF: a file outside the root keeps its absolute URI",
      art["uri"].startswith("file:///") and "uriBaseId" not in art, json.dumps(art))
check("--threshold-ms=N and --threshold-ms N agree",
      run("replay", "--threshold-ms=5", "--format=json", rec).stdout == run("replay", "--threshold-ms", "5", "--format=json", rec).stdout)

for args, says in ((["replay", "--bogus", rec], "unknown option '--bogus'"),
                   (["run", "--frobnicate", "--", "true"], "unknown option '--frobnicate'"),
                   (["calibrate", "--nope"], "unknown option '--nope'"),
                   (["replay", "--format=xml", rec], "unknown --format 'xml'"),
                   (["replay", "--window=lots", rec], "--window 'lots' is not a non-negative number"),
                   (["replay", "--record=1", rec], "unknown option '--record=1'"),
                   (["run", "--record=yes", "--", "true"], "option '--record' takes no value"),
                   (["replay", "--format"], "option '--format' needs a value"),
                   (["replay"], "no recording given"),
                   (["run"], "no command to run"),
                   (["frobnicate"], "unknown command 'frobnicate'"),
                   (["--frobnicate"], "unknown option '--frobnicate'")):
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    check(f"{' '.join(args)}: one line, exit 2", r.returncode == 2 and len(lines) == 1 and says in lines[0]
          and not r.stdout, f"{r.returncode} {r.stderr!r}")

# --path-map OLD=NEW (repeatable): the recording's absolute paths (made in /work/main on the
# H200) as they read in this checkout, in the text (docs/runtime.md's samples are generated
# with it) and in JSON/SARIF; messages' Python stacks too.
plain = run("replay", rec).stdout
mapped = run("replay", "--path-map", "/work/main/=", rec)
check("replay --path-map /work/main/=: text paths repo-relative",
      mapped.returncode == 1 and "/work/main/" in plain and "/work/main/" not in mapped.stdout
      and mapped.stdout.replace("tests/gpu/", "/work/main/tests/gpu/") == plain, mapped.stdout[:300])
two = run("replay", "--path-map=/nowhere/=/x/", "--path-map=/work/main/tests/=t/", "--path-map", "/work/main/=u/",
          rec).stdout
check("replay --path-map: repeatable, the first OLD that matches wins",
      "\nt/gpu/two_stacks.cu:12:1: warning" in two, two[:300])
j = json.loads(run("replay", "--format=json", "--path-map", "/work/main/=/elsewhere/", rec).stdout)
check("replay --path-map: JSON locations mapped", j["findings"][0]["location"]["file"] == "/elsewhere/tests/gpu/two_stacks.cu",
      json.dumps(j["findings"][0]["location"]))
with tempfile.TemporaryDirectory() as d:
    s0 = json.loads(run("replay", "--format=sarif", "--path-map", "/work/main/=", "--source-root", d, rec, cwd=d).stdout)
    art = s0["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    check("replay --path-map to a relative path: SARIF URI under %SRCROOT% (taken from the working directory)",
          art.get("uriBaseId") == "%SRCROOT%" and art["uri"] == "tests/gpu/two_stacks.cu", json.dumps(art))
for bad in ("nothing", "=x"):
    r = run("replay", "--path-map", bad, rec)
    check(f"replay --path-map {bad}: one line, exit 2", r.returncode == 2 and "is not OLD=NEW" in r.stderr
          and len(r.stderr.strip().splitlines()) == 1 and not r.stdout, r.stderr)

# syncwatch run without --out writes nothing and creates no directory: the findings go to
# stderr (docs/runtime.md); SYNCWATCH_OUT in the environment stands for --out.
env = {k: v for k, v in os.environ.items() if k != "SYNCWATCH_OUT"}
with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([tool, "run", "--", "/bin/sh", "-c", "echo job; exit 4"], capture_output=True, text=True,
                       timeout=60, cwd=d, env=env)
    check("run without --out: the job's exit code and stdout, nothing created in the working directory",
          r.returncode == 4 and r.stdout == "job\n" and os.listdir(d) == [] and not r.stderr,
          f"{r.returncode} {r.stdout!r} {r.stderr!r} {os.listdir(d)}")
    r = subprocess.run([tool, "run", "--", "/bin/sh", "-c", 'echo "$SYNCWATCH_OUT"'], capture_output=True, text=True,
                       timeout=60, cwd=d, env=dict(env, SYNCWATCH_OUT=os.path.join(d, "env-reports")))
    check("run with SYNCWATCH_OUT and no --out: SYNCWATCH_OUT is the report directory",
          r.returncode == 0 and r.stdout.strip() == os.path.join(d, "env-reports")
          and os.path.isdir(os.path.join(d, "env-reports")) and "no report written to" in r.stderr, r.stdout + r.stderr)
    r = subprocess.run([tool, "run", "--record", "--", "true"], capture_output=True, text=True, timeout=60, cwd=d, env=env)
    check("run --record without --out: one line, exit 2 (the recordings would go nowhere)",
          r.returncode == 2 and "--record needs --out" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          r.stderr)

with tempfile.TemporaryDirectory() as d:
    r = run("run", "--out=" + d, "--", "/bin/sh", "-c", "exit 3")
    s = run("run", "--out", d, "--", "/bin/sh", "-c", "exit 3")
    check("run --out=DIR and --out DIR: the command's exit code", r.returncode == s.returncode == 3, f"{r.returncode} {s.returncode}")
# A libsyncwatch.so the dynamic loader cannot load (CUPTI not found): `run` says so and starts
# nothing - the loader would refuse to start the program (exit 127), and "no process of the
# run made a CUDA call" read as if it had made none. The copy's DT_NEEDED names a CUPTI that
# no system has (the same length, so the ELF stays whole).
lib = os.path.join(os.path.dirname(tool), "libsyncwatch.so")
if os.path.exists(lib):
    with tempfile.TemporaryDirectory() as d:
        data = open(lib, "rb").read()
        needed = re.search(rb"libcupti\.so\.\d+\x00", data)
        if needed:
            gone = b"libcupti.so." + b"9" * (len(needed.group(0)) - 13) + b"\x00"
            open(os.path.join(d, "libsyncwatch.so"), "wb").write(data.replace(needed.group(0), gone))
            shutil.copy2(tool, os.path.join(d, "syncwatch"))
            marker = os.path.join(d, "ran")
            r = subprocess.run([os.path.join(d, "syncwatch"), "run", "--out", os.path.join(d, "out"), "--",
                                "/bin/sh", "-c", "touch " + marker], capture_output=True, text=True, timeout=60)
            check("run with a libsyncwatch.so whose CUPTI is not found: exit 2, CUPTI named, the program not started",
                  r.returncode == 2 and gone[:-1].decode() + " not found" in r.stderr and "CUPTI comes with" in r.stderr
                  and not os.path.exists(marker) and "made a CUDA call" not in r.stderr,
                  f"{r.returncode} {r.stderr!r}")
        else:
            check("libsyncwatch.so names libcupti.so.N", False, "no libcupti DT_NEEDED found")
    r = run("run", "--", "/bin/sh", "-c", "exit 5")
    check("run with CUPTI found: the check passes and the program runs", r.returncode == 5, r.stderr)
finish()
