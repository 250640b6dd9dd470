#!/usr/bin/env python3
"""Readers that cannot be crashed (issue 20): JSON nested tens of thousands deep - a
baseline, a SARIF given to `syncwatch-lint merge`, a compile database, a result-cache
entry - is refused with a clear message (or, for the cache, is a miss), never a SIGSEGV; a
cache entry whose fix names a file the unit never read is a miss, so --fix cannot be made to
edit that file; a recording of an unknown format version is refused.

Also: a damaged SARIF (runs[0].results missing, null or a string) is an error for
`syncwatch confirm` and `syncwatch-lint merge`, not 0 results that pass a gate; a baseline
entry of the wrong type is a malformed baseline; a FIFO given as a source is refused, not
waited on; a file name that is not UTF-8 still gives a valid UTF-8 JSON report; the plugin
warns about a boolean option that is no boolean.

Usage: hostile_inputs_test.py SYNCWATCH_LINT SYNCWATCH SOURCE_DIR [CLANG_TIDY PLUGIN]"""
import glob, hashlib, json, os, shutil, subprocess, sys, tempfile

LINT, SW, SRC = sys.argv[1:4]
TIDY, PLUGIN = (sys.argv[4:6] + ["", ""])[:2]
FIXABLE = os.path.join(SRC, "test_inputs", "static", "sm_pos_single_stream_fixable.cu")
FLAGS = ["--", "--cuda-path=/usr/local/cuda"]
failures = 0


