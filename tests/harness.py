"""The harness of the Python tests under tests/: one way to say that a case passed or
failed, to skip, and to end, so that every script's log reads the same and its tail names
the cases that failed.

    sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/
                    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    from harness import check, finish  # noqa: E402

    check("replay: exit 0", r.returncode == 0, r.stderr)
    ...
    finish()

check() prints one line a case, "ok   NAME" or "FAIL NAME: DETAIL" (CI logs and people grep
them); finish() prints "all passed" or "N failed", then "failed: A; B; ..." naming the
cases that failed, and exits 1 if one did, else 0. skip() exits 77, the code the tests'
SKIP_RETURN_CODE gives ctest. Standard library only; Python 3.9 and later (the Python tests
also run under other interpreters than the build's).
"""
import subprocess
import sys

_failed = []  # the names of the cases that failed, in order


def check(name, ok, detail=""):
    """One case: prints "ok   NAME", or "FAIL NAME: DETAIL" and counts it. Returns bool(ok)."""
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        _failed.append(name)
    return bool(ok)


def fail(name, detail=""):
    """A case that failed: check(name, False, detail)."""
    return check(name, False, detail)


def skip(reason):
    """Prints "REASON: skipped" and exits 77: the test could not run here."""
    print(f"{reason}: skipped")
    sys.exit(77)


def run(*args, cwd=None, timeout=300):
    """The command args, its stdout and stderr captured as text: the CompletedProcess."""
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, cwd=cwd)


def finish():
    """Prints "all passed" or "N failed" and the failed cases' names, and exits 1 if a case
    failed, else 0."""
    print("all passed" if not _failed else f"{len(_failed)} failed")
    if _failed:
        print("failed: " + "; ".join(_failed))
    sys.exit(1 if _failed else 0)
