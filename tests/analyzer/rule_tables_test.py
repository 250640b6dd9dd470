#!/usr/bin/env python3
"""The places that list rules agree with rules/rules.def (issue 22, item 6), and
tools/new_rule.py makes a rule that passes these checks and compiles.

  rule_tables_test.py ROOT LINT BUILD_DIR

Checked against rules.def, in its order: README.md's rules table (id, page), a page under
docs/rules/ for every rule, the list of checks in test_inputs/static/README.md, the inputs of
every static rule, the check registry, and `syncwatch-lint --list-checks`. Then the generator
runs on a copy of the files it edits and its result is checked the same way, and the check
it wrote is compiled with the flags the build compiles the other checks with."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

root, lint, build = sys.argv[1:4]


def rules_of(root):
    text = open(os.path.join(root, "rules", "rules.def")).read()
    return re.findall(r'^SYNCWATCH_RULE\((\w+), "([^"]+)", (\w+), "([a-z]*)", \w+,', text, re.M)


def problems(root, listed_checks=None):
    """What disagrees with rules.def under root; [] when everything agrees."""
    out = []
    rules = rules_of(root)
    if not rules:
        return ["rules.def has no rule"]
    ids = [r[1] for r in rules]
    static = [r for r in rules if r[3]]
    readme = open(os.path.join(root, "README.md")).read()
    table = re.search(r"\n## Rules\n\| rule \| what \| page \|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)", readme)
    rows = re.findall(r"^\| `([^`]+)` \| .+ \| (\S+) \|$", table.group(1), re.M) if table else []
    if [r[0] for r in rows] != ids:
        out.append(f"README.md's rules table lists {[r[0] for r in rows]}, rules.def {ids}")
    for rid, page in rows:
        if page != f"docs/rules/{rid}.md":
            out.append(f"README.md's row of {rid} links {page}")
    for rid in ids:
        if not os.path.exists(os.path.join(root, "docs", "rules", rid + ".md")):
            out.append(f"no page docs/rules/{rid}.md")
    inputs_readme = open(os.path.join(root, "test_inputs", "static", "README.md")).read()
    registry = open(os.path.join(root, "analyzer", "checks", "CheckRegistry.cpp")).read()
    inputs = os.listdir(os.path.join(root, "test_inputs", "static"))
    prefixes = [r[3] for r in static]
    if len(set(prefixes)) != len(prefixes):
        out.append(f"two rules share a test-input prefix: {prefixes}")
    for enum, rid, _, prefix in static:
        if f"* `{rid}`" not in inputs_readme:
            out.append(f"test_inputs/static/README.md's list of checks lacks {rid}")
        if f"factory<{enum}Check>(RuleId::{enum})" not in registry:
            out.append(f"analyzer/checks/CheckRegistry.cpp does not register {enum}Check")
        for kind in ("pos", "neg"):
            if not any(f.startswith(f"{prefix}_{kind}_") and f.endswith(".cu") for f in inputs):
                out.append(f"no test_inputs/static/{prefix}_{kind}_*.cu for {rid}")
    if listed_checks is not None and listed_checks != [r[1] for r in static]:
        out.append(f"syncwatch-lint --list-checks gives {listed_checks}, rules.def's static rules {[r[1] for r in static]}")
    return out


def count_problems(root):
    """test_inputs/static/README.md's count column against each file's `// expect:` lines:
    "2 W pa + 1 N sm" is two pageable-async-copy warnings and a sync-memcpy note, "-" none."""
    prefix = {r[1]: r[3] for r in rules_of(root)}
    text = open(os.path.join(root, "test_inputs", "static", "README.md")).read()
    out = []
    for block in re.split(r"\n(?=\| file \|)", text)[1:]:
        lines = block.split("\n")
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        if "count" not in header:
            continue
        ci = header.index("count")
        for line in lines[2:]:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            name, count = cells[0], cells[ci]
            want = {}
            for part in ([] if count == "-" else count.split("+")):
                m = re.fullmatch(r"\s*(\d+) ([WN]) ([a-z]{2})\s*", part)
                if not m:
                    out.append(f"{name}: a count that is not 'N W xx + ...': {count}")
                    break
                want[(m.group(2), m.group(3))] = want.get((m.group(2), m.group(3)), 0) + int(m.group(1))
            path = os.path.join(root, "test_inputs", "static", name)
            if not os.path.exists(path):
                out.append(f"{name}: listed, but no such input")
                continue
            got = {}
            for m in re.finditer(r"// expect: (.*)$", open(path).read(), re.M):
                for e in m.group(1).split(";"):
                    sev, rule = e.split()[:2]
                    k = ("W" if sev == "warning" else "N", prefix.get(rule, "??"))
                    got[k] = got.get(k, 0) + 1
            if got != want:
                out.append(f"{name}: the README counts {count}, its annotations {sorted(got.items())}")
    return out


p = count_problems(root)
check("test_inputs/static/README.md's counts match each input's annotations", not p, "; ".join(p))

listed = [l.split()[0] for l in subprocess.run([lint, "--list-checks"], capture_output=True, text=True).stdout.splitlines() if l.strip()]
p = problems(root, listed)
check("README, docs/rules, test_inputs, the registry and --list-checks agree with rules.def", not p, "; ".join(p))

# A broken table is found: the check above can fail.
with tempfile.TemporaryDirectory() as d:
    for sub in ("rules", "model", "docs", "test_inputs", "analyzer"):
        shutil.copytree(os.path.join(root, sub), os.path.join(d, sub))
    shutil.copy(os.path.join(root, "README.md"), d)
    readme = open(os.path.join(d, "README.md")).read()
    open(os.path.join(d, "README.md"), "w").write(re.sub(r"^\| `syncwatch-sync-memcpy` .*\n", "", readme, flags=re.M))
    os.remove(os.path.join(d, "docs", "rules", "syncwatch-sync-in-loop.md"))
    inputs_readme = os.path.join(d, "test_inputs", "static", "README.md")
    stale = open(inputs_readme).read().replace("| rs_pos_loss_readback.cu | 2 N ds + 1 W sl + 1 W rs |",
                                               "| rs_pos_loss_readback.cu | 1 W rs |")
    open(inputs_readme, "w").write(stale)
    check("a stale count is said", any("rs_pos_loss_readback.cu" in x for x in count_problems(d)), count_problems(d))
    p = problems(d)
    check("a missing README row and a missing page are both said",
          any("README.md's rules table" in x for x in p) and any("docs/rules/syncwatch-sync-in-loop.md" in x for x in p), p)

def compile_like(neighbour, src, d):
    """-fsyntax-only on src with the compile command of neighbour (a file of this build), the
    copy's model/include first."""
    db = json.load(open(os.path.join(build, "compile_commands.json")))
    entry = next(e for e in db if e["file"].endswith(neighbour))
    cmd = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
    out = [a for a in cmd if a not in ("-c",)]
    i = out.index("-o")
    del out[i:i + 2]
    out = [a.replace(os.path.join(root, "model", "include"), os.path.join(d, "model", "include"))
           for a in out if not a.endswith(neighbour)] + ["-fsyntax-only", src]
    return subprocess.run(out, cwd=entry["directory"], capture_output=True, text=True)


