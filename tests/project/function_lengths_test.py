#!/usr/bin/env python3
"""No function of analyzer/, interposer/ or model/ runs over 120 lines (issue 39, item 3),
and the check can fail: a 121-line function is named, a 120-line one is not.
  function_lengths_test.py SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, skip  # noqa: E402

root = sys.argv[1]
tool = os.path.join(root, "tools", "check_function_lengths.py")
try:
    import lizard  # noqa: F401
except ImportError:
    skip("lizard is not installed (ci/setup.sh installs it)")


def run(*folders):
    return subprocess.run([sys.executable, tool, *folders], capture_output=True, text=True, timeout=600)


r = run(*(os.path.join(root, d) for d in ("analyzer", "interposer", "model")))
check("analyzer/, interposer/ and model/: no function over 120 lines", r.returncode == 0, r.stdout[-2000:] + r.stderr)


def function(name, lines):
    """A C++ function of exactly `lines` lines, signature to closing brace."""
    body = "".join(f"  total += {i};\n" for i in range(lines - 4))
    return f"int {name}(int total) {{\n  // a comment counts too\n{body}  return total;\n}}\n\n"


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "steps.cpp"), "w") as f:
        f.write(function("within", 120) + function("over", 121))
    r = run(d)
    check("a 121-line function fails the check and is named, a 120-line one is not",
          r.returncode == 1 and "over: 121 lines" in r.stdout and "within: 120" not in r.stdout.split("functions in")[0],
          r.stdout + r.stderr)
    r = run(os.path.join(d, "missing"))
    check("a folder that does not exist: exit 2, said", r.returncode == 2 and "not a folder" in r.stderr, r.stderr)

finish()
