#!/usr/bin/env python3
"""No shell script of the repository pipes into an early-exiting reader under pipefail.

`producer | grep -q pattern` fails at random under `set -o pipefail`: grep -q exits at its
first match, the producer may then be killed by SIGPIPE on its next write, and the pipeline
reports that as a failure (3 in 200 runs of `ldd | grep -q` on this project's machines; one
CI run in about 20 failed for it). The same holds for `| head`-style readers that stop early
(`grep -m`, `head`). Scripts use a variable and a here-string (`grep -q pat <<<"$out"`) or
`grep -c` instead. This test scans every shell script (by extension or shebang), including
the command strings it hands to `sh -c`.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
# A pipe into a reader that may stop before its input ends.
EARLY_EXIT = re.compile(r"\|\s*(grep\s+(-[A-Za-z]*[qm]|--quiet|--silent|--max-count)|head\b)")


def shell_scripts():
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    for name in files:
        path = ROOT / name
        if not path.is_file():
            continue
        if name.endswith(".sh"):
            yield path
            continue
        try:
            first = path.open("rb").readline()
        except OSError:
            continue
        if first.startswith(b"#!") and re.search(rb"\b(ba|da|k)?sh\b", first):
            yield path


def offending_lines(text):
    """(line number, line) of every early-exiting pipe, comments left out."""
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        if EARLY_EXIT.search(code):
            yield number, line.strip()


def self_test():
    assert list(offending_lines('ldd x | grep -q cupti && ok'))
    assert list(offending_lines('sh -c "tool --version | grep -q 0.1"'))
    assert list(offending_lines('cmd | head -1'))
    assert not list(offending_lines('grep -q cupti <<<"$out"'))
    assert not list(offending_lines('n=$(ldd x | grep -c cupti)'))
    assert not list(offending_lines('# a | grep -q in a comment'))


def main():
    self_test()
    scripts = list(shell_scripts())
    assert len(scripts) >= 5, f"found only {len(scripts)} shell scripts: is this a checkout?"
    problems = []
    for script in scripts:
        text = script.read_text(errors="replace")
        if not re.search(r"pipefail", text):
            continue
        for number, line in offending_lines(text):
            problems.append(f"{script.relative_to(ROOT)}:{number}: {line}")
    if problems:
        print("pipes into an early-exiting reader under pipefail (fail at random on SIGPIPE):")
        print("\n".join(problems))
        return 1
    print(f"ok: {len(scripts)} shell scripts, no early-exiting pipe under pipefail")
    return 0


if __name__ == "__main__":
    sys.exit(main())