# The generator, on a copy: every table updated, the inputs and the page written, the check
# registered and compilable; a second run with the same rule changes nothing and exits 2.
gen = os.path.join(root, "tools", "new_rule.py")
with tempfile.TemporaryDirectory() as d:
    for sub in ("rules", "model", "docs", "test_inputs", "analyzer"):
        shutil.copytree(os.path.join(root, sub), os.path.join(d, sub))
    shutil.copy(os.path.join(root, "README.md"), d)
    args = [sys.executable, gen, "double-wait", "--prefix", "dw", "--summary", "a wait for work already waited for",
            "--help-text", "A host wait that follows another one for the same work costs a second round trip.",
            "--root", d]
    r = subprocess.run(args, capture_output=True, text=True)
    check("tools/new_rule.py: exit 0", r.returncode == 0, r.stderr)
    p = problems(d)
    check("the generated rule is in every table", not p, "; ".join(p))
    check("its row, page and inputs exist",
          '"syncwatch-double-wait", Warning, "dw", None' in open(os.path.join(d, "rules", "rules.def")).read()
          and os.path.exists(os.path.join(d, "docs", "rules", "syncwatch-double-wait.md"))
          and os.path.exists(os.path.join(d, "test_inputs", "static", "dw_pos_first.cu")), r.stdout)
    before = {f: open(os.path.join(d, "rules", "rules.def")).read() for f in ["rules.def"]}
    r2 = subprocess.run(args, capture_output=True, text=True)
    check("a second run of the same rule: exit 2, nothing changed", r2.returncode == 2 and "already" in r2.stderr
          and open(os.path.join(d, "rules", "rules.def")).read() == before["rules.def"], r2.stderr)
    r3 = subprocess.run([sys.executable, gen, "Bad_Name", "--prefix", "zz", "--summary", "x", "--help-text", "x",
                         "--root", d], capture_output=True, text=True)
    check("a malformed name: exit 2, said", r3.returncode == 2 and "lower-case words" in r3.stderr, r3.stderr)
    # Compiled as the build compiles the other checks (its compile database).
    r = compile_like("analyzer/checks/SyncInLoopCheck.cpp", os.path.join(d, "analyzer", "checks", "DoubleWaitCheck.cpp"), d)
    check("the generated check compiles", r.returncode == 0, r.stderr[-2000:])
    # The registry needs the rule's enumerator: the copied rules.def, through its include path.
    r = compile_like("analyzer/checks/SyncInLoopCheck.cpp", os.path.join(d, "analyzer", "checks", "CheckRegistry.cpp"), d)
    check("the registry with the generated check compiles", r.returncode == 0, r.stderr[-2000:])

