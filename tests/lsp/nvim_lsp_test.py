#!/usr/bin/env python3
"""A real editor: Neovim from Debian (0.7.2, headless, its built-in LSP client) set up with
docs/editor.md's Neovim 0.7 snippet as written (tests/lsp/editors/snippets.py takes it from the
page), syncwatch-lsp on PATH as the snippet names it. It opens a CUDA file of a project with a
compile database, waits for syncwatch-lsp's diagnostics, applies the fix-it the server offers
and checks the buffer's text (tests/lsp/editors/nvim_lsp.lua). The page's 0.8+ snippet is
syntax-checked (vim.lsp.start and vim.fs do not exist in 0.7).
  nvim_lsp_test.py SYNCWATCH-LSP REPO_ROOT     (exit 77: no nvim on this machine)"""
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

server, root = sys.argv[1:3]
nvim = shutil.which("nvim")
if not nvim:
    skip("nvim not installed (ci/setup.sh installs Debian's neovim)")

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
    check("the Neovim 0.8+ snippet is valid Lua (syntax only: this is Neovim 0.7)", p.returncode == 0,
          (p.stdout + p.stderr).strip())
    snippet = write_snippet(root, "nvim-0.7", d)
    try:
        p = subprocess.run([nvim, "--headless", "--clean", "-c", "luafile " + snippet, "-c", "edit " + flow,
                            "-c", "luafile " + os.path.join(root, "tests", "lsp", "editors", "nvim_lsp.lua")],
                           env=env, cwd=project, capture_output=True, text=True, timeout=800,
                           stdin=subprocess.DEVNULL)
        rc, log = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, log = "timeout", ""
    report = open(results).read() if os.path.exists(results) else ""
    print(report, end="")
    if rc != 0 and log.strip():
        print(f"nvim's output: {log.strip()[-1500:]}")
    check("nvim: exit 0, its checks above passed (7 or more)",
          rc == 0 and "FAIL" not in report and report.count("ok ") >= 7, f"nvim exited {rc}")
    check("the file on disk is unchanged (the fix is in the buffer)", disk_unchanged(flow), "it changed")
    finish()
