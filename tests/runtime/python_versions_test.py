#!/usr/bin/env python3
"""Python call sites on every CPython this machine has (3.10 to 3.13: Debian's python3 and
pyenv's builds where they are installed). syncwatch reads each version's frames at that
version's own struct offsets, so each is run: the in-process test and the preloaded one.
An unsupported version (3.9) must give no frames and no crash.
Usage: python_versions_test.py PROBE.so"""
import glob, os, subprocess, sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, skip  # noqa: E402

probe = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
candidates = sorted(set(glob.glob("/usr/bin/python3.1[0-3]") + glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-3]*/bin/python3"))
                        + glob.glob("/root/.pyenv/versions/3.1[0-3]*/bin/python3")))
seen = set()
for py in candidates:
    version = subprocess.run([py, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                             capture_output=True, text=True).stdout.strip()
    if not version or (py, version) in seen:
        continue
    seen.add((py, version))
    for test in ("python_stacks_test.py", "python_stacks_preload_test.py"):
        r = subprocess.run([py, os.path.join(here, test), probe], capture_output=True, text=True, timeout=120)
        check(f"{version} ({py}) {test}", r.returncode == 0, "\n" + r.stdout + r.stderr)
# An unsupported version: nothing, and no crash.
for py in sorted(glob.glob("/root/.pyenv/versions/3.9*/bin/python3"))[:1]:
    code = ("import ctypes, functools; lib = ctypes.CDLL(%r); buf = ctypes.create_string_buffer(4096); "
            "n = []; functools.reduce(lambda a, b: n.append(lib.syncwatch_probe(buf, 4096)), [0, 1]); print(n[0])") % probe
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=60)
    check(f"an unsupported CPython ({py}): no frames, no crash", r.returncode == 0 and r.stdout.strip() == "0",
          f"{r.stdout.strip()} {r.stderr.strip()}")
if not seen:
    skip("no CPython 3.10-3.13 found besides the one running the other tests")
print(f"{len(seen)} interpreter(s)")
finish()