# A rule the runtime reports from a new pass: its row names the pass, and the pass (finding
# nothing yet), its row in runtime_passes.def, its registration, its build line and a test
# that fails until it is written all exist and compile as the build compiles their neighbours.
with tempfile.TemporaryDirectory() as d:
    for sub in ("rules", "model", "docs", "test_inputs", "analyzer", "interposer"):
        shutil.copytree(os.path.join(root, sub), os.path.join(d, sub))
    os.makedirs(os.path.join(d, "tests", "runtime"))
    shutil.copy(os.path.join(root, "tests", "runtime", "CMakeLists.txt"), os.path.join(d, "tests", "runtime"))
    shutil.copytree(os.path.join(root, "tests", "runtime", "passes"), os.path.join(d, "tests", "runtime", "passes"))
    shutil.copy(os.path.join(root, "README.md"), d)
    r = subprocess.run([sys.executable, gen, "double-wait", "--prefix", "dw", "--summary", "a wait for work already waited for",
                        "--help-text", "A host wait that follows another one for the same work costs a second round trip.",
                        "--runtime-pass", "DoubleWait", "--root", d], capture_output=True, text=True)
    check("tools/new_rule.py --runtime-pass: exit 0", r.returncode == 0, r.stderr)
    rd = lambda *p: open(os.path.join(d, *p)).read()
    check("the rule's row names its pass, and the pass has its row",
          '"syncwatch-double-wait", Warning, "dw", DoubleWait' in rd("rules", "rules.def")
          and "SYNCWATCH_RUNTIME_PASS(DoubleWait," in rd("rules", "runtime_passes.def"), r.stdout)
    check("the pass is registered and built, its test added",
          '#include "DoubleWaitPass.h"' in rd("interposer", "passes", "PassRegistry.cpp")
          and "passes/DoubleWaitPass.cpp" in rd("interposer", "CMakeLists.txt")
          and "syncwatch_pass_test(double_wait_pass passes/double_wait_pass_test.cpp)" in rd("tests", "runtime", "CMakeLists.txt"),
          r.stdout)
    for neighbour, src in (("interposer/passes/SerializationPass.cpp", ("interposer", "passes", "DoubleWaitPass.cpp")),
                           ("interposer/passes/PassRegistry.cpp", ("interposer", "passes", "PassRegistry.cpp")),
                           ("tests/runtime/passes/pass_registry_test.cpp", ("tests", "runtime", "passes", "double_wait_pass_test.cpp"))):
        r = compile_like(neighbour, os.path.join(d, *src), d)
        check(f"{os.path.join(*src)} compiles", r.returncode == 0, r.stderr[-2000:])
    r2 = subprocess.run([sys.executable, gen, "other-wait", "--prefix", "ow", "--summary", "x", "--help-text", "x",
                         "--runtime-pass", "lower_case", "--root", d], capture_output=True, text=True)
    check("a malformed pass name: exit 2, said", r2.returncode == 2 and "CamelCase" in r2.stderr, r2.stderr)

finish()
