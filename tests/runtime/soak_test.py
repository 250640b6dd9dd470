#!/usr/bin/env python3
"""A long job must not grow (issue 40): 24 simulated hours of a recorded PyTorch step loop
(h200_train_item: one repetition every 30 s, 2.9 M events) through what the library keeps
for a whole run (bench/soak). Its peak RSS after hour 24 is that after hour 1, within
1 MiB; no record came too late for the window; every repetition was judged.

Usage: soak_test.py <syncwatch-soak> <test_inputs/runtime>"""
import os, re, subprocess, sys

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

soak, folder = sys.argv[1], sys.argv[2]
p = subprocess.run([soak, os.path.join(folder, "h200_train_item.swrec"), "24", "30"], capture_output=True, text=True)
last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
m = re.match(r"soak: 24 h simulated, (\d+) events: peak RSS ([\d.]+) MiB after hour 1, ([\d.]+) MiB after hour 24 "
             r"\(([-+][\d.]+) MiB\); window (\d+) events, (\d+) late records, (\d+) calls judged, (\d+) findings", last)
check("the soak ran and printed its figures", p.returncode == 0 and m is not None, p.stderr + last)
if m:
    events, hour1, hour24, growth, window, late, judged, findings = m.groups()
    check(f"24 simulated hours ({events} events): peak RSS {hour1} -> {hour24} MiB, within 1 MiB",
          float(hour24) - float(hour1) <= 1.0, last)
    check("24 hourly figures printed",
          len(re.findall(r"^hour \d+: peak RSS", p.stdout, re.M)) == 24, p.stdout)
    check("no GPU record came after its call was judged; the window stayed at 16,384 events",
          late == "0" and window == "16384", last)
    # 2,880 repetitions of the recording's calls, each judged once.
    check("every repetition's calls judged", int(judged) % 2880 == 0 and int(judged) > 0, last)
    check("the recording's findings found (the same sites every repetition)", int(findings) > 0, last)
finish()
