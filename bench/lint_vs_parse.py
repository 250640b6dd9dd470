#!/usr/bin/env python3
"""A whole syncwatch-lint run against clang's own parse of the same compilation database
(issue 41, item 5: the lint at most 0.8x of `clang++ -fsyntax-only`).

Interleaved for ROUNDS rounds, wall time of:
  lint   syncwatch-lint -p DB -jJOBS --format=json --output=FILE   (as CI runs it: the
         cross-unit phase included)
  parse  clang++-22 -fsyntax-only on every unit, JOBS at a time, each with the command
         syncwatch-lint parses it with (`--print-commands`: nvcc's flags translated, host
         side) - what any clang-based tool must do before its first check
and prints each round's times and ratio and the medians. bench/run_bench.sh is the same
comparison over generated files; this one takes a real project's database.

  bench/lint_vs_parse.py DB_DIR [ROUNDS=1] [JOBS=2] [--lint PATH] [--clang clang++-22]

Exit 2 when the lint fails or reports tool errors; units clang itself rejects are counted
and named (they cost the parse its time all the same)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from robustness import baseline, final_commands  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("db")
ap.add_argument("rounds", nargs="?", type=int, default=1)
ap.add_argument("jobs", nargs="?", type=int, default=2)
ap.add_argument("--lint", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "analyzer",
                                               "syncwatch-lint"))
ap.add_argument("--clang", default="clang++-22")
a = ap.parse_args()

commands = final_commands(a.lint, a.db)  # (file, directory, argv), as robustness.py's baseline
if not commands:
    sys.exit("lint_vs_parse: no compile command in " + a.db)


def lint_all(out):
    t0 = time.perf_counter()
    p = subprocess.run([a.lint, "-p", a.db, f"-j{a.jobs}", "--format=json", f"--output={out}", "--run-stats"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - t0
    stats = [l for l in p.stderr.splitlines() if "stats:" in l]
    if p.returncode not in (0, 1) or " 0 tool error(s)" not in (stats[-1] if stats else ""):
        print(p.stderr[-2000:], file=sys.stderr)
        sys.exit(2)
    return took, stats[-1]


work = tempfile.mkdtemp(prefix="syncwatch-lint-vs-parse-")
lint_t, parse_t = [], []
print(f"{len(commands)} compile commands from {a.db}, -j {a.jobs}, {a.rounds} round(s)")
for r in range(a.rounds):
    l, stats = lint_all(os.path.join(work, "report.json"))
    p, codes = baseline(a.clang, commands, a.jobs)
    rejected = sum(1 for rc in codes.values() if rc != 0)
    lint_t.append(l)
    parse_t.append(p)
    print(f"  round {r + 1}: syncwatch-lint {l:.1f} s, {a.clang} -fsyntax-only {p:.1f} s, ratio {l / p:.3f}"
          f"{f' ({rejected} units rejected by clang)' if rejected else ''}")
    print(f"    {stats.split('stats: ', 1)[-1][:160]}")
lm, pm = statistics.median(lint_t), statistics.median(parse_t)
print(f"median: syncwatch-lint {lm:.1f} s, {a.clang} -fsyntax-only {pm:.1f} s")
print(f"ratio syncwatch-lint / clang++ -fsyntax-only: {lm / pm:.3f} (target <= 0.8)")
