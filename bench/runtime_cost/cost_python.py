#!/usr/bin/env python3
"""bench/runtime_cost.sh's Python half: syncwatch's own cost per CUDA call made from inside a
Python process, 30 frames deep, the innermost two in an installed package (as torch.nn's
modules are), through a C function that releases the GIL (ctypes, as PyTorch's bindings
do). Prints "python mix N", the Python frame read, and the run's summary.

Usage: cost_python.py BUILD_DIR [ITERATIONS]"""
import ctypes, os, sys, tempfile

build = sys.argv[1]
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
here = os.path.join(build, "bench", "runtime_cost")
driver = ctypes.CDLL(os.path.join(here, "libsyncwatch_costbench.so"))
app = ctypes.CDLL(os.path.join(here, "libswcost_app.so"))


class Parts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("filter", "key", "record", "slow_path", "slow_calls", "calls")]


app.swcost_own_ns.restype = ctypes.c_double
app.swcost_own_ns.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Parts), ctypes.c_void_p]
driver.swcost_python_read_ns.restype = ctypes.c_double
driver.swcost_python_read_ns.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
driver.swcost_ns_per_tick.restype = ctypes.c_double

# An installed package between the user's frames and the C call, like torch/nn/modules.
pkg_root = tempfile.mkdtemp(prefix="syncwatch-cost-")
os.makedirs(os.path.join(pkg_root, "site-packages", "fakenn"))
with open(os.path.join(pkg_root, "site-packages", "fakenn", "__init__.py"), "w") as f:
    f.write("def forward(run):\n    return _impl(run)\n\ndef _impl(run):\n    return run()\n")
sys.path.insert(0, os.path.join(pkg_root, "site-packages"))
import fakenn  # noqa: E402

results = {}


def measure():
    parts = Parts()
    own = app.swcost_own_ns(4, iterations // 7, 5, ctypes.byref(parts), None)
    found = ctypes.c_int(0)
    read = driver.swcost_python_read_ns(1_000_000, ctypes.byref(found))
    results.update(own=own, parts=parts, read=read, found=found.value)


def deep(n):
    if n == 0:
        return fakenn.forward(measure)  # the call site: this line
    return deep(n - 1)


deep(27)  # + module, deep(0)'s caller chain and fakenn's two frames: 30 frames
p, tick = results["parts"], driver.swcost_ns_per_tick()
calls = max(p.calls, 1)
print(f"python mix parts filter={p.filter * tick / calls:.1f} key={p.key * tick / calls:.1f} "
      f"record={p.record * tick / calls:.1f} ns/call (slow path: {p.slow_calls} calls, "
      f"{p.slow_path * tick / max(p.slow_calls, 1):.0f} ns each)")
print(f"python frame read {results['read']:.1f} ns (a user frame found: {'yes' if results['found'] else 'no'})")
buf = ctypes.create_string_buffer(512)
driver.swcost_summary(buf, 512)
print("summary", buf.value.decode())
print(f"python mix {results['own']:.1f}")
