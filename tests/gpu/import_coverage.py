#!/usr/bin/env python3
"""coverage_programs.sh's gcov files as the join's test data: for each program,
test_inputs/runtime/public/<program>/coverage.txt holds the execution count of every line
gcov calls executable in the program's own .cu file ("LINE COUNT"), for
tests/join/coverage_join_test.py.

  tests/gpu/import_coverage.py COV_DIR [PROGRAM...]   (no PROGRAM: each with a public folder)
"""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
cov, names = sys.argv[1], sys.argv[2:]
public = os.path.join(root, "test_inputs", "runtime", "public")
if not names:
    names = sorted(n[:-5] for n in os.listdir(cov) if n.endswith(".gcov") and os.path.isdir(os.path.join(public, n[:-5])))
for name in names:
    source, counts, seen = None, [], set()
    with open(os.path.join(cov, name + ".gcov")) as fh:
        for line in fh:
            m = re.match(r"^\s*([0-9]+\*?|#####|=====|-):\s*([0-9]+):(.*)$", line.rstrip("\n"))
            if not m:
                continue  # a template instantiation's header or separator
            count, number, text = m.group(1), int(m.group(2)), m.group(3)
            if number == 0:
                if text.startswith("Source:"):
                    source = text[len("Source:"):].strip()
                continue
            # The first line of a number is the total over its template instantiations (the
            # ones after it are each instantiation's); "-" has no code.
            if count == "-" or number in seen:
                continue
            seen.add(number)
            # "#####" and "=====" (only by exceptions) never ran; "12*" ran in part.
            counts.append((number, 0 if count[0] in "#=" else int(count.rstrip("*"))))
    out = os.path.join(public, name, "coverage.txt")
    with open(out + ".tmp", "w") as fh:
        fh.write(f"# gcov of {source} (tests/gpu/coverage_programs.sh: -O0 -g --coverage, one run as public_programs.sh runs it)\n")
        for number, ran in counts:
            fh.write(f"{number} {ran}\n")
    os.replace(out + ".tmp", out)
    print(f"{name}: {len(counts)} executable lines, {sum(1 for _, r in counts if r)} ran")
