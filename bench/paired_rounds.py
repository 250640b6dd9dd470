#!/usr/bin/env python3
"""The summary of a benchmark run in interleaved rounds: its log has one line per process,
`round R MODE VALUE ...` (VALUE a number, or `failed`), as bench/train_loop_rounds.sh and
tests/gpu/issue40_kinds.sh write it. Prints each mode's median over its rounds, then each
ratio A/B asked for, paired per round (a round's A over the same round's B), as the median
with its min and max: between processes of one loop the GPU machines moved by 20-50%, so a
ratio of medians would compare different rounds' noise.
  bench/paired_rounds.py LOG [--unit UNIT] [--ratio A/B ...]   (default: every mode / the first)"""
import argparse
import statistics

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("--unit", default="")
ap.add_argument("--ratio", action="append", default=[])
a = ap.parse_args()

runs = {}
for line in open(a.log):
    _, r, mode, *v = line.split()
    if v and v[0] != "failed":
        runs.setdefault(mode, {})[int(r)] = float(v[0])


def ratio(x, y):
    paired = [runs[x][r] / runs[y][r] for r in runs.get(x, {}) if r in runs.get(y, {})]
    if not paired:
        return "no paired rounds"
    return f"{statistics.median(paired):.3f}x (min {min(paired):.3f}, max {max(paired):.3f}, {len(paired)} rounds)"


unit = f" {a.unit}" if a.unit else ""
for mode, by_round in runs.items():
    print(f"{mode:10s} median {statistics.median(by_round.values()):.3f}{unit} over {len(by_round)} rounds")
first = next(iter(runs), None)
for pair in a.ratio or [f"{m}/{first}" for m in runs if m != first]:
    x, y = pair.split("/")
    print(f"{x} / {y}: {ratio(x, y)}")
