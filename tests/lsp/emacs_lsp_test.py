#!/usr/bin/env python3
"""A real editor: Debian 12's Emacs 28 in batch, with eglot (elpa-eglot) or lsp-mode
(elpa-lsp-mode) set up with docs/editor.md's snippets as written (tests/lsp/editors/snippets.py
takes them from the page: the CUDA mode, then the client's), syncwatch-lsp on PATH as they
name it. It opens a CUDA file of a project with a
compile database, waits for syncwatch-lsp's diagnostics, applies the preferred quickfix and
checks the buffer (tests/lsp/editors/emacs_lsp.el).
  emacs_lsp_test.py SYNCWATCH-LSP REPO_ROOT eglot|lsp-mode   (exit 77: no Emacs or no client)"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from editor_project import disk_unchanged, editor_env, make_project  # noqa: E402
from harness import check, finish, skip  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "editors"))
from snippets import write_snippet  # noqa: E402

server, root, client = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
emacs = shutil.which("emacs")
package = {"eglot": "eglot", "lsp-mode": "lsp-mode"}[client]
elpa = "/usr/share/emacs/site-lisp/elpa"
if not emacs or not any(n.startswith(package + "-") for n in (os.listdir(elpa) if os.path.isdir(elpa) else [])):
    skip(f"emacs or elpa-{package} not installed (ci/setup.sh installs Debian's)")

with tempfile.TemporaryDirectory() as d:
    project, flow = make_project(d, root)
    results = os.path.join(d, "results.txt")
    loaded = [write_snippet(root, "emacs", d), write_snippet(root, "emacs-" + client, d)]
    env = editor_env(d, EMACS_RESULTS=results, EMACS_CLIENT=client, EMACS_SNIPPETS=":".join(loaded),
                     PATH=os.path.dirname(server) + os.pathsep + os.environ["PATH"])
    try:
        p = subprocess.run([emacs, "--batch", "-l", os.path.join(root, "tests", "lsp", "editors", "emacs_lsp.el"), flow],
                           env=env, cwd=os.path.dirname(flow), capture_output=True, text=True, timeout=800,
                           stdin=subprocess.DEVNULL)
        rc, log = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, log = "timeout", str(e.stderr or "")
    report = open(results).read() if os.path.exists(results) else ""
    print(report, end="")
    said = f"emacs exited {rc}; its output:\n{log[:1500]}\n...\n{log[-1500:]}"
    ok = check(f"emacs with {client}: exit 0, its checks above passed (7 or more)",
               rc == 0 and "FAIL" not in report and report.count("ok ") >= 7, said)
    if ok and os.environ.get("SYNCWATCH_TEST_VERBOSE"):
        print(said)
    check("the file on disk is unchanged (the fix is in the buffer)", disk_unchanged(flow), "it changed")
    finish()
