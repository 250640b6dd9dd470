#!/usr/bin/env python3
"""Editor latency on a real 5,578-line CUDA file (ggml's src/ggml-cuda/ggml-cuda.cu, with
its own headers): a benchmark, not a test. Measured side by side, interleaved, in one run:
  syncwatch-lsp  time from didOpen to its first diagnostics, then from a one-line edit to
                 the new diagnostics (debounce 0: the server's own work);
  clang-tidy     one full run of clang-tidy-22 with the syncwatch plugin on the file (what an
                 editor that runs clang-tidy on save waits for);
  clangd         the same two times for clangd's own diagnostics (no syncwatch), as editors run
                 it and with --sync (no debounce of its own, as syncwatch-lsp --debounce-ms=0);
                 clangd-22 where installed (`apt-get install clangd-22`: the same clang as
                 syncwatch's; Debian's clangd 14 gives 17 errors on this file with CUDA 13
                 and GCC 12's headers, clangd 22 none).
Prints medians and the ratio the issue states its target in: re-diagnosis after an edit
<= 0.3x a full clang-tidy run.
  bench/lsp_latency.py BUILD_DIR GGML_CHECKOUT [ROUNDS]
GGML_CHECKOUT: a ggml-org/ggml checkout (include/ and src/), e.g. `git archive HEAD include src`."""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lsp"))
from lsp_client import Client  # noqa: E402

build, ggml = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
src = os.path.join(ggml, "src", "ggml-cuda", "ggml-cuda.cu")
lsp = os.path.join(build, "analyzer", "syncwatch-lsp")
plugin = os.path.join(build, "analyzer", "libsyncwatch-tidy.so")
tidy = shutil.which("clang-tidy-22") or "/usr/lib/llvm-22/bin/clang-tidy"
clangd = shutil.which("clangd-22") or shutil.which("clangd") or "/usr/lib/llvm-22/bin/clangd"
args = ["-x", "cuda", "--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-path=/usr/local/cuda", "-std=c++17",
        f"-I{ggml}/include", f"-I{ggml}/src", f"-I{ggml}/src/ggml-cuda", "-DGGML_USE_CUDA", "-DGGML_SCHED_MAX_COPIES=4"]
lines = sum(1 for _ in open(src))
# The first statement at or after the file's middle line: an indented line ending in `;`, not
# a comment, a declaration's continuation or a for loop's header.
edit_line = next(i for i, l in enumerate(open(src).read().split("\n"))
                 if i >= lines // 2 and re.match(r"^ {4,}[^ /*].*;\s*$", l) and not re.match(r"^\s*(for|case)\b", l))

work = tempfile.mkdtemp()
with open(os.path.join(work, "compile_commands.json"), "w") as f:
    json.dump([{"directory": ggml, "arguments": ["clang++", *args, "-c", src], "file": src}], f)


def server_times(command, compare=False):
    """(first diagnostics, re-diagnosis after a one-line edit) in seconds, for one server."""
    c = Client(command, cwd=work, timeout=600)
    c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + ggml, "capabilities": {}})
    c.notify("initialized", {})
    uri = "file://" + src
    text = open(src).read()
    t0 = time.perf_counter()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
    m1 = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
    first = time.perf_counter() - t0
    # One line changed in the middle of the file: a statement added after the first statement
    # there, on its line (code the parse must read again; no line moves).
    body = text.split("\n")
    body[edit_line] += " (void)0;"
    t0 = time.perf_counter()
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "\n".join(body)}]})
    m2 = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                and m["params"].get("version", 2) == 2)
    edit = time.perf_counter() - t0
    # The edit's analysis (the file's own code and its helpers) must say what the whole
    # unit's said: the statement added moves nothing.
    if compare:
        same.append(sorted(json.dumps(d, sort_keys=True) for d in m1["params"]["diagnostics"]) ==
                    sorted(json.dumps(d, sort_keys=True) for d in m2["params"]["diagnostics"]))
        counts.append(len(m2["params"]["diagnostics"]))
        # Typing: four edits 100 ms apart, each arriving while the last one's analysis runs
        # (debounce 0): each cancels it; the time is from the last edit to its diagnostics.
        for v in range(3, 7):
            if v > 3:
                time.sleep(0.1)
            t0 = time.perf_counter()
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                "contentChanges": [{"text": text + f"// v{v}\n"}]})
        c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
               and m["params"].get("version") == 6)
        burst.append(time.perf_counter() - t0)
    c.request("shutdown")
    c.notify("exit", {})
    c.p.wait(timeout=60)
    if compare:
        time.sleep(0.2)  # (the log's last lines)
        cancelled.append(sum("cancelled after" in l for l in c.log))
    return first, edit


def tidy_time():
    t0 = time.perf_counter()
    subprocess.run([tidy, f"--load={plugin}", "--checks=-*,syncwatch-*", "-p", work, src],
                   capture_output=True, timeout=600)
    return time.perf_counter() - t0


same, counts, burst, cancelled = [], [], [], []
results = {"sw-first": [], "sw-edit": [], "tidy": [], "clangd-first": [], "clangd-edit": [],
           "clangd-sync-first": [], "clangd-sync-edit": []}
for r in range(rounds):
    f, e = server_times([lsp, "--debounce-ms=0", f"--compile-commands-dir={work}"], compare=True)
    results["sw-first"].append(f)
    results["sw-edit"].append(e)
    results["tidy"].append(tidy_time())
    f, e = server_times([clangd, f"--compile-commands-dir={work}", "--log=error", "--pch-storage=memory"])
    results["clangd-first"].append(f)
    results["clangd-edit"].append(e)
    # clangd with no debounce of its own (--sync: each update is handled as it comes, as
    # syncwatch-lsp's --debounce-ms=0) and no background index competing for the cores.
    f, e = server_times([clangd, f"--compile-commands-dir={work}", "--log=error", "--pch-storage=memory", "--sync",
                         "--background-index=false"])
    results["clangd-sync-first"].append(f)
    results["clangd-sync-edit"].append(e)

med = {k: statistics.median(v) for k, v in results.items()}
print(f"{os.path.relpath(src, ggml)} ({lines} lines; the edit: `(void)0;` added to line {edit_line + 1}), "
      f"median of {rounds} interleaved rounds, seconds:")
for k, v in results.items():
    print(f"  {k:13s} {med[k]:7.2f}   runs {', '.join(f'{x:.2f}' for x in v)}")
print(f"syncwatch-lsp re-diagnosis after an edit / full clang-tidy run: {med['sw-edit'] / med['tidy']:.2f}x (target <= 0.3x)")
print(f"syncwatch-lsp first diagnostics / full clang-tidy run: {med['sw-first'] / med['tidy']:.2f}x")
print(f"syncwatch-lsp diagnostics after the edit the same as the whole unit's on open: "
      f"{sum(same)} of {len(same)} rounds ({counts[0] if counts else 0} diagnostics)")
print(f"syncwatch-lsp after 4 edits 100 ms apart: {statistics.median(burst):.2f} s from the last edit to its diagnostics "
      f"({statistics.median(cancelled):.0f} analyses cancelled by the next edit, median)")
print(f"syncwatch-lsp re-diagnosis / clangd re-diagnosis: {med['sw-edit'] / med['clangd-edit']:.2f}x "
      f"(clangd without its debounce, --sync: {med['sw-edit'] / med['clangd-sync-edit']:.2f}x; target <= 1x)")
print(f"clangd: {clangd} ({subprocess.run([clangd, '--version'], capture_output=True, text=True).stdout.splitlines()[0]})")
shutil.rmtree(work, ignore_errors=True)
