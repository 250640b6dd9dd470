#!/usr/bin/env python3
"""Replays event streams recorded on the GPU machine (test_inputs/runtime/*.swrec) through
`syncwatch replay` and checks the findings each recording's .expect file lists:
    <rule> <file basename>:<line>      a finding that must be there
    ! <file basename>:<line>           a line that must have no finding
Usage: replay_test.py <syncwatch> <test_inputs/runtime>"""
import json, os, subprocess, sys

tool, folder = sys.argv[1], sys.argv[2]
recs = sorted(f for f in os.listdir(folder) if f.endswith(".swrec"))
if not recs:
    print("no recordings in", folder)
    sys.exit(1)
failed = passed = 0
for rec in recs:
    p = subprocess.run([tool, "replay", "--format", "json", os.path.join(folder, rec)],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"FAIL {rec}: replay exit {p.returncode}: {p.stderr}")
        failed += 1
        continue
    found = {(f["rule"], os.path.basename(f["location"]["file"]), f["location"]["line"])
             for f in json.loads(p.stdout)["findings"]}
    at = {(b, l) for _, b, l in found}
    with open(os.path.join(folder, rec[:-6] + ".expect")) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if not line:
                continue
            if line.startswith("!rule"):
                rule = line.split()[1]
                ok = all(r != rule for r, _, _ in found)
            elif line.startswith("!"):
                base, ln = line[1:].strip().rsplit(":", 1)
                ok = (base, int(ln)) not in at
            else:
                rule, loc = line.split(None, 1)
                base, ln = loc.strip().rsplit(":", 1)
                ok = (rule, base, int(ln)) in found
            print(("ok  " if ok else "FAIL") + f" {rec}: {line}")
            passed += ok
            failed += not ok
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