def check(name, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    failures += not ok


def run(*args, cwd=None):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=300, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def deep(n):
    return "[" * n + "]" * n


work = tempfile.mkdtemp(prefix="syncwatch-hostile-")
try:
    baseline = os.path.join(work, "baseline.json")
    open(baseline, "w").write('{"version": 1, "findings": ' + deep(50_000) + "}")
    rc, out, err = run(LINT, "--baseline=" + baseline, FIXABLE, *FLAGS)
    check("a baseline nested 50,000 deep: exit 2, 'nested too deeply'", rc == 2 and "nested too deeply" in err, f"rc={rc} {err[-200:]}")

    sarif = os.path.join(work, "deep.sarif")
    open(sarif, "w").write('{"version": "2.1.0", "runs": ' + deep(100_000) + "}")
    rc, out, err = run(LINT, "merge", sarif)
    check("a SARIF nested 100,000 deep to syncwatch-lint merge: exit 2", rc == 2 and "nested too deeply" in err, f"rc={rc} {err[-200:]}")
    rc, out, err = run(SW, "merge", sarif)
    check("the same SARIF to syncwatch merge: exit 2", rc == 2 and "deep" in err, f"rc={rc} {err[-200:]}")

    db = os.path.join(work, "db")
    os.mkdir(db)
    open(os.path.join(db, "compile_commands.json"), "w").write(deep(100_000))
    rc, out, err = run(LINT, "-p", db)
    check("a compile database nested 100,000 deep: exit 2", rc == 2 and "nested too deeply" in err, f"rc={rc} {err[-200:]}")
    db2 = os.path.join(work, "db2")
    os.makedirs(os.path.join(db2, "compile_commands.json"))
    rc, out, err = run(LINT, "-p", db2)
    check("a compile database that cannot be read says why (not 'missing')",
          rc == 2 and "cannot read" in err and "no compile_commands.json" not in err, f"rc={rc} {err[-200:]}")

    # The result cache: a damaged-deep entry is a miss; an entry whose fix names another file too.
    cache = os.path.join(work, "cache")
    src = os.path.join(work, "fixable.cu")
    victim = os.path.join(work, "victim.cu")
    shutil.copy(FIXABLE, src)
    open(victim, "w").write("// a file of the user's that no unit reads\n" * 40)
    victim_digest = hashlib.sha256(open(victim, "rb").read()).hexdigest()
    rc0, fresh, _ = run(LINT, "--format=json", "--cache-dir=" + cache, src, *FLAGS)
    entries = [e for e in glob.glob(os.path.join(cache, "**", "*.json"), recursive=True)]
    check("the cache has an entry", rc0 == 1 and len(entries) == 1, entries)
    entry = json.load(open(entries[0]))
    fixes = [x for f in entry["report"]["findings"] for x in f.get("fixes", [])]
    check("the entry holds a fix to redirect", bool(fixes), json.dumps(entry)[:300])
    text = json.dumps(entry).replace(json.dumps(src)[1:-1], json.dumps(victim)[1:-1])
    open(entries[0], "w").write(text)
    rc, out, err = run(LINT, "--fix", "--checks=-*,syncwatch-sync-memcpy", "--cache-dir=" + cache, src, *FLAGS)
    victim_kept = hashlib.sha256(open(victim, "rb").read()).hexdigest() == victim_digest
    check("a cache entry whose fix names another file: a miss; --fix leaves that file alone and fixes the source",
          victim_kept and "cudaMemsetAsync(" in open(src).read(), f"rc={rc} kept={victim_kept} {err[-300:]}")
    shutil.copy(FIXABLE, src)
    rc, _, _ = run(LINT, "--format=json", "--cache-dir=" + cache, src, *FLAGS)  # a fresh entry
    entries = [e for e in glob.glob(os.path.join(cache, "**", "*.json"), recursive=True)]
    for e in entries:
        open(e, "w").write('{"version": 3, "deps": [], "report": ' + deep(100_000) + "}")
    rc, again, err = run(LINT, "--format=json", "--cache-dir=" + cache, src, *FLAGS)
    check("a cache entry nested 100,000 deep: a miss, the same report", rc == rc0 and again == fresh, f"rc={rc} {err[-200:]}")

    rec = os.path.join(work, "v999.swrec")
    open(rec, "w").write("# syncwatch-events 999\nS\t7\tlegacy\t0\nE\t1\n")
    rc, out, err = run(SW, "replay", rec)
    check("a recording of format version 999: exit 2, said", rc == 2 and "version '999'" in err, f"rc={rc} {err}")
    rc, out, err = run(SW, "merge", rec)
    check("the same recording to syncwatch merge: exit 2", rc == 2 and "999" in err, f"rc={rc} {err}")

    # damaged SARIF logs: results missing, null, a string
    good = os.path.join(work, "good.sarif")
    run(LINT, "--format=sarif", "--output=" + good, FIXABLE, *FLAGS)
    doc = json.load(open(good))
    runtime = os.path.join(work, "rt.json")
    rc, out, _ = run(SW, "replay", "--format", "json", os.path.join(SRC, "test_inputs", "runtime", "h200_runtime_probe.swrec"))
    open(runtime, "w").write(out)
    for label, value in (("missing", None), ("null", "null"), ("a string", '"none"')):
        bad = json.loads(json.dumps(doc))
        del bad["runs"][0]["results"]
        if value is not None:
            bad["runs"][0]["results"] = json.loads(value)
        text = json.dumps(bad)
        path = os.path.join(work, f"damaged-{label.replace(' ', '-')}.sarif")
        open(path, "w").write(text)
        rc1, _, err1 = run(SW, "confirm", "--static", path, "--runtime", runtime)
        rc2, _, err2 = run(LINT, "merge", path)
        check(f"a SARIF whose results are {label}: confirm and syncwatch-lint merge exit 2",
              rc1 == 2 and rc2 == 2 and "results" in err1 and "results" in err2, f"{rc1} {err1} / {rc2} {err2}")

    wrong = os.path.join(work, "wrong-type.json")
    open(wrong, "w").write('{"version": 1, "findings": [42, "x"]}')
    rc, out, err = run(LINT, "--baseline=" + wrong, FIXABLE, *FLAGS)
    check("a baseline entry of the wrong type: exit 2, said", rc == 2 and "findings[0]" in err, f"rc={rc} {err[-200:]}")

    fifo = os.path.join(work, "pipe.cu")
    os.mkfifo(fifo)
    try:
        p = subprocess.run([LINT, fifo, FIXABLE, "--no-source", *FLAGS], capture_output=True, text=True, timeout=120)
        check("a FIFO given as a source: refused (exit 2, named), the other file still reported",
              p.returncode == 2 and "not a regular file" in p.stderr and "sm_pos_single_stream_fixable.cu" in p.stdout,
              f"rc={p.returncode} {p.stderr[-200:]}")
    except subprocess.TimeoutExpired:
        check("a FIFO given as a source: refused", False, "the lint hung on it")

    latin1 = os.path.join(work.encode(), b"caf\xe9.cu")
    shutil.copy(FIXABLE, latin1)
    p = subprocess.run([LINT.encode(), b"--format=json", latin1, b"--", b"--cuda-path=/usr/local/cuda"], capture_output=True, timeout=120)
    try:
        report = json.loads(p.stdout.decode("utf-8"))
        ok = p.returncode == 1 and report["findings"] and "\ufffd" in report["findings"][0]["location"]["file"]
    except (UnicodeDecodeError, ValueError, KeyError, IndexError) as e:
        ok, report = False, e
    check("a file name that is not UTF-8: a valid UTF-8 JSON report (U+FFFD for the byte)", ok, str(report)[:200])

    if TIDY and PLUGIN:
        p = subprocess.run([TIDY, "--load=" + PLUGIN, "--checks=-*,syncwatch-*",
                            "--config={CheckOptions: {syncwatch-default-stream.ReportUnknown: maybe}}", FIXABLE, "--",
                            "--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-gpu-arch=sm_90",
                            "--cuda-path=/usr/local/cuda"], capture_output=True, text=True, timeout=300)
        check("the plugin warns about a boolean option that is no boolean",
              "invalid configuration value 'maybe' for option 'syncwatch-default-stream.ReportUnknown'" in p.stdout + p.stderr,
              (p.stdout + p.stderr)[-300:])
finally:
    shutil.rmtree(work, ignore_errors=True)
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
