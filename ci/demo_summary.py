#!/usr/bin/env python3
"""The end of ci/demo.sh: what the findings above add up to, read from the same run's JSON
report: findings per rule and severity, the files with most findings, and one finding taken
apart.  demo_summary.py REPORT.json SOURCE_ROOT"""
import collections
import json
import os
import sys

report = json.load(open(sys.argv[1]))
root = sys.argv[2]
findings = report["findings"]


def rel(path):
    return os.path.relpath(path, root) if path.startswith(root) else path


by_rule = collections.defaultdict(collections.Counter)
by_file = collections.Counter()
for f in findings:
    by_rule[f["rule"]][f["severity"]] += 1
    by_file[rel(f["location"]["file"])] += 1
sev = collections.Counter(f["severity"] for f in findings)

print(f"== summary: {len(findings)} findings ({sev['warning']} warnings, {sev['note']} notes) "
      f"in {len(by_file)} of {report['filesAnalyzed']} files; {len(report['errors'])} tool errors ==")
width = max((len(r) for r in by_rule), default=4)
print(f"  {'rule':<{width}}  warnings  notes")
for rule in sorted(by_rule, key=lambda r: -sum(by_rule[r].values())):
    print(f"  {rule:<{width}}  {by_rule[rule]['warning']:>8}  {by_rule[rule]['note']:>5}")
print("  files with most findings:")
for path, n in by_file.most_common(5):
    print(f"    {n:>3}  {path}")

example = next((f for f in findings if f["severity"] == "warning" and f.get("notes")), None)
if example:
    loc = example["location"]
    print("== how to read one finding ==")
    print(f"  {rel(loc['file'])}:{loc['line']}:{loc['column']}: {example['severity']}: "
          f"{example['message']} [{example['rule']}]")
    print(f"  - {rel(loc['file'])}:{loc['line']}:{loc['column']}  the call that synchronizes "
          "(editors jump there; the ^~~ line above marks its range)")
    print(f"  - {example['severity']}  warnings fail CI (exit 1); notes are informational "
          "(--fail-on=note to fail on them too)")
    print("  - the message says what synchronizes, with what, and what to do instead")
    print(f"  - [{example['rule']}]  the rule: docs/rules/{example['rule']}.md says why it "
          "blocks and what does not; NOLINT(" + example["rule"] + ") silences one line")
    for n in example["notes"][:2]:
        nl = n["location"]
        print(f"  - note at {rel(nl['file'])}:{nl['line']}: {n['message']}"
              + ("  (a fix-it: --fix applies it)" if n.get("suggestedFixes") else ""))
