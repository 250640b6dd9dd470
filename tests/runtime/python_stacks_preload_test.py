#!/usr/bin/env python3
"""Python call sites when syncwatch is preloaded, as users run it: the very first call from
Python into C already has its Python frames (a training script's first .cuda() copy was once
reported at '<unknown call site>', later at 'python3.12:0 PyObject_Vectorcall+0x34'), a CUDA
library loaded later is noticed at the next Python->C call (a watch hook that is there only
until CUDA is), and syncwatch started no thread of its own to get there.
  python_stacks_preload_test.py PROBE.so"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

probe = os.path.abspath(sys.argv[1])
# A library named like the CUDA runtime (a copy of libm: loads, does nothing), loaded the
# way `import torch` loads it.
tmp = tempfile.mkdtemp()
fake_cudart = os.path.join(tmp, "libcudart.so.99")
libm = next(p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6", "/lib64/libm.so.6")
            if os.path.exists(p))
shutil.copy(libm, fake_cudart)
script = textwrap.dedent(f"""
    import ctypes, functools
    lib = ctypes.CDLL({probe!r})
    buf = ctypes.create_string_buffer(4096)
    functools.reduce(lambda a, b: lib.syncwatch_probe(buf, len(buf)), [0, 1])  # FIRST-CALL
    print("first:", buf.value.decode())
    print("cuda before:", lib.syncwatch_cuda_started())
    ctypes.CDLL({fake_cudart!r})  # "import my_cuda_ext": the next Python->C call may use CUDA
    functools.reduce(lambda a, b: lib.syncwatch_probe(buf, len(buf)), [0, 1])  # AFTER-CUDA
    print("cuda after:", lib.syncwatch_cuda_started())
    print("after:", buf.value.decode())
    threads = [l.split()[1] for l in open("/proc/self/status") if l.startswith("Threads:")][0]
    print("threads:", threads)
""")
env = dict(os.environ, LD_PRELOAD=probe, SYNCWATCH_PROBE_PRELOAD="1")
with tempfile.NamedTemporaryFile("w", suffix="_train.py", delete=False) as f:
    f.write(script)
r = subprocess.run([sys.executable, f.name], capture_output=True, text=True, env=env, timeout=60)
os.unlink(f.name)
out = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
first = out.get("first", "")
# (ctypes releases the GIL and is no c_call itself: functools.reduce is the C function that
# calls it, as a PyTorch binding would be)
check("the first Python->C call has its Python frame", r.returncode == 0 and ":5:" in first,
      f"{first!r} {r.stderr.strip()}")
# CUDA appears: the watch says so at the next Python->C call, and frames keep coming.
check("CUDA loaded later is noticed, frames still there",
      out.get("cuda before") == "0" and out.get("cuda after") == "1" and ":9:" in out.get("after", ""),
      f"before {out.get('cuda before')}, after {out.get('cuda after')}, {out.get('after')!r}")
shutil.rmtree(tmp, ignore_errors=True)
check("no thread of syncwatch's own", out.get("threads") == "1", f"{out.get('threads')} thread(s)")
finish()
