#!/usr/bin/env python3
"""Python call sites inside a real CPython (no GPU needed): a C function called from Python,
as PyTorch's bindings are, must see the user's Python frames - innermost first, frames of
site-packages collapsed - once the hook is installed (through Py_AddPendingCall).
Usage: python_stacks_test.py <libpython_stacks_probe.so>"""
import ctypes, functools, os, sys, tempfile, threading

lib = ctypes.CDLL(sys.argv[1])
lib.syncwatch_probe.argtypes = [ctypes.c_char_p, ctypes.c_int]
buf = ctypes.create_string_buffer(4096)
failures = 0


def probe():
    """Calls the probe from inside a builtin C function (functools.reduce), like a CUDA
    call made inside torch's C++ binding for tensor.to()."""
    out = []
    functools.reduce(lambda a, b: out.append(lib.syncwatch_probe(buf, len(buf))), [0, 1])
    return [f.split(":") for f in buf.value.decode().split(";") if f]


def check(name, ok, detail=""):
    global failures
    print(("ok  " if ok else "FAIL") + f" {name} {detail}")
    failures += not ok


here = os.path.abspath(__file__)
first = probe()  # schedules the hook; the interpreter installs it at its next check
check("nothing before the hook is installed", first == [], str(first))
for _ in range(1000):  # give the eval loop a chance to run the pending call
    pass


def train_step():
    return probe()  # LINE-A


frames = train_step()  # LINE-B
lines = open(here).read().splitlines()
line_a = next(i for i, l in enumerate(lines, 1) if l.endswith("# LINE-A"))
line_b = next(i for i, l in enumerate(lines, 1) if l.endswith("# LINE-B"))
# Innermost user frame first: probe()'s reduce call, then train_step, then the module.
check("innermost frame is the C call's caller", frames and frames[0][0] == here and frames[0][2] == "probe", str(frames))
check("outer frames follow with their lines",
      len(frames) == 3 and frames[1][1:] == [str(line_a), "train_step"] and frames[2][1] == str(line_b), str(frames))

# Frames of installed packages are collapsed: a fake site-packages module between.
with tempfile.TemporaryDirectory() as d:
    pkg = os.path.join(d, "site-packages", "fakelib")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("import functools\n"
                "def to(lib, buf):\n"
                "    functools.reduce(lambda a, b: lib.syncwatch_probe(buf, len(buf)), [0, 1])\n"
                "    return buf.value.decode()\n")
    sys.path.insert(0, os.path.join(d, "site-packages"))
    import fakelib
    text = fakelib.to(lib, buf)  # LINE-C
    got = [f.split(":") for f in text.split(";") if f]
    line_c = next(i for i, l in enumerate(lines, 1) if l.endswith("# LINE-C"))
    check("site-packages frames collapsed to the user's line", got and got[0][0] == here and got[0][1] == str(line_c), str(got))

# Outside any Python->C call (ctypes' own call is not a builtin function): no frames, no crash.
n = lib.syncwatch_probe(buf, len(buf))
check("a C call with no Python caller on record gives no frames", n == 0, str(n))

# Other threads: with PyEval_SetProfileAllThreads (3.12+) they are covered too.
result = {}
t = threading.Thread(target=lambda: result.update(frames=probe()))
t.start(); t.join()
if sys.version_info >= (3, 12):
    check("a second thread's calls carry its frames", bool(result["frames"]), str(result))
else:
    check("a second thread on Python < 3.12 gives no frames and no crash", result["frames"] == [], str(result))
# A profiler the user installed first (cProfile, sys.setprofile) is left alone: no frames,
# one line on stderr, no crash.
import subprocess
child = subprocess.run([sys.executable, "-c", f"""
import ctypes, functools, sys
sys.setprofile(lambda *a: None)
lib = ctypes.CDLL({sys.argv[1]!r})
buf = ctypes.create_string_buffer(4096)
functools.reduce(lambda a, b: lib.syncwatch_probe(buf, 4096), [0, 1])
for _ in range(1000): pass
n = []
functools.reduce(lambda a, b: n.append(lib.syncwatch_probe(buf, 4096)), [0, 1])
print("frames", n[0])
"""], capture_output=True, text=True)
check("an installed profiler is kept; no frames; said once",
      child.returncode == 0 and "frames 0" in child.stdout and "profiler is already installed" in child.stderr,
      (child.stdout + child.stderr).strip())
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
