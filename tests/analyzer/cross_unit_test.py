#!/usr/bin/env python3
"""Function summaries across files (docs/ci.md "Calls into other files"): over
test_inputs/cross_unit/, whose two files only see each other through ops.h.

- one run finds what neither file shows alone: release()'s cudaFree in ops.cu, called from
  train.cu while scale_async()'s kernel runs (notes at train.cu's calls), and fetch()'s
  stream sync, in ops.cu, called in train.cu's loop; the look-alikes stay silent;
- --no-cross-unit gives each file's own findings (none here);
- the result cache keeps the summaries: a second run is all hits, with the same report;
- shards: without summaries a shard misses the cross-file findings; with the summaries an
  unsharded run wrote (--write-summaries), the shards' findings are the unsharded run's;
- a damaged summary file is a clear tool error (exit 2), never a silent skip;
- a unit judged at its parse's end with the summaries known then (-j1: train.cu, after
  ops.cu) needs no second look, and every way of judging again - at the parse's end, on a
  kept parse, on a new parse - gives the same report byte for byte, also for a file with two
  compile commands.

Usage: cross_unit_test.py SYNCWATCH_LINT SOURCE_DIR"""
import json, os, shutil, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

LINT, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
INPUTS = os.path.join(SRC, "test_inputs", "cross_unit")
OPS, TRAIN = os.path.join(INPUTS, "ops.cu"), os.path.join(INPUTS, "train.cu")


