#!/usr/bin/env python3
"""syncwatch-lint, `syncwatch-lint merge` and syncwatch-clang-tidy follow the conventions
of the `syncwatch` command (runtime_cli_test.py): `--opt=value` and `--opt value` give the
same result, `--help` exits 0 with the usage on stdout, `--version` prints the real
version, an unknown option is one line naming it and exit 2, and reports carry the version.
  lint_cli_conventions_test.py SYNCWATCH-LINT SYNCWATCH-CLANG-TIDY TEST_INPUTS VERSION"""
import json
import os
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, run  # noqa: E402

lint, wrapper, inputs, version = sys.argv[1:5]
lint, wrapper, inputs = (os.path.abspath(p) for p in (lint, wrapper, inputs))
source = os.path.join(inputs, "static", "bs_pos_stream_create_with_memcpy.cu")


for cmd, name in ((lint, "syncwatch-lint"), (wrapper, "syncwatch-clang-tidy")):
    r = run(cmd, "--help")
    check(f"{name} --help: exit 0, usage on stdout", r.returncode == 0 and "syncwatch" in r.stdout
          and "USAGE" in r.stdout.upper() and not r.stderr, f"{r.returncode} {r.stdout[:80]!r} {r.stderr[:120]!r}")
    r = run(cmd, "--version")
    check(f"{name} --version", r.returncode == 0 and r.stdout.strip().endswith(version)
          and name in r.stdout, repr(r.stdout))
    r = run(cmd, "--no-such-option")
    lines = r.stderr.strip().splitlines()
    check(f"{name}: an unknown option is one line naming it, exit 2",
          r.returncode == 2 and len(lines) <= 2 and "--no-such-option" in lines[0],
          f"{r.returncode} {r.stderr!r}")

r = run(lint, "merge", "--help")
check("syncwatch-lint merge --help: exit 0", r.returncode == 0 and "merge" in r.stdout, f"{r.returncode} {r.stderr[:100]}")
r = run(lint, "merge", "--version")
check("syncwatch-lint merge --version", r.returncode == 0 and r.stdout.strip().endswith(version), r.stdout)

eq = run(lint, "--format=json", source, "--")
sp = run(lint, "--format", "json", source, "--")
check("--format=json and --format json: the same report", eq.returncode == sp.returncode == 1
      and eq.stdout == sp.stdout and eq.stdout.startswith("{"), f"{eq.returncode} {sp.returncode} {eq.stderr[-200:]}")
check("the JSON report carries the version", json.loads(eq.stdout).get("version") == version)
with tempfile.TemporaryDirectory() as d:
    a, b = os.path.join(d, "a.sarif"), os.path.join(d, "b.sarif")
    ra = run(lint, "--format=sarif", f"--output={a}", source, "--")
    rb = run(lint, "--format", "sarif", "--output", b, source, "--")
    same = ra.returncode == rb.returncode == 1 and open(a).read() == open(b).read()
    check("--output=F and --output F: the same SARIF", same, f"{ra.returncode} {rb.returncode}")
    sarif = json.load(open(a))
    check("the SARIF report carries the version", sarif["runs"][0]["tool"]["driver"].get("version") == version)
    m1 = run(lint, "merge", f"--output={os.path.join(d, 'm1.sarif')}", a, b)
    m2 = run(lint, "merge", "--output", os.path.join(d, "m2.sarif"), a, b)
    check("merge: both spellings", m1.returncode == m2.returncode and
          open(os.path.join(d, "m1.sarif")).read() == open(os.path.join(d, "m2.sarif")).read(),
          f"{m1.returncode} {m2.returncode} {m1.stderr[-200:]}")
    r = run(lint, "--format", "yaml", source, "--")
    check("a bad value: one line naming it, exit 2", r.returncode == 2 and "yaml" in r.stderr
          and len(r.stderr.strip().splitlines()) == 1, f"{r.returncode} {r.stderr!r}")

# As a user finds it (issue 42): paths as given, a quiet stderr, a quiet baseline, -j, bad inputs.
static = os.path.join(inputs, "static")
name = os.path.basename(source)
r = run(lint, "--no-source", os.path.join("static", name), "--", cwd=inputs)
check("a relative source argument: findings name it relative (as clang-tidy does)",
      r.returncode == 1 and r.stdout.startswith(f"static/{name}:"), r.stdout[:200])
r = run(lint, "--no-source", source, "--", cwd=inputs)
check("an absolute source argument: findings name it absolute", r.returncode == 1 and r.stdout.startswith(source + ":"),
      r.stdout[:200])
with tempfile.TemporaryDirectory() as d:
    noisy = os.path.join(d, "noisy.cu")
    with open(noisy, "w") as f:
        f.write("#include <cuda_runtime.h>\n__global__ void k() {}\n"
                "int no_return() { int unused = 1; }  // clang warns twice here (-Wall)\n"
                "int main() { k<<<1, 1>>>(); return 0; }\n")
    r = run(lint, "noisy.cu", "--", "-Wall", cwd=d)
    check("clang's own warnings leave no 'N warnings generated' line on stderr",
          r.returncode in (0, 1) and "generated" not in r.stderr and r.stdout.startswith("noisy.cu:"),
          f"{r.returncode} {r.stderr!r}")
    base = os.path.join(d, "base.json")
    r = run(lint, f"--write-baseline={base}", source, "--")
    check("--write-baseline is quiet: no report on stdout, one line on stderr",
          r.returncode == 0 and r.stdout == "" and "wrote" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          f"{r.returncode} {r.stdout[:100]!r} {r.stderr!r}")
    r = run(lint, f"--write-baseline={base}", "--format=text", source, "--")
    check("--write-baseline with --format: the report too", r.returncode == 0 and "syncwatch-" in r.stdout,
          f"{r.returncode} {r.stdout[:100]!r}")
    two = [os.path.join(static, n) for n in ("ds_pos_launch_zero_stream.cu", name)]
    r = run(lint, "-j", "10000", "--run-stats", "--no-source", *two, "--")
    check("-j 10000 on 2 files: 2 workers", r.returncode == 1 and " 2 worker(s)" in r.stderr, r.stderr[-300:])
    db = os.path.join(d, "db")
    os.makedirs(db)
    entry = json.dumps([{"directory": d, "file": noisy, "command": f"clang++ -x cuda -c {noisy}"}])
    with open(os.path.join(db, "compile_commands.json"), "w") as f:
        f.write(entry[: len(entry) // 2])  # cut off, as a full disk or a killed build leaves it
    r = run(lint, "-p", db)
    check("a truncated compile_commands.json: named, 'not valid JSON', exit 2",
          r.returncode == 2 and "compile_commands.json" in r.stderr and "not valid JSON" in r.stderr
          and "YAML" not in r.stderr, f"{r.returncode} {r.stderr!r}")
    r = run(lint, "@missing.rsp", source, "--", cwd=d)
    check("@missing.rsp: the response file does not exist, exit 2",
          r.returncode == 2 and "response file 'missing.rsp' does not exist" in r.stderr
          and "could not be parsed" not in r.stderr, f"{r.returncode} {r.stderr!r}")

finish()
