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

Issue 42: evidence numbers typed and range-checked at every reader - a negative, non-finite
(1e400), wrapped (past 2^64) or wrong-typed (a JSON number where syncwatch writes a string)
count or time in a report given to confirm, merge or gate, or in a recording, is refused
(exit 2, the field named), never a stall read as not-observed and a passing gate; a FIFO
given to replay, merge, confirm --runtime, gate, syncwatch-lint --baseline is refused, not
waited on; a directory as --runtime is said to be one; a CRLF recording names the CR; a
recording cut after its header is said to be truncated.

Usage: hostile_inputs_test.py SYNCWATCH_LINT SYNCWATCH SOURCE_DIR [CLANG_TIDY PLUGIN]"""
import glob, hashlib, json, os, shutil, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

LINT, SW, SRC = sys.argv[1:4]
TIDY, PLUGIN = (sys.argv[4:6] + ["", ""])[:2]
FIXABLE = os.path.join(SRC, "test_inputs", "static", "sm_pos_single_stream_fixable.cu")
FLAGS = ["--", "--cuda-path=/usr/local/cuda"]


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

    # --- issue 42: non-regular inputs refused, not waited on -----------------------------
    def prompt(name, args, expect, fifo_name):
        # A FIFO with no writer blocked open(2) forever: the timeout makes that a failure.
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=60)
            check(name, p.returncode == 2 and expect in p.stderr and fifo_name in p.stderr,
                  f"rc={p.returncode} {p.stderr[-300:]}")
        except subprocess.TimeoutExpired:
            check(name, False, "it hung on the FIFO")

    rt_dir = os.path.join(SRC, "test_inputs", "runtime")
    probe_report = os.path.join(rt_dir, "confirm", "h200_confirm_probe.report.json")
    probe_sarif = os.path.join(work, "confirm_probe.sarif")
    run(LINT, "--format=sarif", "--output=" + probe_sarif, os.path.join(SRC, "tests", "gpu", "confirm_probe.cu"), *FLAGS)
    rc, out, err = run(SW, "confirm", "--static", probe_sarif, "--runtime", probe_report)
    check("the committed report as it is: confirmed, the gate fails (exit 1)", rc == 1 and "1 confirmed" in out,
          f"rc={rc} {out[-300:]} {err[-300:]}")

    pipe_rec = os.path.join(work, "pipe-input.swrec")
    os.mkfifo(pipe_rec)
    prompt("a FIFO given to syncwatch replay: exit 2, named, not waited on",
           [SW, "replay", pipe_rec], "not a regular file", "pipe-input.swrec")
    prompt("a FIFO given to syncwatch merge: exit 2, named, not waited on",
           [SW, "merge", probe_report, pipe_rec], "not a regular file", "pipe-input.swrec")
    prompt("a FIFO given to syncwatch confirm --runtime: exit 2, named, not waited on",
           [SW, "confirm", "--static", probe_sarif, "--runtime", pipe_rec], "not a regular file", "pipe-input.swrec")
    prompt("a FIFO given to syncwatch gate: exit 2, named, not waited on",
           [SW, "gate", pipe_rec], "not a regular file", "pipe-input.swrec")
    prompt("a FIFO given to syncwatch-lint --baseline: exit 2, named, not waited on",
           [LINT, "--baseline=" + pipe_rec, FIXABLE, *FLAGS], "not a regular file", "pipe-input.swrec")

    runtime_dir = os.path.join(work, "reports-dir")
    os.mkdir(runtime_dir)
    rc, out, err = run(SW, "confirm", "--static", probe_sarif, "--runtime", runtime_dir)
    check("a directory as confirm --runtime: exit 2, said to be a directory (not 'empty')",
          rc == 2 and "reports-dir: is a directory" in err and "empty" not in err, f"rc={rc} {err[-300:]}")

    # --- issue 42: recordings ----------------------------------------------------------
    probe_rec = os.path.join(rt_dir, "h200_confirm_probe.swrec")
    rec_lines = open(probe_rec).read().splitlines(True)

    crlf = os.path.join(work, "crlf.swrec")
    open(crlf, "w", newline="").write("".join(l.replace("\n", "\r\n") for l in rec_lines))
    for cmd in (["replay"], ["merge"]):
        rc, out, err = run(SW, *cmd, crlf)
        check(f"a CRLF recording to syncwatch {cmd[0]}: exit 2, the CR named",
              rc == 2 and "carriage return" in err and "crlf.swrec" in err and "needs a time" not in err,
              f"rc={rc} {err[-300:]}")

    header_only = os.path.join(work, "header-only.swrec")
    open(header_only, "w").write(rec_lines[0])
    rc, out, err = run(SW, "replay", header_only)
    check("a recording cut after its header: exit 2, said to be truncated (not an idle run)",
          rc == 2 and "truncated" in err, f"rc={rc} {out[-200:]} {err[-300:]}")

    def call_record(mutate):
        """The recording with its first API call record's fields changed by mutate(fields)."""
        out_lines, done = [], False
        for l in rec_lines:
            f = l.rstrip("\n").split("\t")
            if not done and f[0] == "C":
                mutate(f)
                l, done = "\t".join(f) + "\n", True
            out_lines.append(l)
        return "".join(out_lines)

    wrapped = os.path.join(work, "wrapped.swrec")
    open(wrapped, "w").write(call_record(lambda f: f.__setitem__(5, str(2**64 + int(f[5])))))
    for cmd in (["replay"], ["merge"], ["confirm", "--static", probe_sarif, "--runtime"]):
        rc, out, err = run(SW, *cmd, wrapped)
        check(f"a recording's exit time past 2^64 to syncwatch {cmd[0]}: exit 2, exit_ns named",
              rc == 2 and "exit_ns" in err and "wrapped.swrec" in err, f"rc={rc} {err[-300:]}")
    narrow = os.path.join(work, "narrow.swrec")
    open(narrow, "w").write(call_record(lambda f: f.__setitem__(1, str(2**32 + int(f[1])))))
    rc, out, err = run(SW, "replay", narrow)
    check("a recording's correlation id past 2^32-1: exit 2, named (not truncated to 32 bits)",
          rc == 2 and "correlation" in err, f"rc={rc} {err[-300:]}")

    # --- issue 42: reports' evidence, coverage and figures --------------------------------
    base = json.load(open(probe_report))

    def mutated(name, change, raw=None):
        doc = json.loads(json.dumps(base))
        change(doc)
        text = json.dumps(doc)
        if raw:  # a number JSON can hold but Python cannot write (1e400)
            text = text.replace('"@RAW@"', raw)
        path = os.path.join(work, name + ".json")
        open(path, "w").write(text)
        return path

    def evidence(key, value):
        return lambda d: d["findings"][0]["evidence"].__setitem__(key, value)

    def coverage(key, value):
        return lambda d: d["coverage"][0].__setitem__(key, value)

    cases = [
        ("negative-total", evidence("totalMs", "-50.0"), None, "findings[0].evidence.totalMs"),
        ("number-total", evidence("totalMs", 30.216056), None, "findings[0].evidence.totalMs"),
        ("infinite-total", evidence("totalMs", "1e400"), None, "findings[0].evidence.totalMs"),
        ("nan-max", evidence("maxMs", "nan"), None, "findings[0].evidence.maxMs"),
        ("wrapped-count", evidence("count", str(2**64 + 1)), None, "findings[0].evidence.count"),
        ("negative-coverage", coverage("totalMs", -50.0), None, "coverage[0].totalMs"),
        ("infinite-coverage", coverage("totalMs", "@RAW@"), "1e400", "coverage[0].totalMs"),
        ("string-coverage-count", coverage("count", "64"), None, "coverage[0].count"),
        ("wrapped-coverage-count", coverage("count", "@RAW@"), "18446744073709551617", "coverage[0].count"),
        ("negative-figure", lambda d: d["figures"].__setitem__("hostTimeLostMs", "-30.22"), None,
         "figures.hostTimeLostMs"),
    ]
    for name, change, raw, field in cases:
        path = mutated(name, change, raw)
        for cmd in (["confirm", "--static", probe_sarif, "--runtime"], ["merge"], ["gate"]):
            rc, out, err = run(SW, *cmd, path)
            check(f"{name} in a runtime report to syncwatch {cmd[0]}: exit 2, {field} named",
                  rc == 2 and field in err and name + ".json" in err, f"rc={rc} {out[-200:]} {err[-300:]}")

    # The same in a SARIF runtime report (the reader that took a number there as its text).
    rc, sarif_text, err = run(SW, "replay", "--format", "sarif", probe_rec)
    sarif_doc = json.loads(sarif_text)
    results = sarif_doc["runs"][0]["results"]
    measured = next(i for i, r in enumerate(results) if "totalMs" in r.get("properties", {}))
    results[measured]["properties"]["totalMs"] = "-50.0"
    neg_sarif = os.path.join(work, "negative-total.sarif")
    json.dump(sarif_doc, open(neg_sarif, "w"))
    rc, out, err = run(SW, "confirm", "--static", probe_sarif, "--runtime", neg_sarif)
    check("a negative totalMs in a SARIF runtime report to confirm: exit 2, the result's field named",
          rc == 2 and f"runs[0].results[{measured}].properties.totalMs" in err, f"rc={rc} {err[-300:]}")

    # The gate's own inputs: an allowlist's maxMs and a baseline's ms.
    allow = os.path.join(work, "allow.json")
    open(allow, "w").write('{"allow": [{"file": "confirm_probe.cu", "reason": "accepted", "maxMs": 1e400}]}')
    rc, out, err = run(SW, "gate", probe_report, "--allowlist", allow)
    check("an allowlist's maxMs of 1e400: exit 2, named (not an infinite allowance)",
          rc == 2 and "allow[0].maxMs" in err, f"rc={rc} {err[-300:]}")
    gate_base = os.path.join(work, "gate-baseline.json")
    rc, out, err = run(SW, "gate", probe_report, "--write-baseline", gate_base)
    doc = json.load(open(gate_base))
    doc["sites"][0]["ms"] = -5
    json.dump(doc, open(gate_base, "w"))
    rc, out, err = run(SW, "gate", probe_report, "--baseline", gate_base)
    check("a gate baseline's negative ms: exit 2, named", rc == 2 and "sites[0].ms" in err, f"rc={rc} {err[-300:]}")

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
                            "--config={CheckOptions: {syncwatch-pageable-async-copy.ReportUnknown: maybe}}", FIXABLE, "--",
                            "--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-gpu-arch=sm_90",
                            "--cuda-path=/usr/local/cuda"], capture_output=True, text=True, timeout=300)
        check("the plugin warns about a boolean option that is no boolean",
              "invalid configuration value 'maybe' for option 'syncwatch-pageable-async-copy.ReportUnknown'" in p.stdout + p.stderr,
              (p.stdout + p.stderr)[-300:])
finally:
    shutil.rmtree(work, ignore_errors=True)
finish()
