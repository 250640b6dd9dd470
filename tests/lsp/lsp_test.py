#!/usr/bin/env python3
"""syncwatch-lsp driven over stdio by a client of our own, as an editor drives it:
initialize; open a file, then its diagnostics (rule id as code, the rule's page as
codeDescription); edit it (unsaved: the disk keeps the old text), then new diagnostics; a
code action's fix-it applied and the NOLINT action applied; hover with a committed runtime
report (the H200's measured cudaFree of tests/gpu/confirm_probe.cu); a file with no compile
command (a showMessage, the server stays up); malformed messages (not JSON, an unknown
method, a request before initialize); shutdown and exit (exit code 0).
  lsp_test.py SYNCWATCH-LSP REPO_ROOT"""
import json
import os
import shutil
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402
from lsp_client import Client, uri  # noqa: E402

server, root = sys.argv[1:3]
TIMEOUT = 300  # a first parse of cuda_runtime.h under a loaded CI machine


def apply(text, edits):
    """TextEdits applied to text, last first (LSP positions: line, UTF-16 character; ASCII here)."""
    lines = text.split("\n")
    def offset(pos):
        return sum(len(l) + 1 for l in lines[:pos["line"]]) + pos["character"]
    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        a, b = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
        lines = text.split("\n")
    return text


