#!/usr/bin/env python3
"""The cross-unit phase's cost (issue 41, item 5: at most 1.1x a single pass).

Over one compilation database, interleaved for ROUNDS rounds, wall time of:
  kept    syncwatch-lint -p DB -jJ              (the second phase judges kept parses again)
  reparse syncwatch-lint -p DB -jJ --cross-unit-memory=0   (it parses those units again)
  single  syncwatch-lint -p DB -jJ --no-cross-unit         (one pass)
and prints the medians, the ratios kept/single and reparse/single per round and their
medians, the units analyzed again and kept, the peak RSS, and whether kept and reparse gave
byte-identical reports (they must).

  bench/cross_unit_cost.py DB_DIR [ROUNDS=3] [JOBS=1] [--lint build/analyzer/syncwatch-lint]

DB_DIR: a folder with compile_commands.json, e.g. the one tests/analyzer builds for
test_inputs/cmake_project (build/tests/analyzer/cmake_project_lint/build), where 3 of 8 units
need a second look. Exit 2 when a run fails or the reports differ."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("db")
ap.add_argument("rounds", nargs="?", type=int, default=3)
ap.add_argument("jobs", nargs="?", type=int, default=1)
ap.add_argument("--lint", default=os.path.join(os.path.dirname(__file__), "..", "build", "analyzer", "syncwatch-lint"))
a = ap.parse_args()

MODES = {"kept": [], "reparse": ["--cross-unit-memory=0"], "single": ["--no-cross-unit"]}
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
          + f"  kept/single {times['kept'][-1] / times['single'][-1]:.3f}x"
          + f"  reparse/single {times['reparse'][-1] / times['single'][-1]:.3f}x", flush=True)

med = {m: statistics.median(v) for m, v in times.items()}
paired = lambda m: statistics.median(x / y for x, y in zip(times[m], times["single"]))
print(f"medians: " + "  ".join(f"{m} {med[m]:.2f} s" for m in MODES))
print(f"kept/single {paired('kept'):.3f}x (per-round median; spread "
      f"{min(x / y for x, y in zip(times['kept'], times['single'])):.3f}-"
      f"{max(x / y for x, y in zip(times['kept'], times['single'])):.3f})  "
      f"reparse/single {paired('reparse'):.3f}x")
k = stats["kept"]
print(f"units: {k['files']}, analyzed again {k['reanalyzedWithSummaries']}, served by kept parses "
      f"{k['judgedAgainFromKeptParses']}, parses kept {k['parsesKept']}; peak RSS kept "
      f"{k['peakRssKiB'] / 1024:.0f} MiB, reparse {stats['reparse']['peakRssKiB'] / 1024:.0f} MiB, "
      f"single {stats['single']['peakRssKiB'] / 1024:.0f} MiB")
same = reports["kept"] == reports["reparse"]
print(f"kept and reparse reports byte-identical: {'yes' if same else 'NO'}")
sys.exit(0 if same else 2)
