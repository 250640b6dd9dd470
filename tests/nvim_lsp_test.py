#!/usr/bin/env python3
"""A real editor: Neovim from Debian (headless, its built-in LSP client) opens a CUDA file
of a project with a compile database, waits for syncwatch-lsp's diagnostics, applies the
fix-it the server offers and checks the buffer's text (tests/editors/nvim_lsp.lua).
  nvim_lsp_test.py SYNCWATCH-LSP REPO_ROOT     (exit 77: no nvim on this machine)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

server, root = sys.argv[1:3]
nvim = shutil.which("nvim")
if not nvim:
    print("nvim not installed (ci/setup.sh installs Debian's neovim): skipped")
    sys.exit(77)

with tempfile.TemporaryDirectory() as d:
    project = os.path.join(d, "project")
    os.makedirs(os.path.join(project, "src"))
    flow = os.path.join(project, "src", "flow.cu")
    shutil.copy(os.path.join(root, "test_inputs", "static", "sm_pos_single_stream_fixable.cu"), flow)
    flags = "clang++ -x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17 -c"
    with open(os.path.join(project, "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "command": f"{flags} {flow}", "file": flow}], f)
    results = os.path.join(d, "results.txt")
    env = dict(os.environ, SYNCWATCH_LSP=server, NVIM_RESULTS=results, HOME=d, XDG_CONFIG_HOME=d,
               XDG_DATA_HOME=d, XDG_STATE_HOME=d, XDG_CACHE_HOME=d)
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
    with open(flow) as f:
        print("ok   the file on disk is unchanged (the fix is in the buffer)" if "cudaMemcpyAsync(d_prev_saved" not in f.read()
              else "FAIL the file on disk changed")
    sys.exit(0 if ok else 1)
