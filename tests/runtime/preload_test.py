#!/usr/bin/env python3
"""LD_PRELOAD=libsyncwatch.so must never change what a program does.

Runs each program below with and without the preloaded library, also with bad SYNCWATCH_*
values, and requires the same stdout bytes and the same exit status. Stderr may differ only
by lines that start with 'syncwatch: ': none at all for a process that never touched CUDA
(a shell, ls, python3), at most the one 'syncwatch: not active: ...' line for a CUDA
program on a machine where CUPTI cannot run, and syncwatch's report lines for a CUDA
program on a GPU. Runs in CI (no GPU, GCC 12's libstdc++) and on the GPU machine.

  preload_test.py LIBSYNCWATCH PROGRAM_DIR [NVCC]
On a GPU the CUDA program is clean (no stall), so its report is one line too.
PROGRAM_DIR holds the built fork_exec and iostream_static_thread; NVCC (optional) builds
tests/runtime/preload/cuda_static.cu with nvcc's default static cudart.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, fail, finish  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
lib, progs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
nvcc = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
gpu = os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl")

work = tempfile.mkdtemp(prefix="syncwatch-preload-")
cases = [
    ("shell", ["/bin/sh", "-c", "echo shell; ls / >/dev/null; (exit 7)"]),
    ("shell exit code", ["/bin/sh", "-c", "exit 7"]),
    ("ls", ["ls", "-l", "/usr"]),
    ("C fork and exec", [os.path.join(progs, "fork_exec")]),
    ("C++ iostreams, static constructor, thread", [os.path.join(progs, "iostream_static_thread")]),
    ("C++ exit() from a thread", [os.path.join(progs, "iostream_static_thread"), "exit-from-thread"]),
    ("python3 with subprocesses and fork", [sys.executable, os.path.join(here, "preload", "python_subprocess.py")]),
    ("python3 print", [sys.executable, "-c", "print(1)"]),
    # No thread of syncwatch's (nor CUPTI's) in a process that never used CUDA.
    ("python3 thread count", [sys.executable, "-c",
                              "print([l for l in open('/proc/self/status') if l.startswith('Threads')][0])"]),
]
cuda_case = None
if nvcc:
    exe = os.path.join(work, "cuda_static")
    r = subprocess.run([nvcc, "-O2", "-o", exe, os.path.join(here, "preload", "cuda_static.cu")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("nvcc builds cuda_static.cu", "\n" + r.stderr)
        finish()
    cuda_case = "nvcc-built CUDA program (static cudart)"
    cases.append((cuda_case, [exe]))
    # syncwatch subscribes to CUPTI (which starts a thread) only in a CUDA program: it must
    # recognize the nvcc-built one, and not the shell.
    probe = os.path.join(progs, "gpu_code_probe")
    if os.path.exists(probe):
        out = subprocess.run([probe, exe, "/bin/sh"], capture_output=True, text=True).stdout.split()
        if not check("GPU code recognized in the nvcc-built program, not in /bin/sh",
                     out[0::2] == ["gpu-code", "no-gpu-code"], " ".join(out)):
            finish()
else:
    print("note: no nvcc given: the nvcc-built program is not tested")

clean_env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCWATCH_") and k != "LD_PRELOAD"}
bad_values = {
    "SYNCWATCH_THRESHOLD_MS": "fast",
    "SYNCWATCH_KERNELS": "sometimes",
    "SYNCWATCH_WINDOW": "-5",
    "SYNCWATCH_RECORD": "maybe",
    "SYNCWATCH_OUT": "/nonexistent/syncwatch/reports",
    "SYNCWATCH_PROFILE": "/nonexistent/profile.json",
    "SYNCWATCH_DISABLE": "x",  # validated like the others: said, and the default (0) used
}
# What a CUDA process must say of them, word for word: numbers as a user writes them
# (`using 1`, never `using 1.000000`), and SYNCWATCH_DISABLE checked like every boolean.
bad_value_lines = [
    "syncwatch: SYNCWATCH_THRESHOLD_MS='fast' is not a positive number; using 1\n",
    "syncwatch: SYNCWATCH_WINDOW='-5' is not a positive number; using 65536\n",
    "syncwatch: SYNCWATCH_DISABLE='x' is not 0 or 1; using 0\n",
    "syncwatch: SYNCWATCH_RECORD='maybe' is not 0 or 1; using 0\n",
]
variants = [("", {}), (" + bad SYNCWATCH_* values", bad_values)]


def run(argv, env):
    return subprocess.run(argv, env=env, capture_output=True, timeout=120, cwd=work)


# No thread_local object with a destructor: the main thread's run at exit() before other
# libraries' static destructors, which still make CUDA calls (cuBLAS handles, cudaFree), and
# a callback then read a destroyed object. A C++ thread_local with a destructor is
# registered through __cxa_thread_atexit; libsyncwatch.so must not import it.
nm = shutil.which("nm")
if nm:
    undefined = subprocess.run([nm, "-D", "--undefined-only", lib], capture_output=True, text=True).stdout
    tls_dtors = [l.split()[-1] for l in undefined.splitlines() if "__cxa_thread_atexit" in l]
    check("no thread_local destructors in libsyncwatch.so", not tls_dtors, "imports " + ", ".join(tls_dtors))
else:
    print("note: no nm: thread_local destructors not checked")
for name, argv in cases:
    for suffix, extra in variants:
        env = dict(clean_env, **extra)
        base = run(argv, env)
        pre = run(argv, dict(env, LD_PRELOAD=lib))
        label = name + suffix
        problems = []
        if pre.returncode != base.returncode:
            problems.append(f"exit status {pre.returncode}, without syncwatch {base.returncode}")
        if pre.stdout != base.stdout:
            problems.append("stdout differs:\n--- without\n%s--- with\n%s" % (base.stdout.decode(errors="replace"),
                                                                              pre.stdout.decode(errors="replace")))
        ours = [l for l in pre.stderr.decode(errors="replace").splitlines(True) if l.startswith("syncwatch: ")]
        rest = [l for l in pre.stderr.decode(errors="replace").splitlines(True) if not l.startswith("syncwatch: ")]
        if "".join(rest) != base.stderr.decode(errors="replace"):
            problems.append("stderr differs beyond syncwatch's lines:\n--- without\n%s--- with\n%s" %
                            (base.stderr.decode(errors="replace"), pre.stderr.decode(errors="replace")))
        is_cuda = name == cuda_case
        if is_cuda and gpu:
            allowed = 1 + len(extra)  # a clean program's one-line summary, one line per bad value
        elif is_cuda:
            allowed = 1 + len(extra)  # 'not active', and one line per bad value
        else:
            allowed = 0
        if is_cuda and extra:
            missing = [l for l in bad_value_lines if l not in ours]
            if missing:
                problems.append("the bad values were not said as documented; missing:\n%s" % "".join(missing))
        if allowed is not None and len(ours) > allowed:
            problems.append("stderr gained %d syncwatch line(s), at most %d allowed:\n%s" %
                            (len(ours), allowed, "".join(ours)))
        if check(label, not problems, "\n  ".join(problems)):
            print(f"     exit {pre.returncode}, {len(pre.stdout)} stdout bytes identical"
                  + (f", stderr +{len(ours)} syncwatch line(s)" if ours else ""))
            for l in ours:
                print("       " + l.rstrip())

# SYNCWATCH_DISABLE=1: the CUDA program runs with the library loaded and off: not a line.
if cuda_case:
    exe = dict(cases)[cuda_case]
    base = run(exe, clean_env)
    off = run(exe, dict(clean_env, LD_PRELOAD=lib, SYNCWATCH_DISABLE="1", SYNCWATCH_THRESHOLD_MS="fast"))
    check("SYNCWATCH_DISABLE=1 in the CUDA program: output identical, no syncwatch line",
          (off.returncode, off.stdout, off.stderr) == (base.returncode, base.stdout, base.stderr),
          off.stderr.decode(errors="replace"))

# `syncwatch run` keeps the program's exit code and says where reports really went.
tool = os.path.join(os.path.dirname(lib), "syncwatch")
if os.path.exists(tool):
    for out, expect in (("/proc/syncwatch-cannot-create", "cannot write reports to '/proc/syncwatch-cannot-create'"),
                        (os.path.join(work, "reports"), "no process of the run made a CUDA call")):
        r = subprocess.run([tool, "run", "--out", out, "--", "/bin/sh", "-c", "echo run; exit 5"],
                           capture_output=True, text=True, env=clean_env, timeout=60)
        check(f"syncwatch run --out {out}: the program's exit code and output, where the reports went said",
              r.returncode == 5 and r.stdout == "run\n" and expect in r.stderr and "reports in" not in r.stderr,
              f"exit {r.returncode}; " + r.stderr.strip().replace("\n", " | "))

shutil.rmtree(work, ignore_errors=True)
print(f"{len(cases) * len(variants)} runs" + (" (GPU present)" if gpu else " (no GPU)"))
finish()
