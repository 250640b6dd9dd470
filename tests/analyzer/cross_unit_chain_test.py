#!/usr/bin/env python3
"""Callers' context through a chain of files (issue 41, item 1): test_inputs/cross_unit_chain/,
four files that see each other only through pipeline.h. trainer.cu leaves a kernel running
and calls checkpoint.cpp (plain C++, no CUDA call), which calls pipeline.cu, which calls
memory.cu, whose helper frees with cudaFree: the warning is in memory.cu, and its notes walk
the chain back to the kernel, one note per call. The look-alikes - the same chain after a
stream sync, a stage that syncs the device first, a header template after a device sync -
stay silent.

- the findings are exactly the `// expect:` lines of the folder's files;
- the notes name every call of the chain, nearest first, then the work;
- the same report at -j1 and -j2, and from a cold and a warm result cache;
- --no-cross-unit finds nothing (no file shows the stall alone).

Usage: cross_unit_chain_test.py SYNCWATCH_LINT SOURCE_DIR"""
import glob, json, os, re, shutil, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

LINT, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
INPUTS = os.path.join(SRC, "test_inputs", "cross_unit_chain")
EXPECT = re.compile(r"//\s*expect:\s*(warning|note)\s+(syncwatch-[a-z-]+)")


def expected():
    out = []
    for path in sorted(glob.glob(os.path.join(INPUTS, "*.c*"))):
        with open(path) as fh:
            for n, line in enumerate(fh, 1):
                m = EXPECT.search(line)
                if m:
                    out.append((os.path.basename(path), n, m.group(2), m.group(1)))
    return sorted(out)


def line_of(name, text):
    with open(os.path.join(INPUTS, name)) as fh:
        for n, line in enumerate(fh, 1):
            if text in line:
                return n
    raise AssertionError(f"{text!r} not in {name}")


def lint(*args):
    p = subprocess.run([LINT, "-p", work, "--format=json", "--checks=-*,syncwatch-implicit-sync", *args],
                       capture_output=True, text=True, timeout=600)
    try:
        return p.returncode, json.loads(p.stdout) if p.stdout.strip() else {}, p.stderr
    except json.JSONDecodeError:
        return p.returncode, {}, p.stderr


def found(report):
    return sorted((os.path.basename(f["location"]["file"]), f["location"]["line"], f["rule"], f["severity"])
                  for f in report.get("findings", []))


def notes_of(report, name, line):
    for f in report.get("findings", []):
        if os.path.basename(f["location"]["file"]) == name and f["location"]["line"] == line:
            return [(os.path.basename(n["location"]["file"]), n["location"]["line"]) for n in f["notes"]]
    return None


work = tempfile.mkdtemp(prefix="syncwatch-chain-")
try:
    db = []
    for name in ("memory.cu", "pipeline.cu", "checkpoint.cpp", "trainer.cu"):
        cmd = (f"clang++ -x cuda --cuda-path=/usr/local/cuda -O2 -c {name} -o {work}/x.o" if name.endswith(".cu")
               else f"c++ -I/usr/local/cuda/include -O2 -c {name} -o {work}/x.o")
        db.append({"directory": INPUTS, "file": name, "command": cmd})
    with open(os.path.join(work, "compile_commands.json"), "w") as fh:
        json.dump(db, fh)
    want = expected()
    check("the folder expects two warnings", len(want) == 2, want)

    rc, one, err = lint("-j1")
    check("-j1: the findings are the expect lines", found(one) == want and rc == 1, (rc, found(one), err[-600:]))
    free_now = line_of("memory.cu", "cudaFree(p);  // expect")
    check("the helper's cudaFree: every call of the chain, nearest first, then the kernel",
          notes_of(one, "memory.cu", free_now) == [
              ("memory.cu", line_of("memory.cu", "void device_release(float *p) { free_now(p); }")),
              ("pipeline.cu", line_of("pipeline.cu", "device_release(activations);")),
              ("checkpoint.cpp", line_of("checkpoint.cpp", "s.retire();")),
              ("trainer.cu", line_of("trainer.cu", "save_and_trim(a);")),
              ("trainer.cu", line_of("trainer.cu", "forward<<<n / 256, 256, 0, stream>>>(a.activations, n);"))],
          notes_of(one, "memory.cu", free_now))
    checked = line_of("memory.cu", "CUDA_CHECK(cudaFree(p));")
    check("the macro-wrapped cudaFree: reached from trainer.cu's lambda through pipeline.cu",
          notes_of(one, "memory.cu", checked) == [
              ("pipeline.cu", line_of("pipeline.cu", "device_release_checked(s.activations);")),
              ("trainer.cu", line_of("trainer.cu", "end_of_epoch(s);")),
              ("trainer.cu", line_of("trainer.cu", "forward<<<n / 256, 256, 0, stream>>>(s.activations, n);"))],
          notes_of(one, "memory.cu", checked))

    _, two, _ = lint("-j2")
    check("-j2: the same report as -j1", two.get("findings") == one.get("findings"), found(two))
    # Without judging at the parses' ends (--no-early-summaries), the second phase judges
    # the first phase's kept parses again (unit/HeldParse.h), round after round of the chain;
    # parsing each unit again, or judging each at its parse's end with what is known then
    # (the default), must give the same report.
    kept_stats, again_stats = os.path.join(work, "kept.json"), os.path.join(work, "again.json")
    _, kept, _ = lint("-j2", "--no-early-summaries", f"--run-stats-json={kept_stats}")
    _, again, _ = lint("-j2", "--no-early-summaries", "--cross-unit-memory=0", f"--run-stats-json={again_stats}")
    ks, ag = json.load(open(kept_stats)), json.load(open(again_stats))
    check("kept parses: every second analysis of the chain is served without a new parse",
          ks["judgedAgainFromKeptParses"] >= ks["reanalyzedWithSummaries"] >= 3 and ks["parsesKept"] == 4,
          ks)
    check("--cross-unit-memory=0: each is parsed again, and the report is the kept parses' report",
          ag["judgedAgainFromKeptParses"] == 0 and ag["parsesKept"] == 0
          and again.get("findings") == kept.get("findings") == one.get("findings"), (ag, found(again)))
    # Files named in callee-first order (the database's own order is its JSON map's): at -j1
    # pipeline.cu ends knowing memory.cu's summary, and is judged with it at once.
    early_stats = os.path.join(work, "early.json")
    _, early, _ = lint("-j1", "--cross-unit-memory=0", f"--run-stats-json={early_stats}",
                       *[os.path.join(INPUTS, f) for f in ("memory.cu", "pipeline.cu", "checkpoint.cpp", "trainer.cu")])
    es = json.load(open(early_stats))
    check("judged at the parses' ends (-j1, no parse kept): the same report, with units judged early",
          early.get("findings") == one.get("findings") and es["judgedWithKnownSummaries"] >= 1, es)
    cache = os.path.join(work, "cache")
    _, cold, _ = lint("-j2", f"--cache-dir={cache}")
    _, warm, _ = lint("-j2", f"--cache-dir={cache}")
    check("cold and warm cache: the same report", cold.get("findings") == one.get("findings") ==
          warm.get("findings"), (found(cold), found(warm)))

    rc, alone, _ = lint("--no-cross-unit")
    check("--no-cross-unit: no file shows the stall alone", found(alone) == [] and rc == 0, found(alone))
finally:
    shutil.rmtree(work, ignore_errors=True)
finish()
