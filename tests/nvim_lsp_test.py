#!/usr/bin/env python3
"""A real editor: Neovim from Debian (headless, its built-in LSP client) opens a CUDA file
of a project with a compile database, waits for syncwatch-lsp's diagnostics, applies the
fix-it the server offers and checks the buffer's text (tests/editors/nvim_lsp.lua).
  nvim_lsp_test.py SYNCWATCH-LSP REPO_ROOT     (exit 77: no nvim on this machine)"""
import os
import shutil
import subprocess
import sys
import tempfile

from editor_project import disk_unchanged, editor_env, make_project

server, root = sys.argv[1:3]
nvim = shutil.which("nvim")
if not nvim:
    print("nvim not installed (ci/setup.sh installs Debian's neovim): skipped")
    sys.exit(77)

with tempfile.TemporaryDirectory() as d:
    project, flow = make_project(d, root)
    results = os.path.join(d, "results.txt")
    env = editor_env(d, SYNCWATCH_LSP=server, NVIM_RESULTS=results)
    try:
        p = subprocess.run([nvim, "--headless", "--clean", "-c", "luafile " + os.path.join(root, "tests", "editors", "nvim_lsp.lua"),
                            flow], env=env, cwd=project, capture_output=True, text=True, timeout=800,
                           stdin=subprocess.DEVNULL)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    report = open(results).read() if os.path.exists(results) else ""
    print(report, end="")
    ok = rc == 0 and "FAIL" not in report and report.count("ok ") >= 6
    if not ok:
        print(f"FAIL nvim exited {rc}")
    unchanged = disk_unchanged(flow)
    print("ok   the file on disk is unchanged (the fix is in the buffer)" if unchanged else "FAIL the file on disk changed")
    sys.exit(0 if ok and unchanged else 1)
