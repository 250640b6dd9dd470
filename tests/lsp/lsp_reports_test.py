#!/usr/bin/env python3
"""syncwatch-lsp's hover, inlay hints and runtime-only diagnostics from each kind of runtime
report, made by this build's syncwatch from the committed H200 recordings (issue 42):
  - `syncwatch confirm --format=json` (.syncwatch/confirm.json): a runtime-only line
    (runtime_probe.cu:88, 9.8 ms) says its cost and is an information diagnostic; a
    confirmed line's tooltip has the runtime's message; both name the GPU. An older
    confirm.json (its runtime-only results without confirm's keys) reads the same.
  - a process's report (`syncwatch replay --format=json`): its cost, GPU and message.
  - a merged report (`syncwatch merge --format=json` of two ranks on two GPUs): the worst
    rank's GPU.
  lsp_reports_test.py SYNCWATCH-LSP SYNCWATCH SYNCWATCH-LINT REPO_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402
from lsp_client import Client, uri  # noqa: E402

server, syncwatch, lint, root = sys.argv[1:5]
TIMEOUT = 300
H200 = "GPU-74f0895f"


def run(*args, out=None):
    p = subprocess.run(list(args), cwd=root, capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-2000:]}")
    if out:
        with open(out, "w") as f:
            f.write(p.stdout)
    return p.stdout


class Session:
    """A server reading one reports folder, the files opened and analyzed."""

    def __init__(self, project, reports, files):
        self.c = Client([server, "--reports=" + reports], cwd=project, timeout=TIMEOUT)
        self.c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project), "capabilities": {}})
        self.c.notify("initialized", {})
        for f in files:
            self.c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(f), "languageId": "cuda", "version": 1,
                                                                    "text": open(f).read()}})
        self.diags = {f: self.c.diagnostics(uri(f), 1) for f in files}

    def runtime_diags(self, path):
        """The runtime-only diagnostics of path: the reports are polled every 2 s, so they
        may come with the analysis's first publication or a republication after it."""
        def has(m):
            return (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(path)
                    and any(x.get("source") == "syncwatch (runtime)" for x in m["params"]["diagnostics"]))
        if any(x.get("source") == "syncwatch (runtime)" for x in self.diags.get(path) or []):
            return [x for x in self.diags[path] if x.get("source") == "syncwatch (runtime)"]
        m = self.c.wait(has, timeout=30)
        return [x for x in m["params"]["diagnostics"] if x.get("source") == "syncwatch (runtime)"] if m else []

    def hover(self, path, line0):
        r = self.c.request("textDocument/hover", {"textDocument": {"uri": uri(path)},
                                                  "position": {"line": line0, "character": 4}})
        return (((r or {}).get("result") or {}).get("contents") or {}).get("value", "")

    def hint(self, path, line0):
        r = self.c.request("textDocument/inlayHint", {"textDocument": {"uri": uri(path)},
                                                      "range": {"start": {"line": 0, "character": 0},
                                                                "end": {"line": 500, "character": 0}}})
        hits = [h for h in (r or {}).get("result") or [] if h["position"]["line"] == line0]
        return hits[0] if hits else {}

    def close(self):
        self.c.request("shutdown")
        self.c.notify("exit", {})
        self.c.p.wait(timeout=60)


def evidence_at(doc, name, line):
    hits = [f for f in doc["findings"] if f["location"]["file"].endswith(name) and f["location"]["line"] == line]
    return hits[0] if hits else {"evidence": {}, "message": ""}


