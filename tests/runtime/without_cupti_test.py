#!/usr/bin/env python3
"""Another tool holds CUPTI (issue 40): syncwatch says so once, and still times the host waits
of a program whose CUDA runtime is libcudart.so, at its own definitions of the blocking entry
points, with their lines; the report marks them as seen without CUPTI. A program that makes
no such call gets the one 'not active' line that says what is not seen. The program runs as
without syncwatch: the same output and exit status.

The fakes (tests/runtime/without_cupti/): libcupti.so.13 refuses every subscription with
CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, as while Nsight Systems or compute-sanitizer
holds it; libcudart.so.13's cudaStreamSynchronize takes 3 ms, cudaDeviceSynchronize and
cudaMemcpy 2 ms, cudaFree 0.1 ms.

Usage: without_cupti_test.py LIBSYNCWATCH DIR (DIR: the fakes and the program)"""
import glob, json, os, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

lib, wc = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "without_cupti", "app.cpp")
lines = open(src).read().splitlines()
line_of = lambda text: next(i + 1 for i, l in enumerate(lines) if text in l)


def run(app, args, preload, out=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCWATCH_")}
    env["LD_LIBRARY_PATH"] = wc  # the fake CUPTI before libsyncwatch.so's RUNPATH, and the fake runtime
    if preload:
        env["LD_PRELOAD"] = lib
    if out:
        env["SYNCWATCH_OUT"] = out
    return subprocess.run([app, *args], env=env, capture_output=True, text=True, timeout=60)


# The default build, and one with the per-thread default stream (nvcc --default-stream
# per-thread: cudaStreamSynchronize_ptsz, cudaMemcpy_ptds): the same waits at the same lines.
for build, name in (("default stream", "without_cupti_app"), ("per-thread default stream", "without_cupti_app_ptds")):
    app = os.path.join(wc, name)
    plain = run(app, [], False)
    out = tempfile.mkdtemp(prefix="syncwatch-without-cupti-")
    if name.endswith("_ptds"):  # SYNCWATCH_OUT not made yet: made at exit with its parents
        out = os.path.join(out, "reports", "ptds")
    sw = run(app, [], True, out)
    check(f"{build}: the program runs as without syncwatch: same output, exit status 3",
          sw.returncode == plain.returncode == 3 and sw.stdout == plain.stdout, f"{plain}\n{sw}")
    said = [l for l in sw.stderr.splitlines() if "host waits were timed at the CUDA runtime's and driver's entry points" in l]
    check(f"{build}: said once: another tool holds CUPTI, host waits timed at the entry points, what is not seen",
          len(said) == 1 and "holds CUPTI" in said[0] and "pageable copies and serialized streams are not seen" in said[0],
          sw.stderr)
    reports = glob.glob(os.path.join(out, "*.json"))
    check(f"{build}: a report was written" + (" (SYNCWATCH_OUT made with its parents)" if name.endswith("_ptds") else ""),
          len(reports) == 1, sw.stderr)
    if reports:
        r = json.load(open(reports[0]))
        by_line = {f["location"]["line"]: f for f in r.get("findings", [])}
        sync = by_line.get(line_of("cudaStreamSynchronize(Stream);"))
        check(f"{build}: the wait in the loop, at its line, 5 times, 3 ms or more each, marked as timed without CUPTI",
              sync is not None and "cudaStreamSynchronize" in sync["message"] and "without CUPTI" in sync["message"]
              and dict(sync["evidence"]).get("count") == "5" and float(dict(sync["evidence"]).get("maxMs", 0)) >= 3.0
              and float(dict(sync["evidence"]).get("totalMs", 0)) >= 15.0, json.dumps(r.get("findings"), indent=1))
        copy = by_line.get(line_of("cudaMemcpy(Host"))
        check(f"{build}: the blocking copy at its line", copy is not None and "cudaMemcpy" in copy["message"],
              json.dumps(r.get("findings"), indent=1))
        # (as with CUPTI: one explicit synchronize at the end is the program's own choice)
        check(f"{build}: the one cudaDeviceSynchronize at the end and the 0.1 ms cudaFree are no findings",
              line_of("cudaDeviceSynchronize();") not in by_line and line_of("cudaFree(Device);") not in by_line
              and len(by_line) == 2, json.dumps(by_line, indent=1))
        check(f"{build}: the report's figures say CUPTI was held and what was timed instead",
              "held by another tool" in r.get("figures", {}).get("cupti", ""), json.dumps(r.get("figures")))
untimed = run(os.path.join(wc, "without_cupti_app"), ["untimed"], True)
check("a program that makes no timed call: one 'not active' line saying what is not seen, nothing else",
      untimed.returncode == 3 and [l for l in untimed.stderr.splitlines() if l.startswith("syncwatch:")] ==
      [l for l in untimed.stderr.splitlines() if "not active" in l and "linked in statically" in l] and
      len(untimed.stderr.splitlines()) == 1, untimed.stderr)
# A SYNCWATCH_OUT that cannot be made (under a regular file): said once, the findings on stderr.
blocker = os.path.join(tempfile.mkdtemp(prefix="syncwatch-without-cupti-"), "a-file")
open(blocker, "w").close()
blocked = run(os.path.join(wc, "without_cupti_app"), [], True, os.path.join(blocker, "reports"))
check("a SYNCWATCH_OUT that cannot be made: one 'cannot write' line, the findings still on stderr, exit status 3",
      blocked.returncode == 3 and blocked.stderr.count("cannot write to SYNCWATCH_OUT") == 1
      and "[syncwatch-sync-in-loop]" in blocked.stderr, blocked.stderr)
finish()
