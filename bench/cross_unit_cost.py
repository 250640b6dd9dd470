#!/usr/bin/env python3
"""The cross-unit phase's cost (issue 41, item 5: at most 1.1x a single pass).

Over one compilation database, interleaved for ROUNDS rounds, wall time of:
  default syncwatch-lint -p DB -jJ   (each unit judged again at its parse's end with the
                                      summaries known then, likely callees first; the second
                                      phase judges kept parses again, or parses again)
  nokeep  ... --cross-unit-memory=0   (the same, but no parse kept: the second phase parses)
  kept    ... --no-early-summaries    (only the second phase, judging kept parses again)
  reparse ... --no-early-summaries --cross-unit-memory=0   (it parses those units again)
  single  ... --no-cross-unit         (one pass)
and prints the medians, each mode's ratio to single per round and their medians, the units
judged early, analyzed again and kept, the peak RSS, and whether the cross-unit modes gave
byte-identical reports (they must).

  bench/cross_unit_cost.py DB_DIR [ROUNDS=3] [JOBS=1] [--modes default,kept,reparse,single]
                           [--lint build/analyzer/syncwatch-lint]

DB_DIR: a folder with compile_commands.json, e.g. the one tests/analyzer builds for
test_inputs/cmake_project (build/tests/analyzer/cmake_project_lint/build), where 3 of 8 units
need a second look. Exit 2 when a run fails or the reports differ."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("db")
ap.add_argument("rounds", nargs="?", type=int, default=3)
ap.add_argument("jobs", nargs="?", type=int, default=1)
ap.add_argument("--modes", default="default,kept,reparse,single")
ap.add_argument("--lint", default=os.path.join(os.path.dirname(__file__), "..", "build", "analyzer", "syncwatch-lint"))
a = ap.parse_args()

ALL = {"default": [], "nokeep": ["--cross-unit-memory=0"], "kept": ["--no-early-summaries"],
       "reparse": ["--no-early-summaries", "--cross-unit-memory=0"], "single": ["--no-cross-unit"]}
MODES = {m: ALL[m] for m in a.modes.split(",")}
if "single" not in MODES:
    sys.exit("cross_unit_cost: --modes must include single (the ratios' base)")
work = tempfile.mkdtemp(prefix="syncwatch-cross-unit-cost-")
times = {m: [] for m in MODES}
stats, reports = {}, {}
for r in range(a.rounds):
    for mode, extra in MODES.items():
        out, st = os.path.join(work, f"{mode}.json"), os.path.join(work, f"{mode}.stats.json")
        t0 = time.monotonic()
        p = subprocess.run([a.lint, "-p", a.db, f"-j{a.jobs}", "--format=json", f"--output={out}",
                            f"--run-stats-json={st}", *extra], capture_output=True, text=True)
        times[mode].append(time.monotonic() - t0)
        if p.returncode not in (0, 1):
            sys.exit(f"cross_unit_cost: {mode} run failed (exit {p.returncode}): {p.stderr[-800:]}")
        stats[mode] = json.load(open(st))
        reports[mode] = open(out).read()
    print(f"round {r + 1}: " + "  ".join(f"{m} {times[m][-1]:.2f} s" for m in MODES)
          + "".join(f"  {m}/single {times[m][-1] / times['single'][-1]:.3f}x" for m in MODES if m != "single"),
          flush=True)

med = {m: statistics.median(v) for m, v in times.items()}
print(f"medians: " + "  ".join(f"{m} {med[m]:.2f} s" for m in MODES))
for m in MODES:
    if m == "single":
        continue
    r = [x / y for x, y in zip(times[m], times["single"])]
    st = stats[m]
    print(f"{m}/single {statistics.median(r):.3f}x (per-round median; spread {min(r):.3f}-{max(r):.3f}); "
          f"units {st['files']}: judged early {st.get('judgedWithKnownSummaries', 0)}, analyzed again "
          f"{st['reanalyzedWithSummaries']}, served by kept parses {st['judgedAgainFromKeptParses']}, "
          f"parses kept {st['parsesKept']}; peak RSS {st['peakRssKiB'] / 1024:.0f} MiB")
print(f"single: peak RSS {stats['single']['peakRssKiB'] / 1024:.0f} MiB")
cross = [m for m in MODES if m != "single"]
same = all(reports[m] == reports[cross[0]] for m in cross)
print(f"cross-unit reports byte-identical ({', '.join(cross)}): {'yes' if same else 'NO'}")
sys.exit(0 if same else 2)
