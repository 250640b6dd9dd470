#!/usr/bin/env python3
"""Precision per rule over the hand labels, as labelled and as a newer run still reports them.

    bench/field/precision.py LABELS.tsv[=REPORT.json:SOURCE_ROOT] ...

Each argument is a labels file (labels/<base>.tsv); with `=REPORT.json:SOURCE_ROOT` the
labelled findings that REPORT (a later syncwatch-lint --format=json run over the same code
base, checked out at SOURCE_ROOT) no longer holds are dropped from the "now" column. Prints a
Markdown table: TP / (TP + FP) per rule, "doubtful" rows left out of both."""
import collections, json, os, sys


def reported(report, root):
    root = root.rstrip("/") + "/"
    # (normpath: reports before 2026-12-07 named a header as its -I spelled it, src/../include/x.h)
    return {(os.path.normpath(f["location"]["file"]).replace(root, ""), f["location"]["line"], f["rule"])
            for f in json.load(open(report))["findings"]}


labelled, now = collections.defaultdict(collections.Counter), collections.defaultdict(collections.Counter)
for arg in sys.argv[1:]:
    labels, _, rerun = arg.partition("=")
    still = reported(*rerun.rsplit(":", 1)) if rerun else None
    for line in open(labels):
        if line.startswith("#") or not line.strip():
            continue
        loc, rule, _severity, verdict = line.rstrip("\n").split("\t")[:4]
        path, lineno = loc.rsplit(":", 1)
        name = rule.replace("syncwatch-", "")
        labelled[name][verdict] += 1
        if still is None or (path, int(lineno), rule) in still:
            now[name][verdict] += 1


def precision(c):
    d = c["TP"] + c["FP"]
    return f"{c['TP']}/{d} ({100 * c['TP'] / d:.0f}%)" if d else "-"


print("| rule | as labelled | still reported |")
print("|---|---|---|")
for rule in sorted(labelled):
    print(f"| {rule} | {precision(labelled[rule])} | {precision(now[rule])} |")
total = lambda per: sum(per.values(), collections.Counter())  # noqa: E731
print(f"| all | {precision(total(labelled))} | {precision(total(now))} |")
