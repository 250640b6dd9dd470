#!/usr/bin/env python3
"""Checks libsyncwatch's report for runtime_probe.cu against the truth table: every line
marked `// EXPECT <rule words>` has a finding of that rule at that line, every line marked
`// row:` (measured not to block) has none. Usage: check_probe.py runtime_probe.cu report.json"""
import json, re, sys

src, report = sys.argv[1], sys.argv[2]
rules = {"implicit-sync": "syncwatch-implicit-sync", "pageable": "syncwatch-pageable-async-copy",
         "default-stream": "syncwatch-default-stream", "sync-in-loop": "syncwatch-sync-in-loop"}
expect, silent = [], []
for n, line in enumerate(open(src), 1):
    m = re.search(r"// EXPECT (\S+)", line)
    if m:
        expect.append((n, rules[m.group(1)]))
    if "// row:" in line:
        silent.append(n)
found = [(f["location"]["file"].split("/")[-1], f["location"]["line"], f["rule"], f["message"])
         for f in json.load(open(report))["findings"]]
name = src.split("/")[-1]
ok = True
for n, rule in expect:
    hit = [f for f in found if f[0] == name and f[1] == n and f[2] == rule]
    print(("PASS" if hit else "FAIL") + f"  line {n}: {rule} " + (hit[0][3][:150] if hit else "not reported"))
    ok = ok and bool(hit)
for n in silent:
    hit = [f for f in found if f[0] == name and f[1] == n]
    print(("FAIL" if hit else "PASS") + f"  line {n}: silent row " + (hit[0][3][:150] if hit else "not reported"))
    ok = ok and not hit
others = [f for f in found if f[0] != name]
for f in others:
    print(f"note  finding outside the probe's lines: {f}")
print(f"{sum(1 for _ in expect) + len(silent)} rows checked: " + ("all PASS" if ok else "FAILURES"))
sys.exit(0 if ok else 1)
