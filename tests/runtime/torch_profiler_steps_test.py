#!/usr/bin/env python3
"""torch.profiler's steps as syncwatch's steps (interposer/sites/TorchProfilerSteps.h), without
torch: a stand-in package laid out as torch's is (site-packages/torch/profiler/profiler.py with a
`profile` class that has start/step/stop, re-exported by torch/profiler/__init__.py), used by a
training loop as the torch.profiler documentation shows it, under the preloaded probe. The real
torch is exercised on the GPU machine (tests/gpu/profiler_steps.py).
  torch_profiler_steps_test.py PROBE.so"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # tests/ (harness.py)
from harness import check, finish  # noqa: E402

probe = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp()
site = os.path.join(tmp, "site-packages")
files = {
    os.path.join(site, "torch", "__init__.py"): "from torch import profiler\n",
    # torch/profiler/__init__.py re-exports the class, then goes on importing.
    os.path.join(site, "torch", "profiler", "__init__.py"): """
        from .profiler import profile, schedule
        import colorsys  # (an import after the class exists: where a too-early wrap is retried)
        """,
    # The loop before the class gives the interpreter its between-bytecode checks while the
    # module runs: a pending call run there finds no `profile` yet.
    os.path.join(site, "torch", "profiler", "profiler.py"): '''
        for _warm in range(20000):
            pass


        def schedule(*, wait, warmup, active):
            return lambda step: step % (wait + warmup + active) >= wait + warmup


        class profile:
            """Profiler context manager (stand-in)."""

            def __init__(self, schedule=None):
                self.schedule = schedule or (lambda step: True)
                self.step_num = 0
                self.log = []

            def __enter__(self):
                self.start()
                return self

            def __exit__(self, *exc):
                self.stop()

            def start(self):
                self.log.append("start")

            def step(self):
                """Signals the profiler that the next profiling step has started."""
                self.step_num += 1
                self.log.append("record" if self.schedule(self.step_num) else "skip")
                return self.step_num

            def stop(self):
                self.log.append("stop")
        ''',
}
for path, text in files.items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))

train = os.path.join(tmp, "train.py")
with open(train, "w") as f:
    f.write(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {site!r})
        import torch
        from torch.profiler import profile, schedule


        def train_step(i):
            return i * 2


        returned = []
        with profile(schedule=schedule(wait=1, warmup=1, active=2)) as prof:  # PROFILE-LINE
            for i in range(5):
                train_step(i)
                returned.append(prof.step())  # STEP-LINE
        print("log:", prof.log, "returned:", returned)
        print("step:", profile.step.__name__, profile.step.__doc__)
        print("wrapped:", hasattr(profile.step, "__wrapped__"))
        """))

reader = os.path.join(tmp, "heard.py")
with open(reader, "w") as f:
    f.write(textwrap.dedent(f"""\
        import ctypes, runpy, sys
        lib = ctypes.CDLL({probe!r})
        sys.argv = [{train!r}]
        runpy.run_path({train!r}, run_name="__main__")
        buf = ctypes.create_string_buffer(16384)
        followed = lib.syncwatch_probe_marks(buf, len(buf))
        print("followed:", followed)
        for line in buf.value.decode().splitlines():
            print("heard:", line)
        """))

env = dict(os.environ, LD_PRELOAD=probe, SYNCWATCH_PROBE_PRELOAD="1", SYNCWATCH_PROBE_PROFILER="1")
plain = subprocess.run([sys.executable, train], capture_output=True, text=True, timeout=60)
pre = subprocess.run([sys.executable, reader], capture_output=True, text=True, env=env, timeout=60)
heard = [l[len("heard: "):] for l in pre.stdout.splitlines() if l.startswith("heard: ")]
lines = open(train).read().splitlines()
profile_line = next(i + 1 for i, l in enumerate(lines) if "PROFILE-LINE" in l)
step_line = next(i + 1 for i, l in enumerate(lines) if "STEP-LINE" in l)


def program_output(out):
    return [l for l in out.splitlines() if l.startswith(("log:", "step:"))]


check("the profiler works as without syncwatch: the same log, the same return values, name and doc",
      plain.returncode == 0 and pre.returncode == 0 and program_output(pre.stdout) == program_output(plain.stdout)
      and len(program_output(plain.stdout)) == 2 and pre.stderr == plain.stderr,
      f"rc {plain.returncode}/{pre.returncode}\n{plain.stdout}{plain.stderr}---\n{pre.stdout}{pre.stderr}")
check("the methods are wrapped under the preload (retried after the module finished), not without",
      "wrapped: True" in pre.stdout and "wrapped: False" in plain.stdout and "followed: 1" in pre.stdout,
      pre.stdout + plain.stdout)
kinds = [h.split(" @ ")[0] for h in heard]
check("start opens a step, each prof.step() ends one and opens the next, stop ends the last",
      kinds == ["next"] * 6 + ["end"], heard)
check("start and stop are told at the `with` line, each step at the prof.step() line",
      len(heard) == 7 and f"train.py:{profile_line}:" in heard[0].split(" @ ")[1].split(";")[0]
      and all(f"train.py:{step_line}:" in h.split(" @ ")[1].split(";")[0] for h in heard[1:6])
      and f"train.py:{profile_line}:" in heard[6].split(" @ ")[1].split(";")[0], heard)

# Without SYNCWATCH_STEP asking for the profiler's steps (here: the probe not told to), nothing
# is wrapped.
unasked = subprocess.run([sys.executable, train], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, LD_PRELOAD=probe, SYNCWATCH_PROBE_PRELOAD="1"))
check("nothing is wrapped unless the profiler's steps are asked for",
      unasked.returncode == 0 and "wrapped: False" in unasked.stdout, unasked.stdout + unasked.stderr)
shutil.rmtree(tmp, ignore_errors=True)
finish()
