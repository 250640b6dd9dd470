#!/usr/bin/env python3
"""Signals and limits (issue 20): `syncwatch run` passes SIGTERM, SIGINT and SIGHUP on to
the whole job (its process group) and exits with the job's status; a lint run stopped by a
signal removes its prelude PCH directory; a thread limit means fewer threads and a warning,
not an abort. Waits are on conditions with deadlines (a file appears, a process ends), never
on sleeps alone.

Usage: signals_test.py SYNCWATCH_LINT SYNCWATCH SOURCE_DIR"""
import glob, json, os, shutil, signal, subprocess, sys, tempfile, time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

LINT, SW, SRC = sys.argv[1:4]
STATIC = os.path.join(SRC, "test_inputs", "static")


def wait_for(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not running
    try:
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except OSError:
        return False


work = tempfile.mkdtemp(prefix="syncwatch-signals-")
try:
    # --- syncwatch run: the job gets the signal, syncwatch exits with the job's status -------
    for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT"), (signal.SIGHUP, "SIGHUP")):
        d = tempfile.mkdtemp(dir=work)
        ready, got, child = (os.path.join(d, f) for f in ("ready", "got", "child"))
        script = (f"trap 'echo {name} > {got}; exit 3' {name.replace('SIG', '')}; "
                  f"sleep 300 & echo $! > {child}; echo up > {ready}; wait")
        p = subprocess.Popen([SW, "run", "--out", os.path.join(d, "reports"), "--", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)  # as a batch system starts it: no terminal
        started = wait_for(lambda: os.path.exists(ready) and os.path.getsize(child) > 0)
        p.send_signal(sig)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
        sleeper = int(open(child).read()) if started else 0
        gone = wait_for(lambda: not alive(sleeper), 20) if sleeper else False
        check(f"syncwatch run: {name} reaches the job's shell, which exits 3; syncwatch exits 3",
              started and rc == 3 and os.path.exists(got), f"started={started} rc={rc}")
        # (a non-interactive shell starts its background jobs with SIGINT ignored, as POSIX
        # says: for SIGINT only the shell itself can show that the group got it)
        if sig != signal.SIGINT:
            check(f"syncwatch run: {name} reaches the job's other processes (its process group)", gone,
                  f"sleep {sleeper} still alive")
        if sleeper and alive(sleeper):
            os.kill(sleeper, signal.SIGKILL)
    # a job killed by a signal it does not catch: 128 + the signal, as a shell reports it
    d = tempfile.mkdtemp(dir=work)
    ready = os.path.join(d, "ready")
    p = subprocess.Popen([SW, "run", "--out", os.path.join(d, "r"), "--", "sh", "-c", f"echo up > {ready}; exec sleep 300"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    wait_for(lambda: os.path.exists(ready))
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=60)
    check("syncwatch run: a job ended by SIGTERM gives 143", rc == 143, rc)

    # --- the lint: a signal removes the prelude PCH directory ---------------------------------
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    files = sorted(f for f in glob.glob(os.path.join(STATIC, "*.cu")) if "clang-flags:" not in open(f).read(2000))[:12]
    env = dict(os.environ, TMPDIR=tmp)
    p = subprocess.Popen([LINT, "-j1", *files, "--", "--cuda-path=/usr/local/cuda"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env)
    appeared = wait_for(lambda: glob.glob(os.path.join(tmp, "syncwatch-pch-*")) or p.poll() is not None, 120)
    had_dir = bool(glob.glob(os.path.join(tmp, "syncwatch-pch-*")))
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=120)
    left = glob.glob(os.path.join(tmp, "syncwatch-pch-*"))
    check("syncwatch-lint stopped by SIGTERM mid-run: its prelude PCH directory is removed, the signal ends it",
          had_dir and not left and rc == -signal.SIGTERM, f"had_dir={had_dir} left={left} rc={rc}")

    # --- a thread limit (needs an unprivileged user: root is not limited) ----------------------
    fixable = os.path.join(STATIC, "sm_pos_single_stream_fixable.cu")
    if os.geteuid() == 0 and shutil.which("setpriv"):
        for limit in (1, 3):
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c",
                                f"ulimit -u {limit}; exec '{LINT}' -j2 --no-source '{fixable}' -- --cuda-path=/usr/local/cuda"],
                               capture_output=True, text=True, timeout=300)
            check(f"syncwatch-lint under ulimit -u {limit}: a warning and the findings (exit 1), no abort",
                  r.returncode == 1 and "thread(s) could be started" in r.stderr and "syncwatch-" in r.stdout,
                  f"rc={r.returncode} {r.stderr[-300:]}")
        # The cross-unit phase keeps first-phase parses alive, two threads each: under a limit
        # it keeps none, or as many as leave the next parses their threads, and the report is
        # the unlimited one (test_inputs/cross_unit: both findings need the second phase).
        pair = [os.path.join(SRC, "test_inputs", "cross_unit", f) for f in ("ops.cu", "train.cu")]
        def pair_lint(prefix):
            return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c",
                                   f"{prefix}exec '{LINT}' -j2 --no-source --format=json "
                                   + " ".join(f"'{f}'" for f in pair) + " -- --cuda-path=/usr/local/cuda"],
                                  capture_output=True, text=True, timeout=300)
        free = pair_lint("")
        want = sorted((x["location"]["line"], x["rule"]) for x in json.loads(free.stdout or "{}").get("findings", []))
        check("the two cross-unit files unlimited: their two findings", free.returncode == 1 and len(want) == 2,
              f"rc={free.returncode} {want} {free.stderr[-300:]}")
        for limit in (3, 6, 9, 12):
            r = pair_lint(f"ulimit -u {limit}; ")
            got = sorted((x["location"]["line"], x["rule"]) for x in json.loads(r.stdout or "{}").get("findings", []))
            check(f"the cross-unit phase under ulimit -u {limit}: the same findings, no abort",
                  r.returncode == 1 and got == want, f"rc={r.returncode} {got} {r.stderr[-300:]}")
    else:
        print("skip the thread-limit case: it needs root to run as an unprivileged user (setpriv)")
finally:
    shutil.rmtree(work, ignore_errors=True)
finish()