with tempfile.TemporaryDirectory() as d:
    project = os.path.join(d, "project")
    os.makedirs(os.path.join(project, "tests", "gpu"))
    os.makedirs(os.path.join(project, "build"))
    probe, cprobe = (os.path.join(project, "tests", "gpu", n) for n in ("runtime_probe.cu", "confirm_probe.cu"))
    for p in (probe, cprobe):
        shutil.copy(os.path.join(root, "tests", "gpu", os.path.basename(p)), p)
    flags = "clang++ -x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17 -c"
    with open(os.path.join(project, "build", "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "command": f"{flags} {p}", "file": p} for p in (probe, cprobe)], f)
    recordings = [os.path.join("test_inputs", "runtime", n) for n in ("h200_runtime_probe.swrec", "h200_confirm_probe.swrec")]

    # --- confirm.json ------------------------------------------------------------------------
    confirmed = os.path.join(d, "confirm")
    os.makedirs(confirmed)
    run(lint, "--format=sarif", "--output=" + os.path.join(d, "lint.sarif"), "tests/gpu/runtime_probe.cu",
        "tests/gpu/confirm_probe.cu", "--")
    run(syncwatch, "confirm", "--static", os.path.join(d, "lint.sarif"), "--runtime", *recordings, "--format=json",
        "--output=" + os.path.join(confirmed, "confirm.json"))
    doc = json.load(open(os.path.join(confirmed, "confirm.json")))
    only, conf = evidence_at(doc, "runtime_probe.cu", 88), evidence_at(doc, "runtime_probe.cu", 37)
    e = only["evidence"]
    check("confirm.json: the runtime-only result has confirm's keys, as a confirmed one has",
          e.get("syncwatch.status") == "runtime-only" and float(e.get("syncwatch.totalMs", 0)) > 9
          and e.get("syncwatch.count") == "1" and e.get("syncwatch.gpu", "").startswith(H200)
          and e.get("syncwatch.runtimeRule") == "syncwatch-pageable-async-copy" and e.get("syncwatch.runtimeMessage"), e)
    check("confirm.json: the runtime-only result keeps the runtime's own evidence (older readers)",
          e.get("totalMs") == e.get("syncwatch.totalMs") and e.get("count") == "1", e)
    runtime_message = e.get("syncwatch.runtimeMessage", "?")
    confirmed_message = conf["evidence"].get("syncwatch.runtimeMessage", "?")

    s = Session(project, confirmed, [probe])
    check("runtime_probe.cu analyzed: its static warning at :37",
          any(x["range"]["start"]["line"] == 36 and x.get("source") == "syncwatch" for x in s.diags[probe] or []),
          s.diags[probe])
    rd = s.runtime_diags(probe)
    at88 = [x for x in rd if x["range"]["start"]["line"] == 87]
    check("confirm.json: the runtime-only line is an information diagnostic with its cost and the GPU",
          len(at88) == 1 and at88[0]["severity"] == 3 and at88[0]["code"] == "syncwatch-pageable-async-copy"
          and at88[0]["message"].startswith(f"runtime-only: 9.8 ms over 1 call(s) on {H200}")
          and runtime_message in at88[0]["message"], rd)
    check("confirm.json: no runtime diagnostic at a confirmed line (the static one stands)",
          not any(x["range"]["start"]["line"] == 36 for x in rd), rd)
    h = s.hover(probe, 87)
    check("confirm.json: hover of the runtime-only line: its cost, the GPU, the runtime's message",
          f"*runtime-only: 9.8 ms over 1 call(s) on {H200}" in h and runtime_message in h, h)
    h = s.hover(probe, 36)
    check("confirm.json: hover of a confirmed line: its cost on the GPU, and the runtime's message",
          f"confirmed: 50.2 ms over 1 call(s) on {H200}" in h and confirmed_message in h, h)
    hint = s.hint(probe, 36)
    check("confirm.json: a confirmed line's inlay hint names the GPU; its tooltip has the runtime's message",
          hint.get("label", "").startswith(f"confirmed: 50.2 ms over 1 call(s) on {H200}")
          and confirmed_message in hint.get("tooltip", ""), hint)
    hint = s.hint(probe, 87)
    check("confirm.json: the runtime-only line's tooltip has the runtime's message",
          hint.get("label", "").startswith("runtime-only: 9.8 ms") and runtime_message in hint.get("tooltip", ""), hint)
    # A confirm.json written before the keys were shared: its runtime-only results had the
    # runtime's own evidence only.
    for f in doc["findings"]:
        if f["evidence"]["syncwatch.status"] == "runtime-only":
            f["evidence"] = {k: v for k, v in f["evidence"].items() if k == "syncwatch.status" or not k.startswith("syncwatch.")}
    with open(os.path.join(confirmed, "old-confirm.json.tmp"), "w") as f:
        json.dump(doc, f)
    os.remove(os.path.join(confirmed, "confirm.json"))
    os.rename(os.path.join(confirmed, "old-confirm.json.tmp"), os.path.join(confirmed, "old-confirm.json"))
    h = s.hover(probe, 87)
    check("an older confirm.json: the runtime-only line's cost still read (its own evidence)",
          "*runtime-only: 9.8 ms over 1 call(s)" in h, h)
    s.close()

    # --- a process's report ------------------------------------------------------------------
    process = os.path.join(d, "process")
    os.makedirs(process)
    for i, rec in enumerate(recordings):
        run(syncwatch, "replay", "--format=json", rec, out=os.path.join(process, f"syncwatch-{i}.json"))
    rdoc = json.load(open(os.path.join(process, "syncwatch-1.json")))
    free_message = evidence_at(rdoc, "confirm_probe.cu", 56)["message"] or "?"
    s = Session(project, process, [cprobe, probe])
    h = s.hover(cprobe, 55)
    check("a process's report: hover names the GPU and has the runtime's message",
          f"measured: 30.2 ms over 1 call(s) on {H200}" in h and free_message in h, h)
    hint = s.hint(cprobe, 55)
    check("a process's report: the inlay hint's tooltip has the runtime's message", free_message in hint.get("tooltip", ""), hint)
    rd = [x for x in s.runtime_diags(probe) if x["range"]["start"]["line"] == 87]
    check("a process's report: a line with no static result is an information diagnostic",
          len(rd) == 1 and rd[0]["severity"] == 3 and rd[0]["message"].startswith("measured: 9.8 ms over 1 call(s)"), rd)
    s.close()

    # --- a merged report: two ranks on two GPUs, rank 1 the costlier -------------------------
    ranks = os.path.join(d, "ranks")
    merged = os.path.join(d, "merged")
    os.makedirs(ranks)
    os.makedirs(merged)
    other = "GPU-2c1e6a8d-0b7f-4e55-9a31-5d0c8e7f1a24"
    for rank, gpu, scale in ((0, H200 + "-c964-22f3-e35d-1e12f212c5ec", 1), (1, other, 2)):
        r = json.loads(json.dumps(rdoc))
        r["process"].update(rank=str(rank), worldSize="2", job="SYNCWATCH_JOB=42-1", gpu=gpu, pid=str(900 + rank))
        for f in r["findings"]:
            for k in ("totalMs", "maxMs"):
                f["evidence"][k] = str(float(f["evidence"][k]) * scale)
        with open(os.path.join(ranks, f"r{rank}.json"), "w") as f:
            json.dump(r, f)
    run(syncwatch, "merge", "--format=json", os.path.join(ranks, "r0.json"), os.path.join(ranks, "r1.json"),
        out=os.path.join(merged, "merged.json"))
    s = Session(project, merged, [cprobe])
    h = s.hover(cprobe, 55)
    check("a merged report: hover names the worst rank's GPU",
          "measured: 90.6 ms over 2 call(s) on " + other in h and "worst rank 1" in h, h)
    hint = s.hint(cprobe, 55)
    check("a merged report: the inlay hint names it too", " on " + other in hint.get("label", ""), hint)
    s.close()

finish()