def lint(*args):
    p = subprocess.run([LINT, "-p", work, "--format=json", *args], capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(p.stdout) if p.stdout.strip() else {}
    except json.JSONDecodeError:
        report = {}
    return p.returncode, report, p.stderr


def found(report):
    return sorted((os.path.basename(f["location"]["file"]), f["location"]["line"], f["rule"])
                  for f in report.get("findings", []))


def line_of(path, text):
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            if text in line:
                return n
    raise AssertionError(f"{text!r} not in {path}")


work = tempfile.mkdtemp(prefix="syncwatch-cross-unit-")
try:
    with open(os.path.join(work, "compile_commands.json"), "w") as fh:
        json.dump([{"directory": INPUTS, "file": f,
                    "command": f"clang++ -x cuda --cuda-path=/usr/local/cuda -O2 -c {f} -o {work}/x.o"}
                   for f in (OPS, TRAIN)], fh)
    free_line = line_of(OPS, "cudaFree(data)")
    fetch_line = line_of(TRAIN, "fetch(host, dev, n, stream);")
    release_call = line_of(TRAIN, "release(dev);")
    expected = sorted([("ops.cu", free_line, "syncwatch-implicit-sync"),
                       ("train.cu", fetch_line, "syncwatch-sync-in-loop")])

    rc, full, err = lint()
    check("one run: the cross-file findings, nothing else", found(full) == expected and rc == 1,
          f"rc {rc}, {found(full)}, {err[-400:]}")
    free = [f for f in full.get("findings", []) if f["rule"] == "syncwatch-implicit-sync"]
    notes = [(os.path.basename(n["location"]["file"]), n["location"]["line"]) for n in (free[0]["notes"] if free else [])]
    check("the cudaFree's notes point at train.cu's call and the work it left",
          ("train.cu", release_call) in notes and ("train.cu", release_call - 1) in notes, notes)
    check("the finding says the work is the caller's", free and free[0]["evidence"].get("inFlight") == "caller",
          free[0]["evidence"] if free else "no finding")
    loop = [f for f in full.get("findings", []) if f["rule"] == "syncwatch-sync-in-loop"]
    check("the loop's finding names the wait in ops.cu",
          loop and any(os.path.basename(n["location"]["file"]) == "ops.cu" for n in loop[0]["notes"]),
          loop[0]["notes"] if loop else "no finding")

    # The first phase judges a unit again at its parse's end with the summaries known then
    # (lint/KnownSummaries.h). Under -j1 with the files named in this order (the database's
    # own order is its JSON map's), ops.cu is analyzed first, with nothing known; train.cu
    # then has ops.cu's summary at its end and needs no second look: only ops.cu, called
    # with train.cu's work in flight, is judged again, by its kept parse. (The other way
    # round, train.cu would know nothing of scale_async()'s kernel yet, and ops.cu's slice
    # would be empty at its end: both would need the second phase.)
    j1_stats = os.path.join(work, "j1.json")
    _, j1, _ = lint("-j1", f"--run-stats-json={j1_stats}", OPS, TRAIN)
    s = json.load(open(j1_stats))
    check("-j1: train.cu is judged at its parse's end with ops.cu's summary; only ops.cu needs a second look",
          s["judgedWithKnownSummaries"] == 1 and s["reanalyzedWithSummaries"] == 1
          and s["judgedAgainFromKeptParses"] == 1 and json.dumps(j1) == json.dumps(full), s)
    check("-j1: the stats name the unit looked at again (reanalyzedFiles)",
          [os.path.basename(f) for f in s.get("reanalyzedFiles", [])] == ["ops.cu"], s)
    # Under -j2 the two parses run side by side: which one ends knowing the other's summary
    # depends on timing, the report does not; every unit is judged with its slice once.
    j2_stats = os.path.join(work, "j2.json")
    _, j2, _ = lint("-j2", f"--run-stats-json={j2_stats}")
    s = json.load(open(j2_stats))
    check("-j2: each unit judged with its slice once, at its parse's end or by its kept parse",
          s["judgedWithKnownSummaries"] + s["reanalyzedWithSummaries"] == 2
          and s["judgedAgainFromKeptParses"] == s["reanalyzedWithSummaries"] and json.dumps(j2) == json.dumps(full), s)

    # Without that (--no-early-summaries): both units are judged again in the second phase,
    # by their kept parses, or by new parses with --cross-unit-memory=0.
    kept_stats, again_stats = os.path.join(work, "kept.json"), os.path.join(work, "again.json")
    _, kept, _ = lint("--no-early-summaries", f"--run-stats-json={kept_stats}")
    _, again, _ = lint("--no-early-summaries", "--cross-unit-memory=0", f"--run-stats-json={again_stats}")
    ks, ag = json.load(open(kept_stats)), json.load(open(again_stats))
    check("--no-early-summaries: the second phase judges both files' kept parses again: no new parse",
          ks["reanalyzedWithSummaries"] == 2 and ks["judgedAgainFromKeptParses"] == 2 and ks["parsesKept"] == 2
          and ks["judgedWithKnownSummaries"] == 0
          and [os.path.basename(f) for f in ks.get("reanalyzedFiles", [])] == ["ops.cu", "train.cu"], ks)
    check("parsed again instead (--cross-unit-memory=0): the same report, byte for byte",
          ag["judgedAgainFromKeptParses"] == 0 and json.dumps(again) == json.dumps(kept) == json.dumps(full), ag)

    rc, alone, _ = lint("--no-cross-unit")
    check("--no-cross-unit: each file alone finds nothing here", found(alone) == [] and rc == 0, found(alone))

    cache = os.path.join(work, "cache")
    stats1, stats2 = os.path.join(work, "s1.json"), os.path.join(work, "s2.json")
    _, first, _ = lint(f"--cache-dir={cache}", f"--run-stats-json={stats1}")
    _, second, _ = lint(f"--cache-dir={cache}", f"--run-stats-json={stats2}")
    s1, s2 = json.load(open(stats1)), json.load(open(stats2))
    check("cache: the same findings from a warm cache", found(first) == expected and found(second) == expected,
          (found(first), found(second)))
    check("cache: the second run parses nothing (phase one and two entries hit)",
          s2["cacheMisses"] == 0 and s2["cacheHits"] >= 4
          and s1["reanalyzedWithSummaries"] + s1["judgedWithKnownSummaries"] == 2, (s1, s2))

    summaries = os.path.join(work, "summaries.json")
    rc, _, err = lint(f"--write-summaries={summaries}")
    doc = json.load(open(summaries))
    funcs = {f["name"]: f for u in doc["units"] for f in u["summary"]["functions"]}
    check("summaries: what each stage does", funcs.get("scale_async", {}).get("leftOn") == "param"
          and funcs["scale_async"]["leftParam"] == 2 and funcs.get("finish", {}).get("drainsParams") == [0]
          and funcs.get("release", {}).get("drainsAll") is True and "waits" in funcs.get("fetch", {})
          and "main" not in funcs and funcs.get("log_step", {"leftOn": "none"})["leftOn"] == "none", funcs)

    bare, given = [], []
    for k in (1, 2):
        _, r, _ = lint(f"--shard={k}/2")
        bare += found(r)
        _, r, _ = lint(f"--shard={k}/2", f"--summaries={summaries}")
        given += found(r)
    check("shards without summaries miss the cross-file findings", sorted(bare) == [], sorted(bare))
    check("shards with the summaries find what one run finds", sorted(given) == expected, sorted(given))

    broken = os.path.join(work, "broken.json")
    with open(broken, "w") as fh:
        fh.write('{"version": 1, "units": [{"file": "x.cu", "summary": {"functions": 3}}]}')
    rc, _, err = lint(f"--summaries={broken}")
    check("a damaged summary file: exit 2, and it says which file", rc == 2 and "broken.json" in err, (rc, err))
    rc, _, err = lint(f"--summaries={os.path.join(work, 'missing.json')}")
    check("a missing summary file: exit 2", rc == 2 and "missing.json" in err, (rc, err))

    # A CUDA graph capture in a third file that calls ops.cu's stages: finish() waits on the
    # host in ops.cu, inside the capture (syncwatch-capture-breaking-call at the call, a note
    # in ops.cu); scale_async() only queues work on the captured stream, and finish() after
    # the end of the capture is fine.
    GRAPH = os.path.join(INPUTS, "graph.cu")
    graph_db = os.path.join(work, "graph")
    os.makedirs(graph_db)
    with open(os.path.join(graph_db, "compile_commands.json"), "w") as fh:
        json.dump([{"directory": INPUTS, "file": f,
                    "command": f"clang++ -x cuda --cuda-path=/usr/local/cuda -O2 -c {f} -o {work}/x.o"}
                   for f in (OPS, GRAPH)], fh)
    p = subprocess.run([LINT, "-p", graph_db, "--format=json", "--checks=-*,syncwatch-capture-breaking-call"],
                       capture_output=True, text=True, timeout=600)
    report = json.loads(p.stdout) if p.stdout.strip() else {}
    inside = line_of(GRAPH, "finish(stream);  // expect")
    check("a capture calling another file's wait: reported at the call, inside the capture only",
          found(report) == [("graph.cu", inside, "syncwatch-capture-breaking-call")], (found(report), p.stderr[-400:]))
    notes = [n for f in report.get("findings", []) for n in f.get("notes", [])]
    check("its note points at the wait in ops.cu",
          any(os.path.basename(n["location"]["file"]) == "ops.cu" and n["location"]["line"] == line_of(OPS, "void finish(")
              for n in notes), notes)
    p = subprocess.run([LINT, "-p", graph_db, "--format=json", "--no-cross-unit",
                        "--checks=-*,syncwatch-capture-breaking-call"], capture_output=True, text=True, timeout=600)
    alone = found(json.loads(p.stdout)) if p.stdout.strip() else None
    check("without summaries the call is opaque: nothing", alone == [], alone)

    # A file with two compile commands (two targets building ops.cu) sums its parses'
    # summaries and is never judged at a parse's end: -j1 takes train.cu second, with
    # ops.cu's summary known, and the report is the one without judging early.
    two_db = os.path.join(work, "two")
    os.makedirs(two_db)
    with open(os.path.join(two_db, "compile_commands.json"), "w") as fh:
        json.dump([{"directory": INPUTS, "file": f,
                    "command": f"clang++ -x cuda --cuda-path=/usr/local/cuda -O2 {d} -c {f} -o {work}/x.o"}
                   for f, d in ((OPS, "-DTARGET_A"), (OPS, "-DTARGET_B"), (TRAIN, ""))], fh)
    runs = {}
    for name, extra in (("early", []), ("alone", ["--no-early-summaries", "--cross-unit-memory=0"])):
        st = os.path.join(work, f"two-{name}.json")
        p = subprocess.run([LINT, "-p", two_db, "-j1", "--format=json", f"--run-stats-json={st}", *extra, OPS, TRAIN],
                           capture_output=True, text=True, timeout=600)
        runs[name] = (p.stdout, json.load(open(st)) if os.path.exists(st) else {}, p.stderr)
    early, alone_two = runs["early"], runs["alone"]
    check("two commands for ops.cu: the same findings, and the same report as judging alone",
          early[0] == alone_two[0] and found(json.loads(early[0] or "{}")) == expected,
          (found(json.loads(early[0] or "{}")), early[2][-400:]))
    check("two commands for ops.cu: only train.cu is judged at its parse's end",
          early[1].get("judgedWithKnownSummaries") == 1, early[1])
finally:
    shutil.rmtree(work, ignore_errors=True)
finish()
