#!/usr/bin/env python3
"""A call site for every finding: a program built with line tables is named by file:line,
a release build without them (nvcc -O3, no -g or -lineinfo) by module, function and offset
from its ELF symbol table.
  call_sites_test.py WITH_LINES_BINARY RELEASE_BINARY SOURCE"""
import os
import re
import subprocess
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

with_lines, release, source = sys.argv[1:4]
line = next(i for i, l in enumerate(open(source), 1) if "CALL-SITE" in l)


def site(binary):
    out = subprocess.run([binary], capture_output=True, text=True, check=True).stdout
    return dict(l.split("=", 1) for l in out.splitlines())


s = site(with_lines)
check(f"with line tables: named by file:line (expected line {line})",
      s["file"].endswith("call_sites_probe.cpp") and int(s["line"]) == line and s["function"].startswith("copyBatch"),
      f"{s['file']}:{s['line']} ({s['function']})")

s = site(release)
check("release build: named by module, function and offset",
      os.path.realpath(s["file"]) == os.path.realpath(release) and s["line"] == "0"
      and re.fullmatch(r"copyBatch\+0x[0-9a-f]+", s["function"]) is not None,
      f"{s['file']} {s['function']} (line {s['line']})")
finish()
