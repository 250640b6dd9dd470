#!/usr/bin/env python3
"""torch.compile(mode="reduce-overhead")'s reasons for running without CUDA graphs, heard at the
user's Python line (interposer/sites/TorchGraphHints.h), without torch: a stand-in package laid
out as torch's is (site-packages/torch/_inductor/cudagraph_utils.py and cudagraph_trees.py, each
with the non-propagating "__perf_hints" logger torch._logging makes), imported by a training
script under the preloaded probe, as libsyncwatch.so is loaded. The real torch is exercised on the
GPU machine (tests/gpu/reduce_overhead_skips.py, its recording in test_inputs/runtime/).
  torch_graph_hints_test.py PROBE.so"""
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
inductor = os.path.join(site, "torch", "_inductor")
os.makedirs(inductor)
files = {
    os.path.join(site, "torch", "__init__.py"): "",
    # torch._logging's setup: the component logger has its own handler and does not propagate;
    # an off-by-default artifact logger (perf_hints) has neither, so a warning from it goes to
    # logging's last-resort handler on stderr.
    os.path.join(inductor, "__init__.py"): """
        import logging
        _log = logging.getLogger("torch._inductor")
        _log.setLevel(logging.WARNING)
        _log.propagate = False
        _log.addHandler(logging.StreamHandler())
        """,
    os.path.join(inductor, "cudagraph_utils.py"): """
        import logging
        perf_hint_log = logging.getLogger(__name__ + ".__perf_hints")
        perf_hint_log.propagate = False

        def log_cudagraph_skip_and_bump_counter(msg):
            perf_hint_log.warning(msg)
        """,
    os.path.join(inductor, "cudagraph_trees.py"): """
        import logging
        perf_hint_log = logging.getLogger(__name__ + ".__perf_hints")
        perf_hint_log.propagate = False

        def maybe_warning_due_to_dynamic_shape(n):
            perf_hint_log.warning("CUDAGraph supports dynamic shapes by recording a new graph for each "
                                  "distinct input size. We have observed %d distinct sizes.", n)
        """,
    # What a compiled function's call goes through before inductor decides (all in torch/).
    os.path.join(inductor, "compile_fx.py"): """
        from torch._inductor import cudagraph_utils, cudagraph_trees

        def compiled_call(reason):
            if reason == "sizes":
                cudagraph_trees.maybe_warning_due_to_dynamic_shape(51)
            else:
                cudagraph_utils.log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to " + reason)
        """,
    # A compiled function's way to its graph: AOT autograd's wrapper (torch/_functorch) calls
    # the Runner.call inductor wrote into its cache folder, outside site-packages.
    os.path.join(site, "torch", "_functorch", "__init__.py"): "",
    os.path.join(site, "torch", "_functorch", "runtime_wrappers.py"): """
        import importlib.util, os
        spec = importlib.util.spec_from_file_location("cgenerated", os.environ["GENERATED_CODE"])
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)

        def call_func_at_runtime(reason):
            return generated.Runner().call(reason)
        """,
    # A torch function outside the compile machinery that ends in the same hint.
    os.path.join(site, "torch", "cuda", "__init__.py"): """
        from torch._inductor.compile_fx import compiled_call

        def graphed(reason):
            compiled_call(reason)
        """,
}
generated = os.path.join(tmp, "torchinductor_tester", "4k", "c4kfgvzsa2mfbnt3.py")
files[generated] = """
    from torch._inductor.compile_fx import compiled_call


    class Runner:
        def call(self, reason):
            compiled_call(reason)
    """
for path, text in files.items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))

train = os.path.join(tmp, "train.py")
with open(train, "w") as f:
    f.write(textwrap.dedent(f"""\
        import ctypes, logging, sys
        sys.path.insert(0, {site!r})
        from torch._inductor.compile_fx import compiled_call
        from torch._functorch.runtime_wrappers import call_func_at_runtime
        import torch.cuda


        def step(x):
            return x + 1


        # dynamo runs a compiled function's code in its frame, "at" its first line
        def bump(reason): return call_func_at_runtime(reason)
        def graphed(reason): return torch.cuda.graphed(reason)  # ONE-LINER


        for i in range(3):  # (the interpreter's next checks run the pending call)
            step(i)
        compiled_call("mutated inputs (1 instances)")  # SKIP-LINE
        compiled_call("sizes")  # HINT-LINE
        bump("mutated inputs (2 instances)")  # COMPILED-LINE
        graphed("mutated inputs (3 instances)")
        lg = logging.getLogger("torch._inductor.cudagraph_utils.__perf_hints")
        print("filters:", len(lg.filters))
        print("done")
        """))
