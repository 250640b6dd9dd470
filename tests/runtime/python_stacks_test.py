#!/usr/bin/env python3
"""Python call sites inside a real CPython (no GPU needed): a C function called from Python,
as PyTorch's bindings are (ctypes releases the GIL, as they do), must see the user's Python
frames - innermost first, frames of site-packages collapsed - read from the thread's own
state, with no hook: from the very first call, on every thread, whatever profiler is on.
Usage: python_stacks_test.py <libpython_stacks_probe.so>"""
import ctypes, functools, os, sys, tempfile, threading

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

lib = ctypes.CDLL(sys.argv[1])
lib.syncwatch_probe.argtypes = [ctypes.c_char_p, ctypes.c_int]
buf = ctypes.create_string_buffer(4096)


def probe():
    """Calls the probe from inside a builtin C function (functools.reduce), like a CUDA
    call made inside torch's C++ binding for tensor.to()."""
    out = []
    functools.reduce(lambda a, b: out.append(lib.syncwatch_probe(buf, len(buf))), [0, 1])
    return [f.split(":") for f in buf.value.decode().split(";") if f]


here = os.path.realpath(__file__)
lines = open(here).read().splitlines()


def line_of(tag):
    return str(next(i for i, l in enumerate(lines, 1) if l.endswith(tag)))


first = probe()
check("the very first call has its frames (no hook to wait for)", first and os.path.realpath(first[0][0]) == here, str(first))


def train_step():
    return probe()  # LINE-A


frames = train_step()  # LINE-B
# Innermost user frame first: the lambda that made the C call, probe(), then train_step.
check("innermost frame is the C call's caller",
      frames and os.path.realpath(frames[0][0]) == here and frames[0][2] in ("probe.<locals>.<lambda>", "<lambda>"), str(frames))
check("outer frames follow with their lines (3 kept)",
      len(frames) == 3 and frames[1][2] == "probe" and frames[2][1:] == [line_of("# LINE-A"), "train_step"], str(frames))

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
    check("site-packages frames collapsed to the user's line", got and os.path.realpath(got[0][0]) == here and got[0][1] == str(line_c), str(got))

# A direct ctypes call from module level: the module's line.
n = lib.syncwatch_probe(buf, len(buf))  # LINE-D
got = [f.split(":") for f in buf.value.decode().split(";") if f]
check("a direct call from module level names that line", n == 1 and got[0][1] == line_of("# LINE-D"), str(got))

# Other threads: every thread's own frames, on every supported version.
result = {}
t = threading.Thread(target=lambda: result.update(frames=probe()))
t.start(); t.join()
check("a second thread's calls carry its frames", bool(result["frames"]) and result["frames"][-1][2] == "<lambda>",
      str(result))
# A profiler the user installed (cProfile, sys.setprofile) changes nothing: syncwatch
# installs none of its own, so there is nothing to say.
import subprocess
script = os.path.join(tempfile.mkdtemp(), "profiled.py")  # a file: "<string>" is no user's file
open(script, "w").write(f"""
import ctypes, functools, sys
sys.setprofile(lambda *a: None)
lib = ctypes.CDLL({sys.argv[1]!r})
buf = ctypes.create_string_buffer(4096)
n = []
functools.reduce(lambda a, b: n.append(lib.syncwatch_probe(buf, 4096)), [0, 1])
print("frames", n[0])
""")
child = subprocess.run([sys.executable, script], capture_output=True, text=True)
check("an installed profiler changes nothing; frames; nothing said",
      child.returncode == 0 and "frames 2" in child.stdout and child.stderr == "",
      (child.stdout + child.stderr).strip())
finish()
