#!/usr/bin/env python3
"""syncwatch-lsp says in the editor what syncwatch-lint says in CI, at every edit.

An edit is analyzed in the file's own scope (the declarations after its precompiled
preamble, and the header helpers they call); open analyzes the whole unit. For every
annotated input (test_inputs/static, the header-helper project test_inputs/headers, and two
PyTorch extension inputs), this test compares, as (file, line, column, rule, severity,
message, notes):
  syncwatch-lint's findings for the file          (CI's answer)
  the server's diagnostics on open                (whole unit, every file published to)
  the server's diagnostics after an edit          (file scope; a comment line appended at the
                                                   end, so no line moves)
and checks that the edits really ran in the file's scope (the server's log says so), so
the comparison cannot pass by analyzing the whole unit twice.
  lsp_scope_test.py SYNCWATCH-LSP SYNCWATCH-LINT REPO_ROOT [TORCH_FLAGS]"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, fail, finish  # noqa: E402
from lsp_client import Client  # noqa: E402

server, lint, root = (os.path.abspath(a) for a in sys.argv[1:4])
torch_flags = sys.argv[4] if len(sys.argv) > 4 else ""
BASE = "clang++ -x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17"

files = sorted(glob.glob(os.path.join(root, "test_inputs", "static", "*.cu")))
torch_inputs = [f for f in files if re.match(r"t[ch]_", os.path.basename(f))]
# The torch inputs parse torch's headers (about 10 s each): two of them, one per rule.
files = [f for f in files if f not in torch_inputs]
if torch_flags:
    files += [next(f for f in torch_inputs if os.path.basename(f).startswith(p)) for p in ("tc_pos", "th_pos")]
files += sorted(glob.glob(os.path.join(root, "test_inputs", "headers", "*.cu")))


def clang_flags(path):
    for line in open(path).read().split("\n")[:5]:
        m = re.search(r"//\s*clang-flags:\s*(.*)", line)
        if m:
            return m.group(1).replace("@TORCH@", torch_flags)
    return ""


def key(file, line, col, rule, severity, message, notes):
    return (file, line, col, rule, severity, message, tuple(sorted(notes)))


with tempfile.TemporaryDirectory() as work:
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump([{"directory": os.path.dirname(p), "command": f"{BASE} {clang_flags(p)} -c {p}", "file": p}
                   for p in files], f)

    # CI's answer: one lint run over every file, findings grouped by the file analyzed.
    # (A header's findings belong to each unit that includes it: lint reports them once, so
    # the files of test_inputs/headers are linted one at a time.)
    expected = {}
    for group in [[p for p in files if "/headers/" not in p]] + [[p] for p in files if "/headers/" in p]:
        out = subprocess.run([lint, "-p", work, "--format=json", "--no-cross-unit", *group],
                             capture_output=True, text=True, timeout=1800)
        report = json.loads(out.stdout)
        if report["errors"]:
            fail("lint errors", report["errors"][:3])
        for p in group:
            expected[p] = set()
        for x in report["findings"]:
            unit = x["location"]["file"] if len(group) > 1 else group[0]
            if unit not in expected:
                fail("a finding outside the analyzed files", x["location"])
                continue
            sev = {"error": 1, "warning": 2}.get(x["severity"], 3)
            loc = x["location"]
            expected[unit].add(key(loc["file"], loc["line"], loc["column"], x["rule"], sev, x["message"],
                                   [(n["location"]["file"], n["location"]["line"], n["message"]) for n in x["notes"]
                                    if n["location"]["line"]]))

    c = Client([server, "--debounce-ms=0", "--compile-commands-dir=" + work], cwd=work, timeout=600)
    c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + work, "capabilities": {}})
    c.notify("initialized", {})

    def published(uri, version):
        """Every file's diagnostics from the analysis that published uri's at version."""
        main = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                      and m["params"].get("version") == version)
        # The worker publishes an analysis's files together under the lock that a hover
        # takes: its answer comes after all of them.
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        out = {uri: main["params"]["diagnostics"]} if main else {}
        for m in list(c.seen):
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] != uri:
                out[m["params"]["uri"]] = m["params"]["diagnostics"]
                c.seen.remove(m)
        found = set()
        for u, diags in out.items():
            for d in diags:
                if d.get("source") != "syncwatch":
                    continue
                s = d["range"]["start"]
                notes = [(r["location"]["uri"][len("file://"):], r["location"]["range"]["start"]["line"] + 1, r["message"])
                         for r in d.get("relatedInformation", [])]
                found.add(key(u[len("file://"):], s["line"] + 1, s["character"] + 1, d["code"], d["severity"],
                              d["message"], notes))
        return found if main else None

    scoped_files = 0
    for p in files:
        uri = "file://" + p
        text = open(p).read()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
        opened = published(uri, 1)
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": text + "// edited\n"}]})
        edited = published(uri, 2)
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        # The server logs each analysis before it publishes it; the log is read on a thread of
        # its own: wait for the edit's line.
        ran = c.wait_log(lambda l: l.startswith(f"syncwatch-lsp: {p}: ") and "(the file's own code)" in l, timeout=30)
        scoped_files += ran is not None
        name = os.path.relpath(p, root)
        for what, got in (("open", opened), ("edit", edited)):
            if got != expected[p]:
                fail(name, f"{what} differs from syncwatch-lint")
                for x in sorted((got or set()) ^ expected[p]):
                    print("    ", "lsp " if x in (got or set()) else "lint", x[:6])
    c.request("shutdown")
    c.notify("exit", {})
    c.p.wait(timeout=60)

    # Every input with #includes has a preamble: its edit must have run in the file's scope.
    with_preamble = sum(1 for p in files if "#include" in open(p).read())
    print(f"{len(files)} files, {sum(len(v) for v in expected.values())} findings; "
          f"{scoped_files} edits analyzed in the file's scope (of {with_preamble} files with a preamble)")
    check("every edit of a file with a preamble analyzed in the file's scope", scoped_files >= with_preamble,
          "some edits were analyzed as the whole unit")
    check("the header project's findings in its header are there",
          any(f[0].endswith(".cuh") for p in files for f in expected[p]), "missing")

finish()
