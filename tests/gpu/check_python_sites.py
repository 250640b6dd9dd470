#!/usr/bin/env python3
"""Checks that libsyncwatch's report names Python lines. Each check:
   REPORT.json SCRIPT.py MARKER RULE [TEXT]
a finding of RULE located at the line of SCRIPT.py that ends with '# MARKER' (and whose
message contains TEXT). Usage: check_python_sites.py REPORT SCRIPT MARKER RULE [TEXT]"""
import json, os, sys

report, script, marker, rule = sys.argv[1:5]
text = sys.argv[5] if len(sys.argv) > 5 else ""
line = next(i for i, l in enumerate(open(script), 1) if l.rstrip().endswith("# " + marker))
findings = json.load(open(report))["findings"]
hits = [f for f in findings if os.path.basename(f["location"]["file"]) == os.path.basename(script)
        and f["location"]["line"] == line and (rule == "any" or f["rule"] == rule) and text in f["message"]]
ok = bool(hits)
print(("PASS" if ok else "FAIL") + f"  {os.path.basename(script)}:{line} ({marker}) {rule} {text!r}: " +
      (hits[0]["message"][:220] + " | " + str(dict(hits[0]["evidence"]).get("nativeSite", "")) if hits else
       "not found; findings at: " + ", ".join(f'{os.path.basename(f["location"]["file"])}:{f["location"]["line"]} {f["rule"]}' for f in findings)))
sys.exit(0 if ok else 1)