bare = os.path.join(tmp, "bare.py")
with open(bare, "w") as f:
    f.write("import logging, json\nprint(sorted(n for n in logging.root.manager.loggerDict if 'torch' in n))\n")

env = dict(os.environ, LD_PRELOAD=probe, SYNCWATCH_PROBE_PRELOAD="1", GENERATED_CODE=generated)
os.environ["GENERATED_CODE"] = generated
env.pop("TORCH_LOGS", None)
plain = subprocess.run([sys.executable, train], capture_output=True, text=True, timeout=60)
# The probe prints what it heard at exit: a second script reads it through ctypes.
reader = os.path.join(tmp, "heard.py")
with open(reader, "w") as f:
    f.write(textwrap.dedent(f"""\
        import ctypes, runpy, sys
        lib = ctypes.CDLL({probe!r})
        sys.argv = [{train!r}]
        runpy.run_path({train!r}, run_name="__main__")
        buf = ctypes.create_string_buffer(16384)
        followed = lib.syncwatch_probe_hints(buf, len(buf))
        print("followed:", followed)
        for line in buf.value.decode().splitlines():
            print("heard:", line)
        """))
pre = subprocess.run([sys.executable, reader], capture_output=True, text=True, env=env, timeout=60)
heard = [l[len("heard: "):] for l in pre.stdout.splitlines() if l.startswith("heard: ")]
lines = open(train).read().splitlines()
skip_line = next(i + 1 for i, l in enumerate(lines) if "SKIP-LINE" in l)
hint_line = next(i + 1 for i, l in enumerate(lines) if "HINT-LINE" in l)

check("the preloaded script runs as without syncwatch (stderr: torch's last-resort warnings)",
      pre.returncode == 0 and plain.returncode == 0 and pre.stderr == plain.stderr
      and "skipping cudagraphs due to mutated inputs" in plain.stderr,
      f"rc {plain.returncode}/{pre.returncode}\n{plain.stderr}\n---\n{pre.stderr}")
check("the hints are followed under the preload's audit hook", "followed: 1" in pre.stdout, pre.stdout)
check("one filter on torch's logger with syncwatch, none without",
      "filters: 1" in pre.stdout and "filters: 0" in plain.stdout, pre.stdout + plain.stdout)
skip = [h for h in heard if h.startswith("skip ")]
other = [h for h in heard if h.startswith("other ")]
compiled_line = next(i + 1 for i, l in enumerate(lines) if "COMPILED-LINE" in l)
one_liner = next(i + 1 for i, l in enumerate(lines) if "ONE-LINER" in l)
check("the skip's reason is heard at the line that called the compiled function",
      len(skip) == 3 and "skipping cudagraphs due to mutated inputs (1 instances) @ " in skip[0]
      and f"train.py:{skip_line}:" in skip[0], heard)
check("through inductor's generated code and the compiled function's own frame: its caller's line",
      len(skip) == 3 and "(2 instances) @ " in skip[1] and f"train.py:{compiled_line}:" in skip[1]
      and "torchinductor_" not in skip[1], heard)
check("a one-line function that calls torch outside the compile machinery is its own line",
      len(skip) == 3 and "(3 instances) @ " in skip[2] and f"train.py:{one_liner}:" in skip[2], heard)
check("the dynamic-size hint is another kind, at its line",
      len(other) == 1 and "distinct sizes" in other[0] and f"train.py:{hint_line}:" in other[0], heard)
check("torch's frames are not the line", all("site-packages" not in h.split(" @ ")[1] for h in heard), heard)

nothing = subprocess.run([sys.executable, bare], capture_output=True, text=True, env=env, timeout=60)
check("a process that never imports torch gets no logger of syncwatch's",
      nothing.returncode == 0 and nothing.stdout.strip() == "[]", nothing.stdout + nothing.stderr)
shutil.rmtree(tmp, ignore_errors=True)
finish()
