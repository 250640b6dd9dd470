#!/usr/bin/env python3
"""The ci/ scripts as a user runs them (issue 42):
- ci/test.sh, ci/demo.sh and ci/package.sh print their phases with the elapsed time
  (ci/lib.sh), and README.md says how long each takes on 2 cores;
- a build directory configured for another source tree is warned about (ci/package.sh,
  ci/build.sh): cpack and `cmake --install` would follow its paths back to that tree;
- `source ci/env.sh BUILD` puts the tools on PATH (README's from-source section).
  ci_scripts_test.py SOURCE_DIR BUILD_DIR"""
import os
import re
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

root, build = sys.argv[1:3]


def script(name):
    return open(os.path.join(root, "ci", name), encoding="utf-8").read()


for name in ("test.sh", "demo.sh", "package.sh", "build.sh"):
    text = script(name)
    phases = re.findall(r"^\s*ci_phase ", text, re.M)
    check(f"ci/{name} sources ci/lib.sh and names its phases",
          re.search(r"^source ci/lib\.sh$", text, re.M) and len(phases) >= 2, f"{len(phases)} phase(s)")
for name in ("package.sh", "build.sh"):
    check(f"ci/{name} checks its build directory's source tree", "ci_check_build_dir" in script(name))

with tempfile.TemporaryDirectory() as d:
    # What a phase looks like: the time since the start, each phase's own time, the end.
    os.makedirs(os.path.join(d, "ci"))
    demo = os.path.join(d, "ci", "phases.sh")
    with open(demo, "w") as f:
        f.write(f"set -euo pipefail\nsource {os.path.join(root, 'ci', 'lib.sh')}\n"
                "ci_at_exit 'echo cleaned >&2'\nci_phase one\nci_phase two\n")
    p = subprocess.run(["bash", demo], capture_output=True, text=True, timeout=60)
    want = ["ci/phases.sh: [0:00] one", "ci/phases.sh: [0:00] one: done in 0:00", "ci/phases.sh: [0:00] two",
            "cleaned", "ci/phases.sh: [0:00] two: done in 0:00", "ci/phases.sh: [0:00] finished, exit 0"]
    check("phases: elapsed time, each phase's time, the clean-ups, the exit code",
          p.returncode == 0 and p.stderr.splitlines() == want, p.stderr)

    # A build directory copied from another checkout.
    other = os.path.join(d, "copied-build")
    os.makedirs(other)
    with open(os.path.join(other, "CMakeCache.txt"), "w") as f:
        f.write("CMAKE_HOME_DIRECTORY:INTERNAL=/nonexistent/other-checkout\n")
    p = subprocess.run(["bash", os.path.join(root, "ci", "package.sh"), other, os.path.join(d, "dist")],
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    check("ci/package.sh on a build directory of another tree: warned, naming that tree",
          "was configured for another source tree (/nonexistent/other-checkout)" in p.stderr, p.stderr[-600:])
    p = subprocess.run(["bash", "-c", f"source ci/lib.sh; ci_check_build_dir {build}"], cwd=root,
                       capture_output=True, text=True, timeout=60)
    check("this tree's own build directory: no warning",
          p.returncode == 0 and "another source tree" not in p.stderr, p.stderr)

# ci/env.sh
p = subprocess.run(["bash", "-c", f"source ci/env.sh {build} && command -v syncwatch-lint syncwatch-lsp syncwatch"],
                   cwd=root, capture_output=True, text=True, timeout=60)
found = p.stdout.split()
check("source ci/env.sh BUILD: syncwatch-lint, syncwatch-lsp and syncwatch on PATH",
      p.returncode == 0 and len(found) == 3 and all(f.startswith(os.path.realpath(build)) or f.startswith(build)
                                                    for f in found), p.stdout + p.stderr)

readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
for cmd, minutes in (("ci/test.sh", "25 min"), ("ci/demo.sh", "6 min"), ("ci/package.sh", "2.5 min")):
    check(f"README gives {cmd}'s time on 2 cores", re.search(re.escape(cmd) + r"[^\n]*~?" + re.escape(minutes), readme),
          f"no line with {cmd} and {minutes}")
check("README's from-source section names ci/env.sh", "source ci/env.sh" in readme)

finish()