with tempfile.TemporaryDirectory() as d:
    project = os.path.join(d, "project")
    os.makedirs(os.path.join(project, "src"))
    os.makedirs(os.path.join(project, "tests", "gpu"))
    flow = os.path.join(project, "src", "flow.cu")
    probe = os.path.join(project, "tests", "gpu", "confirm_probe.cu")
    shutil.copy(os.path.join(root, "test_inputs", "static", "sm_pos_single_stream_fixable.cu"), flow)
    shutil.copy(os.path.join(root, "tests", "gpu", "confirm_probe.cu"), probe)
    flags = "clang++ -x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17 -c"
    os.makedirs(os.path.join(project, "build"))
    with open(os.path.join(project, "build", "compile_commands.json"), "w") as f:  # clangd's build/ lookup
        json.dump([{"directory": project, "command": f"{flags} {p}", "file": p} for p in (flow, probe)], f)
    # The runtime's report of the same program, as `syncwatch run --out .syncwatch` leaves it.
    os.makedirs(os.path.join(project, ".syncwatch"))
    shutil.copy(os.path.join(root, "test_inputs", "runtime", "confirm", "h200_confirm_probe.report.json"),
                os.path.join(project, ".syncwatch", "syncwatch-891.json"))
    elsewhere = os.path.join(d, "scratch", "notes.cu")
    os.makedirs(os.path.dirname(elsewhere))
    with open(elsewhere, "w") as f:
        f.write("__global__ void k() {}\nint main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n")

    c = Client([server], cwd=d, timeout=TIMEOUT)
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri(flow)}, "position": {"line": 0, "character": 0}})
    check("a request before initialize is refused (-32002)", r and r.get("error", {}).get("code") == -32002, r)
    r = c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project),
                                 "capabilities": {"workspace": {"inlayHint": {"refreshSupport": True}}}})
    caps = r and r.get("result", {}).get("capabilities", {})
    check("initialize: full sync, code actions, hover, inlay hints", caps and caps["textDocumentSync"]["change"] == 1
          and caps.get("hoverProvider") and caps.get("inlayHintProvider")
          and "quickfix" in caps["codeActionProvider"]["codeActionKinds"], r)
    c.notify("initialized", {})

    text = open(flow).read()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(flow), "languageId": "cuda", "version": 1, "text": text}})
    diags = c.diagnostics(uri(flow), 1)
    check("open: diagnostics arrive", diags is not None)
    memcpy = [x for x in diags or [] if x["range"]["start"]["line"] == 30]
    check("open: the cudaMemcpy at line 31 is a warning with the rule id as code",
          len(memcpy) == 1 and memcpy[0]["code"] == "syncwatch-sync-memcpy" and memcpy[0]["severity"] == 2, diags)
    check("open: the rule's page as codeDescription",
          memcpy and memcpy[0].get("codeDescription", {}).get("href", "").endswith("/syncwatch-sync-memcpy.md")
          and os.path.exists(memcpy[0]["codeDescription"]["href"][len("file://"):]), memcpy)
    check("open: the memset at line 30 is a note (information)",
          any(x["range"]["start"]["line"] == 29 and x["severity"] == 3 for x in diags or []), diags)

    # The fix-it, as the editor applies it.
    r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri(flow)},
                                              "range": {"start": {"line": 30, "character": 2}, "end": {"line": 30, "character": 2}},
                                              "context": {"diagnostics": memcpy}})
    actions = r and r.get("result") or []
    fix = [a for a in actions if a.get("isPreferred")]
    nolint = [a for a in actions if "NOLINT" in a["title"]]
    check("code actions: a quickfix fix-it and a NOLINT", len(fix) == 1 and len(nolint) == 1
          and all(a["kind"] == "quickfix" for a in actions), actions)
    fixed = apply(text, fix[0]["edit"]["changes"][uri(flow)]) if fix else text
    line31 = fixed.split("\n")[30]
    check("the fix-it makes it cudaMemcpyAsync on `stream`",
          "cudaMemcpyAsync(d_prev_saved, d_prev, pixels * sizeof(float), cudaMemcpyDeviceToDevice, stream)" in line31, line31)

    # The compile database is read once, not at every edit (each analysis's log line says
    # when it was read: a 20,000-command database cost 0.31 s an edit read each time).
    dbfile = os.path.join(project, "build", "compile_commands.json")
    analyses = lambda: [l for l in c.log if "flow.cu:" in l and "finding(s)" in l]
    check("open: the analysis read the compile database", any(f"(read {dbfile})" in l for l in analyses()), c.log)
    c.log.clear()

    # An edit, unsaved: the buffer is analyzed, not the disk.
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(flow), "version": 2}, "contentChanges": [{"text": fixed}]})
    diags = c.diagnostics(uri(flow), 2)
    check("edit: the compile database is not read again", analyses() and not any("(read " in l for l in analyses()), c.log)
    check("edit: the fixed line has no finding (from the unsaved text)",
          diags is not None and not any(x["range"]["start"]["line"] == 30 for x in diags), diags)
    check("edit: the disk still has the old text", open(flow).read() == text)

    # NOLINT, applied to the original text.
    silenced = apply(text, nolint[0]["edit"]["changes"][uri(flow)]) if nolint else text
    check("NOLINT: the comment is added at the line's end",
          silenced.split("\n")[30].endswith("  // NOLINT(syncwatch-sync-memcpy)"), silenced.split("\n")[30])
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(flow), "version": 3}, "contentChanges": [{"text": silenced}]})
    diags = c.diagnostics(uri(flow), 3)
    check("NOLINT: the finding is gone, the note stays",
          diags is not None and not any(x["range"]["start"]["line"] == 30 for x in diags)
          and any(x["range"]["start"]["line"] == 29 for x in diags), diags)

    # An edit of the preamble itself (a new #include): precompiled again, lines shift.
    shifted = "#include <vector>\n" + text
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(flow), "version": 4}, "contentChanges": [{"text": shifted}]})
    diags = c.diagnostics(uri(flow), 4)
    check("a new #include: the findings one line down",
          diags is not None and any(x["range"]["start"]["line"] == 31 and x["code"] == "syncwatch-sync-memcpy" for x in diags)
          and not any(x["severity"] == 1 for x in diags), diags)

    # A .clang-tidy beside a file decides its checks (only syncwatch's globs count); the file
    # is not in the database: it gets the nearest file's command, as clangd gives it.
    os.makedirs(os.path.join(project, "lib"))
    lib = os.path.join(project, "lib", "flow_copy.cu")
    shutil.copy(flow, lib)
    with open(os.path.join(project, "lib", ".clang-tidy"), "w") as f:
        f.write("Checks: '-*,bugprone-*,syncwatch-default-stream'\nCheckOptions:\n"
                "  - key: syncwatch-pageable-async-copy.ReportUnknown\n    value: true\n")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(lib), "languageId": "cuda", "version": 1, "text": text}})
    ldiags = c.diagnostics(uri(lib), 1)
    check(".clang-tidy's Checks: sync-memcpy off for lib/, and no tool error",
          ldiags is not None and not any(x.get("code") == "syncwatch-sync-memcpy" or x["severity"] == 1 for x in ldiags), ldiags)

    # Hover: what the H200 measured at the cudaFree (the committed report).
    ptext = open(probe).read()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(probe), "languageId": "cuda", "version": 1, "text": ptext}})
    pdiags = c.diagnostics(uri(probe), 1)
    check("second file: diagnostics", pdiags is not None and any(x["range"]["start"]["line"] == 55 for x in pdiags), pdiags)
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri(probe)}, "position": {"line": 55, "character": 8}})
    hover = ((r or {}).get("result") or {}).get("contents", {}).get("value", "")
    check("hover: the static finding and the measured cost on the H200",
          "syncwatch-implicit-sync" in hover and "measured: 30.2 ms over 1 call(s) on GPU-74f0895f" in hover, hover)
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri(probe)}, "position": {"line": 0, "character": 0}})
    check("hover elsewhere: nothing", r and r.get("result") is None, r)

    # Inlay hints: the measured cost at the end of the measured line, only in the range asked.
    r = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri(probe)},
                                             "range": {"start": {"line": 0, "character": 0}, "end": {"line": 200, "character": 0}}})
    hints = (r or {}).get("result") or []
    line56 = ptext.split("\n")[55]
    check("inlay hint: the cost at the end of line 56",
          len(hints) == 1 and hints[0]["position"] == {"line": 55, "character": len(line56)}
          and hints[0]["label"].startswith("measured: 30.2 ms over 1 call(s) on GPU-74f0895f")
          and "syncwatch-implicit-sync" in hints[0].get("tooltip", ""), hints)
    r = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri(probe)},
                                             "range": {"start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}}})
    check("inlay hint: none outside the range asked", r and r.get("result") == [], r)

    # A new run lands in .syncwatch/ (a finding at a line with no static result): the server
    # sees it without being told, and shows it as a runtime-only diagnostic.
    doc = json.load(open(os.path.join(project, ".syncwatch", "syncwatch-891.json")))
    doc["findings"][0]["location"]["line"] = 54
    doc["findings"][0]["evidence"]["totalMs"] = "99.5"
    doc["process"]["pid"] = "999"
    with open(os.path.join(project, ".syncwatch", "syncwatch-999.json.tmp"), "w") as f:
        json.dump(doc, f)
    os.rename(os.path.join(project, ".syncwatch", "syncwatch-999.json.tmp"), os.path.join(project, ".syncwatch", "syncwatch-999.json"))
    runtime_only = None
    for _ in range(5):  # republished when the poll (2 s) sees the new report
        pd = c.diagnostics(uri(probe), 1)
        hits = [x for x in pd or [] if x["range"]["start"]["line"] == 53 and x.get("source") == "syncwatch (runtime)"]
        if hits:
            runtime_only = hits[0]
            break
    check("a new report: a runtime-only diagnostic at its line, as information",
          runtime_only is not None and runtime_only["severity"] == 3 and runtime_only["code"] == "syncwatch-implicit-sync"
          and "measured: 99.5 ms over 1 call(s)" in runtime_only["message"], runtime_only)
    m = c.wait(lambda m: m.get("method") == "workspace/inlayHint/refresh")
    check("a new report: the client is asked to refresh its inlay hints", m is not None and "id" in m, m)
    if m:
        c.send({"id": m["id"], "result": None})  # the editor's answer: nothing for the server to do
    r = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri(probe)},
                                             "range": {"start": {"line": 0, "character": 0}, "end": {"line": 200, "character": 0}}})
    check("inlay hints: the new run's line too", len((r or {}).get("result") or []) == 2, r)

    # A file's headers: their findings are published to them; an edit keeps them (it analyzes
    # the file's own code and the helpers it calls); a saved header is analyzed again.
    hdir = os.path.join(project, "headers")
    shutil.copytree(os.path.join(root, "test_inputs", "headers"), hdir)
    with open(os.path.join(project, "build", "compile_commands.json")) as f:
        db = json.load(f)
    blur, helpers = os.path.join(hdir, "blur_pipeline.cu"), os.path.join(hdir, "gpu_helpers.cuh")
    db.append({"directory": hdir, "command": f"{flags} {blur}", "file": blur})
    with open(os.path.join(project, "build", "compile_commands.json"), "w") as f:
        json.dump(db, f)
    btext = open(blur).read()
    c.log.clear()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(blur), "languageId": "cuda", "version": 1, "text": btext}})
    bdiags = c.diagnostics(uri(blur), 1)
    check("a changed compile database is read again",
          any("blur_pipeline.cu:" in l and f"(read {dbfile})" in l for l in c.log), c.log)
    hdiags = c.diagnostics(uri(helpers))
    check("header: the file's blocking stream (the header's helper is the legacy work)",
          any(x["code"] == "syncwatch-blocking-stream" and x["range"]["start"]["line"] == 20 for x in bdiags or []), bdiags)
    check("header: its own findings published to it (the default-stream launch at :26, the pageable upload at :35)",
          sorted((x["range"]["start"]["line"], x["code"]) for x in hdiags or [])
          == [(25, "syncwatch-default-stream"), (34, "syncwatch-pageable-async-copy")], hdiags)
    # The header opened itself (analyzed as its own unit, with the nearest file's command):
    # the file's findings in it stay beside the header's own (the upload is pageable only in
    # blur_pipeline.cu's unit), and closing it leaves the file's.
    htext0 = open(helpers).read()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(helpers), "languageId": "cuda", "version": 1, "text": htext0}})
    hopen = c.diagnostics(uri(helpers), 1)
    check("an open header: the including file's findings in it stay with its own",
          hopen is not None and (34, "syncwatch-pageable-async-copy") in [(x["range"]["start"]["line"], x["code"]) for x in hopen]
          and len([x for x in hopen if x["code"] == "syncwatch-default-stream" and x["range"]["start"]["line"] == 25]) == 1, hopen)
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri(helpers)}})
    hclosed = c.diagnostics(uri(helpers))
    check("the header closed: the including file's findings in it are published again",
          hclosed is not None and sorted((x["range"]["start"]["line"], x["code"]) for x in hclosed)
          == [(25, "syncwatch-default-stream"), (34, "syncwatch-pageable-async-copy")], hclosed)
    edited = btext.replace("  return 0;\n}", "  return 0;  // done\n}")
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(blur), "version": 2}, "contentChanges": [{"text": edited}]})
    bdiags2 = c.diagnostics(uri(blur), 2)
    hdiags2 = c.diagnostics(uri(helpers))
    check("header, after an edit of the file: the same diagnostics in both",
          bdiags2 == bdiags and hdiags2 == hdiags, (bdiags2, hdiags2))
    check("header, after an edit: the edit was analyzed in the file's own scope",
          c.wait_log(lambda l: "blur_pipeline.cu" in l and "(the file's own code)" in l, timeout=60) is not None, c.log)
    # The helper fixed on disk (pinned staging is the caller's job; the launch gets a
    # stream), then saved: the file is analyzed again, whole.
    htext = open(helpers).read()
    with open(helpers, "w") as f:
        f.write(htext.replace("scale<<<(n + 255) / 256, 256>>>(d_data, n, factor);",
                              "scale<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(d_data, n, factor);"))
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri(helpers)}})
    bdiags3 = c.diagnostics(uri(blur), 2)
    hdiags3 = c.diagnostics(uri(helpers))
    check("a saved header: its launch finding is gone, the upload's stays",
          [(x["range"]["start"]["line"], x["code"]) for x in hdiags3 or []] == [(34, "syncwatch-pageable-async-copy")], hdiags3)
    blocking = [x for x in bdiags3 or [] if x["code"] == "syncwatch-blocking-stream"]
    check("a saved header: the file's blocking stream no longer points at the header's launch (the macro's stays)",
          len(blocking) == 1 and [r["location"]["uri"] for r in blocking[0]["relatedInformation"]] == [uri(blur)] * 2
          and blocking[0]["relatedInformation"][0]["location"]["range"]["start"]["line"] == 31, blocking)

    # No compile command: said once, the server stays up.
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(elsewhere), "languageId": "cuda", "version": 1,
                                                       "text": open(elsewhere).read()}})
    m = c.wait(lambda m: m.get("method") == "window/showMessage" and "notes.cu" in m["params"]["message"])
    check("no compile command: a showMessage naming the file", m and "no compile_commands.json" in m["params"]["message"], m)

    # Malformed input.
    c.raw(b"{not json")
    m = c.wait(lambda m: m.get("error", {}).get("code") == -32700)
    check("not JSON: a parse error (-32700)", m is not None)
    # Nested past the readers' limit (128 levels): a parse error, not a stack overflow
    # (40,000 levels crashed the server with SIGSEGV).
    c.raw(b"[" * 40000 + b"]" * 40000)
    m = c.wait(lambda m: m.get("error", {}).get("code") == -32700 and "nested too deeply" in m["error"]["message"])
    check("40,000 levels of nesting: a parse error naming the limit, the server alive", m is not None and c.p.poll() is None,
          c.p.poll())
    # A body over 64 MiB is skipped whole: the next message is answered.
    c.raw(b" " * (64 * 1024 * 1024 + 1))
    r = c.request("workspace/symbol", {"query": "x"})
    check("after a message over 64 MiB, the next request is answered", r is not None and "error" in r, r)
    check("an unknown method: -32601", r and r.get("error", {}).get("code") == -32601, r)
    r = c.request("textDocument/hover", {"position": {"line": 1}})
    check("a hover without a document: null, not a crash", r and "result" in r and r["result"] is None, r)

    r = c.request("shutdown")
    check("shutdown: null", r and "result" in r and r["result"] is None, r)
    c.notify("exit", {})
    code = c.exit_code()
    check("exit after shutdown: exit code 0", code == 0, code)

    # --profile: severities from `syncwatch calibrate`'s profile of another GPU, where frees do
    # not block: the cudaFree at :56, a warning above, is a note.
    free_warning = [x for x in pdiags or [] if x["range"]["start"]["line"] == 55 and x["code"] == "syncwatch-implicit-sync"]
    c = Client([server, "--profile=" + os.path.join(root, "test_inputs", "profiles", "frees_do_not_block.json")], cwd=d,
               timeout=TIMEOUT)
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project), "capabilities": {}})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(probe), "languageId": "cuda", "version": 1, "text": ptext}})
    prof = [x for x in c.diagnostics(uri(probe), 1) or [] if x["range"]["start"]["line"] == 55 and x["code"] == "syncwatch-implicit-sync"]
    check("--profile: the free's warning is a note where frees do not block",
          free_warning and free_warning[0]["severity"] == 2 and prof and prof[0]["severity"] == 3, (free_warning, prof))
    c.request("shutdown")
    c.notify("exit", {})
    c.p.wait(timeout=60)

    # A runtime report lands while an edit waits for its analysis (a debounce longer than the
    # test): the republish is of the analyzed text, with its version, so the client does not
    # take the old lines for the new text's. (In CI a report poll once fell between an edit
    # and its analysis, and the old findings came labelled with the new version, a line off.)
    c = Client([server, "--debounce-ms=600000"], cwd=d, timeout=TIMEOUT)
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project), "capabilities": {}})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(flow), "languageId": "cuda", "version": 1, "text": text}})
    before = c.diagnostics(uri(flow), 1)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(flow), "version": 2},
                                        "contentChanges": [{"text": "#include <vector>\n" + text}]})
    r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri(flow)},
                                              "range": {"start": {"line": 30, "character": 2}, "end": {"line": 31, "character": 2}},
                                              "context": {"diagnostics": []}})
    check("an edit not analyzed yet: no fix-it made from the old text's offsets", r and r.get("result") == [], r)
    doc = json.load(open(os.path.join(project, ".syncwatch", "syncwatch-891.json")))
    doc["findings"][0]["location"].update(file=flow, line=40)  # int main(): no static finding there
    doc["process"]["pid"] = "1001"
    with open(os.path.join(project, ".syncwatch", "syncwatch-1001.json.tmp"), "w") as f:
        json.dump(doc, f)
    os.rename(os.path.join(project, ".syncwatch", "syncwatch-1001.json.tmp"), os.path.join(project, ".syncwatch", "syncwatch-1001.json"))
    m = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(flow)
               and any(x.get("source") == "syncwatch (runtime)" for x in m["params"]["diagnostics"]))
    again = m and m["params"]
    static = again and [x for x in again["diagnostics"] if x.get("source") == "syncwatch"]
    check("a report during a pending edit: republished as version 1, the old text's lines",
          again and again.get("version") == 1 and static == before
          and [x["range"]["start"]["line"] for x in again["diagnostics"] if x.get("source") != "syncwatch"] == [39], again)
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri(flow)}, "position": {"line": 39, "character": 2}})
    check("hover: the new report's cost", "measured: 30.2 ms" in (((r or {}).get("result") or {}).get("contents", {}).get("value", "")), r)
    c.request("shutdown")
    c.notify("exit", {})
    c.p.wait(timeout=60)

finish()
