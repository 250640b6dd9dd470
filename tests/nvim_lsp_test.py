#!/usr/bin/env python3
"""A real editor: Neovim from Debian (0.7.2, headless, its built-in LSP client) set up with
docs/editor.md's Neovim 0.7 snippet as written (tests/editors/snippets.py takes it from the
page), syncwatch-lsp on PATH as the snippet names it. It opens a CUDA file of a project with a
compile database, waits for syncwatch-lsp's diagnostics, applies the fix-it the server offers
and checks the buffer's text (tests/editors/nvim_lsp.lua). The page's 0.8+ snippet is
syntax-checked (vim.lsp.start and vim.fs do not exist in 0.7).
  nvim_lsp_test.py SYNCWATCH-LSP REPO_ROOT     (exit 77: no nvim on this machine)"""
import os
import shutil
import subprocess
import sys
import tempfile

from editor_project import disk_unchanged, editor_env, make_project

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "editors"))
from snippets import write_snippet  # noqa: E402

server, root = sys.argv[1:3]
nvim = shutil.which("nvim")
if not nvim:
    print("nvim not installed (ci/setup.sh installs Debian's neovim): skipped")
    sys.exit(77)

server = os.path.abspath(server)
with tempfile.TemporaryDirectory() as d:
    project, flow = make_project(d, root)
    results = os.path.join(d, "results.txt")
    # The snippets name the server `syncwatch-lsp`, found on PATH as a user's would be.
    env = editor_env(d, NVIM_RESULTS=results, PATH=os.path.dirname(server) + os.pathsep + os.environ["PATH"])
    newer = write_snippet(root, "nvim-0.8", d)
    p = subprocess.run([nvim, "--headless", "--clean", "-c",
                        f"lua local f, e = loadfile('{newer}'); if not f then print(e); vim.cmd('cquit') end",
                        "-c", "qall!"], env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    print(("ok   " if p.returncode == 0 else "FAIL ") + "the Neovim 0.8+ snippet is valid Lua (syntax only: this is "
          f"Neovim 0.7){'' if p.returncode == 0 else ': ' + (p.stdout + p.stderr).strip()}")
    syntax_ok = p.returncode == 0
    snippet = write_snippet(root, "nvim-0.7", d)
    try:
        p = subprocess.run([nvim, "--headless", "--clean", "-c", "luafile " + snippet, "-c", "edit " + flow,
                            "-c", "luafile " + os.path.join(root, "tests", "editors", "nvim_lsp.lua")],
                           env=env, cwd=project, capture_output=True, text=True, timeout=800,
                           stdin=subprocess.DEVNULL)
        rc, log = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, log = "timeout", ""
    report = open(results).read() if os.path.exists(results) else ""
    print(report, end="")
    ok = rc == 0 and "FAIL" not in report and report.count("ok ") >= 7 and syntax_ok
    if rc != 0 and log.strip():
        print(f"nvim's output: {log.strip()[-1500:]}")
    if not ok:
        print(f"FAIL nvim exited {rc}")
    unchanged = disk_unchanged(flow)
    print("ok   the file on disk is unchanged (the fix is in the buffer)" if unchanged else "FAIL the file on disk changed")
    sys.exit(0 if ok and unchanged else 1)
